"""The misconception catalogues: every mistake is caught and named; correct variants earn full marks."""
import pytest

import helpers
from autograder import engine, notebooks

WRONG = helpers.implementations("wrong")
CORRECT = helpers.implementations("correct")


def grade(assignment, code):
    (source,) = [s for s in notebooks.source_notebooks() if s.assignment == assignment]
    return engine.run_tests(source, helpers.submission(assignment, code))


@pytest.mark.parametrize("assignment, path", WRONG, ids=[f"{a}/{p.stem}" for a, p in WRONG])
def test_catalogued_mistake_loses_points_and_is_named(assignment, path):
    mistake = {m.id: m for m in helpers.catalogue(assignment).MISTAKES}[path.stem]
    report = grade(assignment, path.read_text())
    failed = [t for t in report.tests if not t.passed]
    assert report.score < report.max_score, f"{path.name} earned full marks"
    assert any(mistake.message in t.message for t in failed), (
        f"no failed test names the mistake {mistake.id!r}; messages: {[t.message for t in failed]}")


@pytest.mark.parametrize("assignment, path", CORRECT, ids=[f"{a}/{p.stem}" for a, p in CORRECT])
def test_correct_alternative_earns_full_marks(assignment, path):
    report = grade(assignment, path.read_text())
    assert report.score == report.max_score > 0, [t.message for t in report.tests if not t.passed]


@pytest.mark.parametrize("source", notebooks.source_notebooks(), ids=lambda s: s.assignment)
def test_every_catalogued_mistake_has_a_wrong_implementation(source):
    ids = {m.id for m in helpers.catalogue(source.assignment).MISTAKES}
    kept = {p.stem for a, p in WRONG if a == source.assignment}
    assert ids == kept, f"mistakes without a wrong implementation: {ids - kept}; files without a mistake: {kept - ids}"
    assert len({p.stem for a, p in CORRECT if a == source.assignment}) >= 2


@pytest.mark.parametrize("source", notebooks.source_notebooks(), ids=lambda s: s.assignment)
def test_reference_full_marks_and_untouched_release_zero(source):
    assert grade(source.assignment, "\n\n".join(
        c.source for c in source.notebook.cells
        if c.cell_type == "code" and notebooks.meta(c).get("solution"))).score == \
        sum(t.points for t in source.tests)
    report = engine.run_tests(source, helpers.release_notebook(source.assignment))
    assert report.score == 0 and report.max_score > 0
    assert all("not implemented yet" in t.message for t in report.tests), [t.message for t in report.tests]
