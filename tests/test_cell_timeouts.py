"""Timeouts graded as nbgrader grades them: each learner cell has its own time.

Stock nbgrader (its Execute step, ``Execute.timeout``) interrupts a cell that runs past its
time (KeyboardInterrupt in the kernel: what the cell defined before stays), gives that cell an
error and runs the rest of the notebook.  The engine does the same with ``cell_seconds``; a
cell that ignores the interruption has its worker killed, and every later worker skips it.
The whole submission stays bounded by ``total_seconds``.

* Worker level: a cell past its time is interrupted and the worker lives on with what the
  cell defined; a cell that ignores the interruption has its worker killed soon after.
* Engine level: a correct softmax with an endless cell, or with the endless loop in the same
  cell as the definition, or with a loop that swallows interruptions, scores full marks; a
  hung cell is run once, whatever restarts follow; the total budget still stops it all.
* Class level (nbgrader tier): stock nbgrader and ``python -m autograder grade`` give the
  same scores, submission by submission, and the instructor's summary names the timeouts.
"""
import dataclasses
import subprocess
import sys
import time

import nbformat
import pytest

import helpers
from autograder import checks, classrun, engine
from autograder import course as courses
from autograder.results import Kind
from autograder.sandbox import CELL_GRACE_SECONDS, CellHung, CellInterrupted, Limits, Worker

CORRECT = (helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py").read_text()
WRONG = (helpers.SUBMISSIONS / "01_softmax" / "wrong" / "axis_ignored.py").read_text()
ENDLESS = "while True:\n    pass"
# Ignores SIGINT, SIGTERM and SIGALRM and catches BaseException: only killing its process stops it.
SWALLOWING = (helpers.REPO / "tests" / "adversarial" / "01_softmax" / "endless_loop_swallowing_interrupts.py"
              ).read_text().split("# ---- trick ----")[1]
# Correct, but a call with axis=0 never returns (test_softmax_axis and test_softmax_neg_inf call it).
LOOPS_ON_AXIS_0 = CORRECT.replace("    m = ", "    while axis == 0:  # endless\n        pass\n    m = ", 1)
LIMITS = Limits(cell_seconds=2, call_seconds=3, total_seconds=30)
INTERRUPTED = "did not finish within 2 s and was interrupted"
SKIPPED = "did not finish within 2 s and did not stop when interrupted: it was skipped"


def _with_cells(code, *extra, assignment="01_softmax"):
    """The submission ``code`` with ``extra`` code cells right after its (first) solution cell."""
    notebook = helpers.submission(assignment, code)
    position = next(i for i, c in enumerate(notebook.cells) if c.metadata.get("nbgrader", {}).get("solution"))
    for offset, source in enumerate(extra, start=1):
        notebook.cells.insert(position + offset, nbformat.v4.new_code_cell(source))
    return notebook


def _grade(notebook, limits=LIMITS, assignment="01_softmax"):
    start = time.monotonic()
    report = engine.run_tests(helpers.exercise(assignment), notebook, limits, draw=checks.self_check_draw())
    return report, time.monotonic() - start


def _cell_errors(report):
    return {run.first_line: run.error for run in report.cells if run.error}


def _hung_cell(report):
    """The index of the cell skipped for ignoring its interruption."""
    (index,) = [run.index for run in report.cells if run.error and SKIPPED in run.error]
    return index


@pytest.fixture
def cells_run(monkeypatch):
    """The index of every cell a worker is asked to run, in order, whichever worker."""
    ran, run_cell = [], Worker.run_cell

    def counted(worker, index, source, *rest):
        ran.append(index)
        return run_cell(worker, index, source, *rest)
    monkeypatch.setattr(Worker, "run_cell", counted)
    return ran


# --------------------------------------------------------------------------- the worker
def test_the_worker_interrupts_a_cell_and_lives_on_with_what_it_defined():
    with Worker(LIMITS) as worker:
        with pytest.raises(CellInterrupted, match=INTERRUPTED) as interrupted:
            worker.run_cell(0, f"def answer():\n    return 42\nprint('started')\n{ENDLESS}")
        assert interrupted.value.output == "started\n" and worker.alive
        assert worker.run_cell(1, "import time\ntime.sleep(2.5)", 3) == (None, "")   # its own time, no stale alarm
        assert worker.call("answer", [], {}) == 42


def test_a_cell_that_ignores_its_interruption_kills_its_worker_soon_after():
    worker = Worker(LIMITS).start()
    start = time.monotonic()
    with pytest.raises(CellHung, match=SKIPPED):
        worker.run_cell(0, SWALLOWING)
    assert time.monotonic() - start < 2 + CELL_GRACE_SECONDS + 1 and not worker.alive


# --------------------------------------------------------------------------- engine level
def test_a_stray_endless_cell_is_interrupted_and_the_notebook_graded():
    report, seconds = _grade(_with_cells(CORRECT, ENDLESS, "print('after')"))
    assert report.score == report.max_score == 7.0, [t.message for t in report.tests]
    assert _cell_errors(report) == {"while True:": f"{Kind.TIMEOUT.error_name}: this cell {INTERRUPTED} "
                                                   "(an endless loop, or far too slow)"}
    assert [run.output for run in report.cells if run.first_line == "print('after')"] == ["after\n"]
    assert seconds < 2 + 10, seconds


def test_what_a_cell_defined_before_its_interruption_survives():
    report, _ = _grade(helpers.submission("01_softmax", f"{CORRECT}\n{ENDLESS}\n"))
    assert report.score == 7.0, [t.message for t in report.tests]
    assert [error for error in _cell_errors(report).values() if INTERRUPTED in error] != []


def test_a_cell_that_swallows_its_interruption_is_skipped_after_the_hard_deadline():
    report, seconds = _grade(_with_cells(CORRECT, SWALLOWING, "print('after')"))
    assert report.score == 7.0, [t.message for t in report.tests]
    _hung_cell(report)
    assert [run.output for run in report.cells if run.first_line == "print('after')"] == ["after\n"]
    assert seconds < 2 + 2 + 10, seconds


def test_no_restart_runs_a_hung_cell_again(cells_run):
    """A call that loops fails only its tests (its worker is killed); the workers started after
    it skip the hung cell, and the cells before it are not recorded twice."""
    notebook = _with_cells(LOOPS_ON_AXIS_0, "print('before')", SWALLOWING)
    report, _ = _grade(notebook, dataclasses.replace(LIMITS, call_seconds=1))
    failed = {t.grade_id: t.kind for t in report.tests if not t.passed}
    assert failed == {"test_softmax_axis": Kind.TIMEOUT, "test_softmax_neg_inf": Kind.TIMEOUT}, report.tests
    hung = _hung_cell(report)
    # the cell before it: the first worker, its restart, one more after each timed-out call
    assert cells_run.count(hung) == 1 and cells_run.count(hung - 1) == 3, cells_run
    assert sorted(run.index for run in report.cells) == sorted(set(cells_run))
    assert [run.output for run in report.cells if run.output] == ["before\n"]


def test_measured_calls_skip_a_hung_cell_too(cells_run):
    """Exercise 09 measures a call's memory in a fresh worker of its own: none waits on the hung cell."""
    code = (helpers.SUBMISSIONS / "09_online_softmax" / "correct" / "log_sum_exp.py").read_text()
    report, _ = _grade(_with_cells(code, SWALLOWING, assignment="09_online_softmax"), assignment="09_online_softmax")
    assert report.score == report.max_score, [t.message for t in report.tests]
    hung = _hung_cell(report)
    assert cells_run.count(hung) == 1 and cells_run.count(hung - 1) >= 3, cells_run   # 2 workers, measured ones


def test_the_total_budget_still_bounds_the_whole_submission():
    report, seconds = _grade(_with_cells(CORRECT, SWALLOWING, SWALLOWING),
                             Limits(cell_seconds=2, call_seconds=3, total_seconds=6))
    assert seconds < 6 + 4, seconds
    assert report.score == 0
    assert all("the whole notebook took more than 6 s" in t.message and t.kind is Kind.TIMEOUT
               for t in report.tests), [t.message for t in report.tests]


# --------------------------------------------------------------------------- class level
# Each submission's score under stock nbgrader; the class run must give the same.
CLASS = {
    "correct": (lambda: helpers.submission("01_softmax", CORRECT), 7.0),
    "stray_loop": (lambda: _with_cells(CORRECT, ENDLESS), 7.0),
    "loop_in_the_same_cell": (lambda: helpers.submission("01_softmax", f"{CORRECT}\n{ENDLESS}\n"), 7.0),
    "call_loops_on_axis_0": (lambda: helpers.submission("01_softmax", LOOPS_ON_AXIS_0), 4.0),
    "wrong": (lambda: helpers.submission("01_softmax", WRONG), 4.0),
}
CLASS_SECONDS = 3   # a cell's time (Execute.timeout, cell_seconds) and a call's


def _stock_nbgrader(root):
    """`nbgrader autograde` with nbgrader's own Execute step (a Jupyter kernel), each cell interrupted
    after CLASS_SECONDS."""
    config_dir = helpers.nbgrader_config_dir(root / "stock-config", stock=True,
                                             settings=[f"c.Execute.timeout = {CLASS_SECONDS}"])
    result = subprocess.run([sys.executable, "-m", "nbgrader", "autograde", "01_softmax", "--force",
                             f"--CourseDirectory.root={root}", f"--CourseDirectory.db_url={helpers.gradebook_url(root)}"],
                            cwd=config_dir, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    return helpers.gradebook_scores(root)


@pytest.mark.nbgrader
def test_the_class_run_scores_timeouts_as_stock_nbgrader(tmp_path):
    root = helpers.course(tmp_path)
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    for student, (notebook, _score) in CLASS.items():
        helpers.write(notebook(), helpers.submitted(root, student))
    stock = _stock_nbgrader(root)
    assert stock == {student: score for student, (_notebook, score) in CLASS.items()}

    config = courses.load_config(root, helpers.gradebook_url(root))
    config.SandboxedExecute.cell_seconds = config.SandboxedExecute.call_seconds = float(CLASS_SECONDS)
    config.SandboxedExecute.total_seconds = 30.0
    outcomes = {o.student: o for o in classrun.grade_class("01_softmax", jobs=2, force=True, config=config,
                                                           progress=False)}
    assert {student: o.score for student, o in outcomes.items()} == stock
    # The instructor's summary names every timeout, one line each: the cells' as the calls'.
    for student in ("stray_loop", "loop_in_the_same_cell"):
        assert len(outcomes[student].problems) == 1 and "timeout in cell" in outcomes[student].line, outcomes[student]
    assert "timeout in test_softmax_axis" in outcomes["call_loops_on_axis_0"].line
    assert outcomes["correct"].problems == outcomes["wrong"].problems == []


def test_the_self_check_names_a_hung_cell_as_the_cause(tmp_path):
    """A cell skipped for hanging may have stopped before its definitions: the learner's report
    names it first, and the "no function named" failures that follow fold into it."""
    from autograder import selfcheck
    notebook = _with_cells(CORRECT.replace("def softmax", "while True:\n    pass\n\ndef softmax", 1))
    path = helpers.write(notebook, tmp_path / "softmax.ipynb")
    _exercise, report = selfcheck.grade(path, limits=LIMITS)
    lines = selfcheck.report_text(helpers.exercise("01_softmax"), report, path).splitlines()
    assert lines[1].startswith("  FIRST FIX THIS: the cell starting `") and "Timeout" in lines[1], lines
    assert not [line for line in lines if "no function named" in line], lines


def test_a_learners_exception_named_timeout_is_not_a_timeout():
    """Only the engine names a cell's error Timeout: a learner's class of that name reads as theirs."""
    notebook = _with_cells(CORRECT, "class Timeout(Exception):\n    pass\n\nraise Timeout('forged')")
    report, _seconds = _grade(notebook)
    (error,) = [run.error for run in report.cells if run.error]
    assert error.startswith("Timeout (your exception): forged"), error
    assert report.score == report.max_score


def test_a_learners_own_alarm_is_not_a_timeout():
    """The worker's interruption flag is the learner's process speaking: a timeout is read from the
    grader's own clock, so a cell that sets off its own alarm after a millisecond is not one."""
    trick = ("import signal\nsignal.setitimer(signal.ITIMER_REAL, 0.001)\n"
             "try:\n    while True:\n        pass\nexcept KeyboardInterrupt:\n    pass")
    report, _seconds = _grade(_with_cells(CORRECT, trick))
    errors = [run.error for run in report.cells if run.error]
    assert errors and not [e for e in errors if e.startswith("Timeout") or "did not finish" in e], errors
    assert report.score == report.max_score
