"""The draw varies values, never coverage (issue 25): every implementation in tests/submissions gets
the same verdict and the same named mistakes, test by test, on every draw of the hidden inputs.

Each catalogue puts its mistakes' telling cases (a small variance for eps, n != m, a fully masked
prefix, an own key that weighs ...) into every draw; only the values around them are drawn.  Graded
here on ``DRAWS`` fresh self-check draws, as a learner checking five times in a row would be.
"""
import os

import pytest

import helpers
from autograder import checks, engine

DRAWS = int(os.environ.get("ATTENTION_TEST_DRAWS", "20"))
IMPLEMENTATIONS = helpers.implementations("wrong") + helpers.implementations("correct") + \
    helpers.implementations("real")


def verdicts(assignment, code, draw):
    report = engine.run_tests(helpers.exercise(assignment), helpers.submission(assignment, code), draw=draw)
    return {t.grade_id: (t.passed, t.score, tuple(sorted(t.findings))) for t in report.tests}


@pytest.mark.draws
@pytest.mark.parametrize("assignment, path", IMPLEMENTATIONS,
                         ids=[f"{a}/{p.parent.name}/{p.stem}" for a, p in IMPLEMENTATIONS])
def test_the_same_code_gets_the_same_verdicts_and_names_on_every_draw(assignment, path):
    code = path.read_text()
    first = verdicts(assignment, code, checks.self_check_draw())
    for _draw in range(DRAWS - 1):
        again = verdicts(assignment, code, checks.self_check_draw())
        changed = {grade_id: (first[grade_id], again[grade_id]) for grade_id in first if first[grade_id] != again[grade_id]}
        assert not changed, f"{path.name}: verdicts that change with the draw: {changed}"


def test_five_self_checks_in_a_row_give_one_report(tmp_path):
    """Issue 25: a learner who checks the same saved notebook five times gets the same report, word for
    word (shapes and values included), because the self-check draws from the code alone.  The code is a
    real pattern (the Annotated Transformer's layer norm and pre-norm sub-layers, one array returned)
    whose report localises some mistakes and names others."""
    import nbformat
    from autograder import selfcheck
    assignment = "11_transformer"
    path = tmp_path / "11_transformer.ipynb"
    code = (helpers.SUBMISSIONS / assignment / "real" / "annotated_transformer_port.py").read_text()
    nbformat.write(helpers.submission(assignment, code), path)
    reports = set()
    for _check in range(5):
        exercise, report = selfcheck.grade(path)
        reports.add(selfcheck.report_text(exercise, report, path))
    assert len(reports) == 1, reports
    assert "shape" in reports.pop()
