"""Hidden inputs the learner cannot predict (issue 18): ``checks.rng`` and the draws.

The class run draws its inputs from the course's secret; a self-check draws from
the learner's code alone (issue 25), so a table written into the code misses them.  A table of outputs memorised from a self-check (or from the
published catalogue's seeds) therefore scores nothing in the class run, while
the same secret always reproduces the same grades.  For every exercise (issue 24),
answers memorised from one draw earn nothing on another, and no hidden input is
the same in two draws.
"""
import copy
import hashlib

import nbformat
import numpy as np
import pytest

import helpers
from autograder import checks, course_secret, engine
from autograder.course import Course

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


def test_a_table_memorised_from_a_self_check_scores_nothing_in_the_class_run():
    exercise = helpers.exercise(ASSIGNMENT)
    learned = checks.self_check_draw()
    code = _memorised(learned)
    same_draw = engine.run_tests(exercise, helpers.submission(ASSIGNMENT, code), draw=learned)
    hidden = [t for t in same_draw.tests if "visible" not in t.grade_id]
    assert all(t.passed for t in hidden), "the table should answer the inputs it was built from"
    class_run = engine.run_tests(exercise, helpers.submission(ASSIGNMENT, code),
                                 draw=course_secret.draw_of("the instructor's secret"))
    assert _hidden_score(class_run) == 0, [t.message for t in class_run.tests]
    # The self-check draws from the code, and the table is code: written in, it changes the inputs it answers.
    submission = helpers.submission(ASSIGNMENT, code)
    own = engine.run_tests(exercise, submission, draw=checks.self_check_draw(submission))
    assert _hidden_score(own) == 0


def test_a_table_of_the_class_inputs_needs_the_secret():
    """Memorising the class run's own inputs requires its secret: another secret, other inputs."""
    code = _memorised(course_secret.draw_of("guessed"))
    report = engine.run_tests(helpers.exercise(ASSIGNMENT), helpers.submission(ASSIGNMENT, code),
                              draw=course_secret.draw_of("the real one"))
    assert _hidden_score(report) == 0


def test_same_secret_same_inputs_same_grades():
    exercise = helpers.exercise("06_scaled")
    code = (helpers.SUBMISSIONS / "06_scaled" / "wrong" / "scale_by_dv.py").read_text()

    def run(secret):
        records = []
        with checks.watching(records.append):
            report = engine.run_tests(exercise, helpers.submission("06_scaled", code),
                                      draw=course_secret.draw_of(secret))
        return [(t.score, t.message) for t in report.tests], [r.args[0] for r in records]

    first, second = run("regrade me"), run("regrade me")
    assert first[0] == second[0]
    assert all(np.array_equal(a, b) for a, b in zip(first[1], second[1]))
    assert not all(np.array_equal(a, b) for a, b in zip(first[1], run("another course")[1]))


# --------------------------------------------------------------------------- the course's one secret
def _copy(root, gradebook):
    """A course copy at ``root`` (a grading machine) grading into the shared ``gradebook`` URL."""
    (root / "autograder").mkdir(parents=True, exist_ok=True)
    return Course(root, db_url=gradebook)


def _gradebook_state(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_one_secret_per_course_recorded_in_the_gradebook(tmp_path, monkeypatch):
    """The first run creates the secret and records its fingerprint; a second machine sharing the
    gradebook refuses without it (or with another), changes nothing, and agrees once it has it."""
    monkeypatch.delenv(course_secret.SECRET_VARIABLE, raising=False)
    database = tmp_path / "shared.db"
    url = f"sqlite:///{database}"
    first, second = _copy(tmp_path / "a", url), _copy(tmp_path / "b", url)
    draw = course_secret.class_draw(first)
    secret_file = first.root / course_secret.SECRET_FILE
    assert secret_file.is_file() and secret_file.stat().st_mode & 0o777 == 0o600
    assert course_secret.class_draw(first) == draw
    recorded = course_secret.recorded_fingerprint(url)
    assert recorded == course_secret.fingerprint(secret_file.read_text().strip())
    assert secret_file.read_text().strip() not in database.read_bytes().decode("latin-1")   # never the secret

    before = _gradebook_state(database)
    with pytest.raises(course_secret.CourseSecretError) as refused:
        course_secret.class_draw(second)
    message = str(refused.value)
    assert "\n" not in message and recorded in message and course_secret.SECRET_FILE in message
    assert course_secret.SECRET_VARIABLE in message
    assert not (second.root / course_secret.SECRET_FILE).exists(), "it must never invent its own"
    monkeypatch.setenv(course_secret.SECRET_VARIABLE, "a secret of its own")
    with pytest.raises(course_secret.CourseSecretError, match="another secret"):
        course_secret.class_draw(second)
    assert _gradebook_state(database) == before

    monkeypatch.setenv(course_secret.SECRET_VARIABLE, secret_file.read_text())   # the documented setting
    assert course_secret.class_draw(second) == draw
    monkeypatch.delenv(course_secret.SECRET_VARIABLE)
    (second.root / course_secret.SECRET_FILE).write_text(secret_file.read_text())   # or the file, copied
    assert course_secret.class_draw(second) == draw


def test_an_unreadable_secret_is_one_line(tmp_path, monkeypatch):
    monkeypatch.delenv(course_secret.SECRET_VARIABLE, raising=False)
    course = _copy(tmp_path / "c", f"sqlite:///{tmp_path / 'gradebook.db'}")
    (course.root / course_secret.SECRET_FILE).mkdir()   # a folder where the file should be
    with pytest.raises(course_secret.CourseSecretError, match="cannot be read"):
        course_secret.class_draw(course)


def test_a_self_check_draws_from_the_code_alone():
    """Issue 25: five self-checks in a row of the same code give one report, because its draw is a function
    of the learner's code (not of outputs, metadata, markdown cells, line endings or the moment); changed code
    draws anew."""
    code = (helpers.SUBMISSIONS / "01_softmax" / "wrong" / "axis_ignored.py").read_text()
    submission = helpers.submission("01_softmax", code)
    rerun = copy.deepcopy(submission)
    rerun.metadata["anything"] = "else"
    rerun.cells[-1].outputs = [nbformat.v4.new_output("stream", text="a different output")]
    rerun.cells.insert(0, nbformat.v4.new_markdown_cell("A note of my own"))      # where the code stands
    rerun.cells.insert(2, nbformat.v4.new_code_cell(""))
    for cell in rerun.cells:
        if cell.cell_type == "code" and cell.source.strip():
            cell.source = cell.source.replace("\n", "\r\n") + "\n\n"           # line endings, blank lines
    assert checks.self_check_draw(submission) == checks.self_check_draw(rerun)
    edited = helpers.submission("01_softmax", code + "\n# a comment\n")
    assert checks.self_check_draw(edited) != checks.self_check_draw(submission)
    assert checks.self_check_draw() != checks.self_check_draw()   # no submission: a fresh draw each time


@pytest.mark.parametrize("draw", ["class:a", "self-check:b"])
def test_rng_depends_on_the_draw_and_the_label_only(draw):
    exercise = helpers.exercise(ASSIGNMENT)
    with checks.grading(exercise, draw=draw):
        a, b, c = checks.rng("x").normal(size=4), checks.rng("x").normal(size=4), checks.rng("y").normal(size=4)
    with checks.grading(exercise, draw=draw + "!"):
        d = checks.rng("x").normal(size=4)
    assert np.array_equal(a, b) and not np.array_equal(a, c) and not np.array_equal(a, d)


def test_an_empty_secret_file_is_refused_and_nothing_recorded(tmp_path, monkeypatch):
    """A failed copy (an empty file) is never taken for "no secret": that would record a new one."""
    monkeypatch.delenv(course_secret.SECRET_VARIABLE, raising=False)
    url = f"sqlite:///{tmp_path / 'gradebook.db'}"
    course = _copy(tmp_path / "d", url)
    (course.root / course_secret.SECRET_FILE).write_text("\n")
    with pytest.raises(course_secret.CourseSecretError, match="is empty"):
        course_secret.class_draw(course)
    assert course_secret.recorded_fingerprint(url) is None


# --------------------------------------------------------------------------- every exercise, every hidden input
# The digest a memorising submission keys its table on: every argument of a call, arrays by dtype, shape and bytes.
# The same source runs here (to build the table) and in the learner's sandboxed process (to look it up).
MEMO_KEY = '''
import hashlib as _hashlib
import numpy as _np


def _memo_key(value):
    def canonical(value):
        if isinstance(value, _np.ndarray):
            return ("array", value.dtype.str, value.shape,
                    _hashlib.sha256(_np.ascontiguousarray(value).tobytes()).hexdigest())
        if isinstance(value, dict):
            return ("dict", tuple(sorted((repr(k), canonical(v)) for k, v in value.items())))
        if isinstance(value, (list, tuple)):
            return ("sequence", tuple(canonical(v) for v in value))
        if isinstance(value, _np.generic):
            return ("scalar", value.dtype.str, repr(value.item()))
        return ("value", repr(value))
    return _hashlib.sha256(repr(canonical(value)).encode()).hexdigest()
'''
_KEY = {}
exec(MEMO_KEY, _KEY)
# Inputs that stay the same on purpose: an edge case whose only input is its size.
FIXED_BY_DESIGN = {("07_self_attention", "causal_mask", "(1,)")}
MEMORY_FINDINGS = {"full_score_matrix"}   # the mistakes a memory bound names


def _solution_code(exercise):
    from autograder import notebooks
    return "\n\n".join(c.source for c in exercise.source.notebook.cells
                       if c.cell_type == "code" and notebooks.meta(c).get("solution"))


def _hidden_tests(exercise):
    """The grade ids of the hidden tests: the cells the release does not show (visible tests are fixed by design)."""
    return {t.grade_id for t in exercise.source.tests if "BEGIN HIDDEN TESTS" in t.source}


def _graded_calls(monkeypatch, exercise, code, draw):
    """(report, calls): ``code`` graded under ``draw``, and every call the grader made of a learner's function
    (rank probes and measured calls included), as (test, function, args, kwargs, answer)."""
    calls, current = [], [None]
    call, run_test = engine._Proxy._call, engine._run_test

    def recording_call(proxy, args, kwargs, measure):
        value = call(proxy, args, kwargs, measure)
        calls.append((current[0], proxy.__name__, args, kwargs, value[0] if measure else value))
        return value

    def noting_test(test, *args, **kwargs):
        current[0] = test.grade_id
        return run_test(test, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(engine._Proxy, "_call", recording_call)
        patch.setattr(engine, "_run_test", noting_test)
        report = engine.run_tests(exercise, helpers.submission(exercise.assignment, code), draw=draw)
    return report, calls


def _stored(value):
    """An answer as a Python literal the memorising submission can hold."""
    if isinstance(value, tuple):
        return ("tuple", [_stored(v) for v in value])
    if isinstance(value, dict):
        return ("dict", {k: _stored(v) for k, v in value.items()})
    value = np.asarray(value)
    return ("array", value.dtype.str, value.tolist())


def _memorising(exercise, calls):
    """The reference solution, then every contract function replaced by a table of the answers ``calls`` got;
    any other input gets zeros of the right shape (an honest wrong answer).  Without calls: the honest part alone."""
    table = {_KEY["_memo_key"]((args, kwargs)): _stored(value) for _test, _name, args, kwargs, value in calls}
    names = exercise.source.functions
    return _solution_code(exercise) + "\n\n" + MEMO_KEY + f'''
_TABLE = {table!r}
_REFERENCE = {{name: globals()[name] for name in {names!r}}}


def _restored(entry):
    if entry[0] == "tuple":
        return tuple(_restored(e) for e in entry[1])
    if entry[0] == "dict":
        return {{k: _restored(v) for k, v in entry[1].items()}}
    return _np.array(entry[2], dtype=entry[1])


def _zeros(value):
    if isinstance(value, tuple):
        return tuple(_zeros(v) for v in value)
    if isinstance(value, dict):
        return {{k: _zeros(v) for k, v in value.items()}}
    return _np.zeros_like(_np.asarray(value))


def _memorised(name):
    def answer(*args, **kwargs):
        key = _memo_key((args, kwargs))
        if key in _TABLE:
            return _restored(_TABLE[key])
        return _zeros(_REFERENCE[name](*args, **kwargs))
    return answer


for _name in {names!r}:
    globals()[_name] = _memorised(_name)
'''


def _hidden_points(report, exercise):
    hidden = _hidden_tests(exercise)
    return sum(t.score for t in report.tests if t.grade_id in hidden)


@pytest.mark.parametrize("exercise", helpers.EXERCISES, ids=lambda e: e.assignment)
def test_answers_memorised_from_one_draw_earn_nothing_on_another(monkeypatch, exercise):
    """Grade the reference under draw A and record every hidden input and its answer; a submission that
    answers those from memory (zeros elsewhere) earns on draw B no more hidden points than zeros alone, and no
    hidden call repeats an input of draw A (every hidden input is drawn from the grading's draw)."""
    draw_a, draw_b = course_secret.draw_of("draw A"), course_secret.draw_of("draw B")
    reference_a, calls_a = _graded_calls(monkeypatch, exercise, _solution_code(exercise), draw_a)
    assert reference_a.score == reference_a.max_score
    memorising = _memorising(exercise, calls_a)

    # The table answers the inputs it was built from (else this test proves nothing); only a memory bound
    # can fail it there, the table itself being memory the call holds.
    same_draw = engine.run_tests(exercise, helpers.submission(exercise.assignment, memorising), draw=draw_a)
    assert not [run.error for run in same_draw.cells if run.error]
    failed = {t.grade_id: t.findings for t in same_draw.tests if t.grade_id in _hidden_tests(exercise) and not t.passed}
    assert all(findings and set(findings) <= MEMORY_FINDINGS for findings in failed.values()), failed
    assert _hidden_points(same_draw, exercise) > 0
    other_draw = engine.run_tests(exercise, helpers.submission(exercise.assignment, memorising), draw=draw_b)
    honest = engine.run_tests(exercise, helpers.submission(exercise.assignment, _memorising(exercise, [])),
                              draw=draw_b)
    assert _hidden_points(other_draw, exercise) <= _hidden_points(honest, exercise), \
        [(t.grade_id, t.score) for t in other_draw.tests if t.passed]

    _reference_b, calls_b = _graded_calls(monkeypatch, exercise, _solution_code(exercise), draw_b)
    seen = {_KEY["_memo_key"]((args, kwargs)) for _test, _name, args, kwargs, _value in calls_a}
    repeated = {(exercise.assignment, name, repr(tuple(a if not isinstance(a, np.ndarray) else a.shape
                                                       for a in args)))
                for test, name, args, kwargs, _value in calls_b
                if test in _hidden_tests(exercise) and _KEY["_memo_key"]((args, kwargs)) in seen}
    assert repeated <= FIXED_BY_DESIGN, repeated
