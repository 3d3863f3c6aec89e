"""Hidden inputs the learner cannot predict (issue 18): ``checks.rng`` and the draws.

The class run draws its inputs from the course's secret; a self-check draws new
ones every time.  A table of outputs memorised from a self-check (or from the
published catalogue's seeds) therefore scores nothing in the class run, while
the same secret always reproduces the same grades.
"""
import hashlib

import numpy as np
import pytest

import helpers
from autograder import checks, engine

ASSIGNMENT = "01_softmax"


def _key(x, axis):
    x = np.asarray(x, dtype=np.float64)
    return hashlib.sha256(x.tobytes() + repr((x.shape, axis)).encode()).hexdigest()


def _memorised(draw):
    """A learner's softmax that answers from a table of the outputs of every hidden call under ``draw``."""
    exercise = helpers.exercise(ASSIGNMENT)
    records = []
    with checks.watching(records.append):
        engine.run_tests(exercise, helpers.submission(ASSIGNMENT, _reference_code()), draw=draw)
    table = {_key(r.args[0], r.kwargs.get("axis", -1)): np.asarray(r.want).tolist() for r in records}
    assert len(table) >= 10
    return (f"import hashlib\nTABLE = {table!r}\n\n"
            "def softmax(x, axis=-1):\n"
            "    x = np.asarray(x, dtype=np.float64)\n"
            "    key = hashlib.sha256(x.tobytes() + repr((x.shape, axis)).encode()).hexdigest()\n"
            "    return np.array(TABLE[key]) if key in TABLE else np.zeros_like(x)\n")


def _reference_code():
    from autograder import notebooks
    source = helpers.exercise(ASSIGNMENT).source.notebook
    return "\n\n".join(c.source for c in source.cells if c.cell_type == "code" and notebooks.meta(c).get("solution"))


def _hidden_score(report):
    return sum(t.score for t in report.tests if "visible" not in t.grade_id)


def test_a_table_memorised_from_a_self_check_scores_nothing_in_the_class_run(monkeypatch):
    monkeypatch.setenv(checks.SECRET_VARIABLE, "the instructor's secret")
    exercise = helpers.exercise(ASSIGNMENT)
    learned = checks.self_check_draw()
    code = _memorised(learned)
    same_draw = engine.run_tests(exercise, helpers.submission(ASSIGNMENT, code), draw=learned)
    hidden = [t for t in same_draw.tests if "visible" not in t.grade_id]
    assert all(t.passed for t in hidden), "the table should answer the inputs it was built from"
    class_run = engine.run_tests(exercise, helpers.submission(ASSIGNMENT, code))   # the class run's draw
    assert _hidden_score(class_run) == 0, [t.message for t in class_run.tests]
    # Every self-check draws again: the table misses there too.
    fresh = engine.run_tests(exercise, helpers.submission(ASSIGNMENT, code), draw=checks.self_check_draw())
    assert _hidden_score(fresh) == 0


def test_a_table_of_the_class_inputs_needs_the_secret(monkeypatch):
    """Memorising the class run's own inputs requires its secret: another secret, other inputs."""
    monkeypatch.setenv(checks.SECRET_VARIABLE, "guessed")
    guessed = checks.class_draw(helpers.COURSE)
    code = _memorised(guessed)
    monkeypatch.setenv(checks.SECRET_VARIABLE, "the real one")
    report = engine.run_tests(helpers.exercise(ASSIGNMENT), helpers.submission(ASSIGNMENT, code))
    assert _hidden_score(report) == 0


def test_same_secret_same_inputs_same_grades(monkeypatch):
    monkeypatch.setenv(checks.SECRET_VARIABLE, "regrade me")
    exercise = helpers.exercise("06_scaled")
    code = (helpers.SUBMISSIONS / "06_scaled" / "wrong" / "scale_by_dv.py").read_text()

    def run():
        records = []
        with checks.watching(records.append):
            report = engine.run_tests(exercise, helpers.submission("06_scaled", code))
        return [(t.score, t.message) for t in report.tests], [r.args[0] for r in records]

    first, second = run(), run()
    assert first[0] == second[0]
    assert all(np.array_equal(a, b) for a, b in zip(first[1], second[1]))
    monkeypatch.setenv(checks.SECRET_VARIABLE, "another course")
    assert not all(np.array_equal(a, b) for a, b in zip(first[1], run()[1]))


def test_the_secret_file_is_created_once_and_kept(tmp_path, monkeypatch):
    monkeypatch.delenv(checks.SECRET_VARIABLE, raising=False)

    class Course:
        root = tmp_path

    first = checks.class_draw(Course)
    assert (tmp_path / checks.SECRET_FILE).is_file()
    assert checks.class_draw(Course) == first
    assert checks.self_check_draw() != checks.self_check_draw()


@pytest.mark.parametrize("draw", ["class:a", "self-check:b"])
def test_rng_depends_on_the_draw_and_the_label_only(draw):
    exercise = helpers.exercise(ASSIGNMENT)
    with checks.grading(exercise, draw=draw):
        a, b, c = checks.rng("x").normal(size=4), checks.rng("x").normal(size=4), checks.rng("y").normal(size=4)
    with checks.grading(exercise, draw=draw + "!"):
        d = checks.rng("x").normal(size=4)
    assert np.array_equal(a, b) and not np.array_equal(a, c) and not np.array_equal(a, d)
