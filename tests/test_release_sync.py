"""exercises/ is exactly what `nbgrader generate_assignment` makes from solutions/."""
import json

import pytest

import helpers
from autograder import notebooks


@pytest.mark.parametrize("source", notebooks.source_notebooks(), ids=lambda s: s.assignment)
def test_release_is_regenerated_from_solutions(tmp_path, source):
    root = helpers.course(tmp_path)
    helpers.nbgrader("generate_assignment", source.assignment, root=root)
    fresh = root / "exercises" / source.assignment
    committed = helpers.REPO / "exercises" / source.assignment
    assert sorted(p.name for p in fresh.iterdir()) == sorted(p.name for p in committed.iterdir())
    for path in fresh.glob("*.ipynb"):
        assert json.loads(path.read_text()) == json.loads((committed / path.name).read_text()), (
            f"exercises/{source.assignment}/{path.name} differs from the generated release: run "
            f"`cd autograder && nbgrader generate_assignment {source.assignment}` and commit it")


def test_release_has_no_solution_or_hidden_test():
    for source in notebooks.source_notebooks():
        text = (helpers.REPO / "exercises" / source.assignment / source.path.name).read_text()
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
        assert "autograder.catalogue" not in text
