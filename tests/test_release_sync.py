"""exercises/ is exactly what `nbgrader generate_assignment` makes from solutions/, and the
registry names every exercise folder."""
import pytest

import helpers

pytestmark = pytest.mark.nbgrader

EXERCISES = helpers.EXERCISES


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.assignment)
def test_release_is_regenerated_from_solutions(tmp_path, exercise):
    differences = helpers.release_differences(exercise, tmp_path)
    assert not differences, (f"{differences} differ from the generated release: run "
                             f"`cd autograder && nbgrader generate_assignment {exercise.assignment}` and commit it")


def test_release_has_no_solution_or_hidden_test():
    for exercise in EXERCISES:
        text = exercise.release_path.read_text()
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
        assert "autograder.catalogue" not in text


def test_registry_and_folders_agree():
    """Every folder of solutions/ and exercises/ is a registered exercise, and each holds its one notebook."""
    registered = {e.assignment for e in EXERCISES}
    for folder in (helpers.COURSE.source, helpers.COURSE.release):
        assert {p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")} == registered
    for exercise in EXERCISES:
        assert [p.name for p in exercise.source_path.parent.glob("*.ipynb")] == [exercise.notebook]
        assert exercise.source.functions, f"{exercise.assignment} defines no function in a solution cell"
