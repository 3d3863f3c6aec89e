"""The one grading engine behind the learner's self-check and the instructor's class run.

Grading a submission:

1. The learner's code cells run in a sandboxed worker process (``sandbox.py``).
2. Each test cell of the trusted source notebook runs here, in the grader's
   process, with the learner's functions replaced by proxies: a call sends the
   arguments to the worker and returns the answer as plain NumPy arrays.
3. A test passes when its code finishes; an AssertionError (or any other
   exception) fails it, and its one-line message is what the learner reads.

Learner code therefore never shares a process with the tests, the reference
solution or the scores.  If the worker dies, it is restarted for the next test.
"""
import contextlib
import io
import time
import traceback

import numpy as np

from . import checks, notebooks
from .course import default_course
from .results import STOPPED, CellRun, Kind, Report, TestResult
from .sandbox import Limits, RemoteError, Worker, WorkerError, WorkerTimeout


class _Session:
    """The worker holding one submission's code, restarted when it dies."""

    def __init__(self, cells, limits):
        self.cells, self.limits = cells, limits
        self.worker, self.runs, self.fatal = None, None, None
        self.incidents = []  # every WorkerError met, so a test can tell a timeout from a wrong answer

    def ensure_started(self):
        if self.worker is not None and self.worker.alive:
            return
        if self.fatal:  # running the cells themselves kills or hangs the worker
            raise self.fatal
        self.worker = Worker(self.limits).start()
        runs = []
        for index, source in self.cells:
            try:
                error, output = self.worker.run_cell(index, source)
            except WorkerError as failure:
                self.fatal = type(failure)(f"running your notebook's cells failed: {failure}")
                self.incidents.append(self.fatal)
                runs.append(CellRun(index, _first_line(source), str(failure), ""))
                self.runs = self.runs or runs
                raise self.fatal from None
            runs.append(CellRun(index, _first_line(source), error, output))
        self.runs = self.runs or runs

    def call(self, name, args, kwargs, trace_memory=False):
        self.ensure_started()
        try:
            return self.worker.call(name, args, kwargs, trace_memory)
        except WorkerError as error:
            self.incidents.append(error)
            raise

    def close(self):
        if self.worker is not None:
            self.worker.close()


def _first_line(source):
    return next((line.strip() for line in source.splitlines() if line.strip()), "")[:60]


class _Proxy:
    """Stands for the learner's function ``name`` inside the test code."""

    def __init__(self, session, name):
        self._session, self.__name__ = session, name

    def __call__(self, *args, **kwargs):
        return self._call(args, kwargs, False)

    def traced_call(self, *args, **kwargs):
        """(value, peak bytes allocated during the call), measured in the learner's process."""
        return self._call(args, kwargs, True)

    def _call(self, args, kwargs, trace_memory):
        try:
            return self._session.call(self.__name__, args, kwargs, trace_memory)
        except RemoteError as error:
            raise LearnerError(self.__name__, str(error)) from None
        except WorkerError as error:
            raise LearnerError(self.__name__, f"{STOPPED} {error}") from None

    def __repr__(self):
        return f"<your function {self.__name__}>"


class LearnerError(Exception):
    """Raised into test code when the learner's function raised; carries its one-line description."""

    def __init__(self, function, learner_error):
        super().__init__(f"{function} raised {learner_error}")
        self.function, self.learner_error = function, learner_error


def _failure_message(error, test_source):
    """One line saying why a test failed, without the hidden test's source."""
    if isinstance(error, AssertionError):
        text = str(error).strip()
        if text:
            return text.splitlines()[0] if len(text) < 2000 else text[:2000]
        # A bare `assert`: name the statement, which is visible test code.
        line = traceback.extract_tb(error.__traceback__)[-1].lineno
        lines = test_source.splitlines()
        return f"check failed: {lines[line - 1].strip()}" if line and line <= len(lines) else "check failed"
    if isinstance(error, LearnerError):
        return checks.raised(error.function, checks.describe_exception(error))
    if isinstance(error, WorkerError):
        return str(error)
    if isinstance(error, NameError):
        return f"{error} (is the function defined, with exactly this name?)"
    return f"{type(error).__name__}: {error}".splitlines()[0]


def run_tests(exercise, submission, limits=Limits(), draw=None):
    """Grade ``submission`` (a NotebookNode) against the source notebook of ``exercise``.

    ``draw`` seeds the hidden inputs (``checks.rng``); by default the class run's, from the
    course's secret (``checks.class_draw``), so that grading the same notebook again gives the
    same scores.
    """
    draw = draw or checks.class_draw(exercise.course)
    source = exercise.source
    session = _Session(notebooks.learner_cells(submission), limits)
    results = []
    deadline = time.monotonic() + limits.total_seconds
    try:
        try:
            session.ensure_started()
        except WorkerError:
            pass  # every test below fails with the same reason
        with checks.grading(exercise, draw=draw):
            for test in source.tests:
                results.append(_run_test(test, source.functions, session, deadline, limits))
    finally:
        session.close()
    return Report(source.assignment, source.name, results, session.runs or [])


def _run_test(test, functions, session, deadline, limits):
    """Run one test cell of the source with proxies for the learner's ``functions``."""
    namespace = {"__name__": "__autograder_test__", "np": np}
    namespace.update({name: _Proxy(session, name) for name in functions})
    seen = len(session.incidents)
    # Every wrong call of the test is diagnosed, not only the first: `expect` collects.
    with checks.collecting() as found:
        try:
            if session.fatal:
                raise session.fatal
            if time.monotonic() > deadline:
                raise WorkerTimeout(f"grading stopped: the whole notebook took more than "
                                    f"{limits.total_seconds:g} s")
            with contextlib.redirect_stdout(io.StringIO()):  # test cells may print
                exec(compile(test.source, f"<test {test.grade_id}>", "exec"), namespace)
        except Exception as error:
            if isinstance(error, WorkerError):
                session.incidents.append(error)
            message = checks.summary(found, _failure_message(error, test.source))
            return TestResult(test.grade_id, 0.0, test.points, message, _kind(session, seen))
    if found:
        return TestResult(test.grade_id, 0.0, test.points, checks.summary(found), _kind(session, seen))
    return TestResult(test.grade_id, test.points, test.points, "")


def _kind(session, seen):
    """How a failed test ended: the first incident since it started (a timeout, a dead process), if any."""
    incident = session.incidents[seen] if len(session.incidents) > seen else None
    return (Kind.TIMEOUT if isinstance(incident, WorkerTimeout) else
            Kind.CRASHED if incident is not None else Kind.FAILED)


def grade_file(path, limits=Limits(), course=None):
    """Self-check: read a notebook file, recognise its exercise in ``course`` and grade it."""
    submission = notebooks.read_notebook(path)
    course = course or default_course()
    return run_tests(course.identify(submission), submission, limits, draw=checks.self_check_draw())
