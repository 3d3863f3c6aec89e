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
