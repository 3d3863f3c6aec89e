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
import dataclasses
import inspect
import io
import time
import traceback

import numpy as np

from . import checks, i18n, notebooks
from .i18n import N_, _
from .results import STOPPED, CellRun, Kind, Report, TestResult
from .sandbox import DeadlinePassed, Limits, RemoteError, ReplyBudget, Worker, WorkerError, WorkerTimeout


class _Session:
    """The worker holding one submission's code, restarted when it dies.

    Every worker of the submission shares one wall-clock deadline (checked during
    each request, not only between them), one budget of reply bytes and one
    budget of output characters, so a submission's total cost is bounded
    whatever it does.
    """

    def __init__(self, cells, limits, deadline):
        self.cells, self.limits, self.deadline = cells, limits, deadline
        self.budget = ReplyBudget(limits.reply_bytes)
        self.output_left = limits.output_chars
        self.worker, self.runs, self.fatal = None, None, None
        self.incidents = []  # every WorkerError met, so a test can tell a timeout from a wrong answer
        self.changed = []    # (function, argument indexes) of calls that changed their inputs, this test

    def _new_worker(self):
        return Worker(self.limits, deadline=self.deadline, budget=self.budget).start()

    def _run_cells(self, worker):
        """Run every learner cell in ``worker`` within ``cell_seconds`` for all of them together."""
        cells_deadline = time.monotonic() + self.limits.cell_seconds
        runs = []
        for index, source in self.cells:
            remaining = cells_deadline - time.monotonic()
            try:
                if remaining <= 0:
                    raise WorkerTimeout(self._cells_too_slow())
                error, output = worker.run_cell(index, source, remaining)
            except WorkerError as failure:
                if isinstance(failure, WorkerTimeout) and not isinstance(failure, DeadlinePassed):
                    failure = WorkerTimeout(self._cells_too_slow())
                runs.append(CellRun(index, _first_line(source), str(failure), ""))
                return runs, failure
            runs.append(CellRun(index, _first_line(source), error, output))
        return runs, None

    def _cells_too_slow(self):
        return _("your notebook's cells did not finish within {seconds:g} s "
                 "(all cells together: an endless loop, or far too slow)").format(seconds=self.limits.cell_seconds)

    def _record(self, runs):
        """Keep the first run's outputs, within the submission's budget of output characters."""
        if self.runs is not None:
            return
        kept = []
        for run in runs:
            output, error = run.output, run.error
            if len(output) > self.output_left:
                output = (output[:max(self.output_left, 0)] + "\n" + _("[more output not kept]")
                          if self.output_left > 0 else "")
            self.output_left -= len(output)
            if error is not None and len(error) > max(self.output_left, 120):
                error = error[:max(self.output_left, 120)] + "..."
            self.output_left -= len(error or "")
            kept.append(CellRun(run.index, run.first_line, error, output))
        self.runs = kept

    def ensure_started(self):
        if self.worker is not None and self.worker.alive:
            return
        if self.fatal:  # running the cells themselves kills or hangs the worker
            raise self.fatal
        self.worker = self._new_worker()
        runs, failure = self._run_cells(self.worker)
        self._record(runs)
        if failure is not None:
            self.fatal = type(failure)(_("running your notebook's cells failed: {failure}").format(failure=failure))
            self.incidents.append(self.fatal)
            raise self.fatal from None

    def call(self, name, args, kwargs):
        """(value, changed argument indexes) of one call in the submission's worker."""
        self.ensure_started()
        try:
            value = self.worker.call(name, args, kwargs)
        except WorkerError as error:
            self.incidents.append(error)
            raise
        return value, self.worker.last_changed

    def measured_call(self, name, args, kwargs):
        """(value, peak bytes, changed indexes) of one call in a fresh worker, its memory counted by the kernel.

        The fresh worker first receives the inputs (before any learner code runs:
        that is the baseline), then runs the learner's cells, then the call.  The
        peak is the most memory the whole sandboxed process tree held at any time,
        cells included, minus the baseline; so memory set aside by a cell and
        reused inside the call counts too.  Nothing the learner's process says
        about itself enters the number, and nothing slows the call down.
        """
        if self.fatal:
            raise self.fatal
        worker = self._new_worker()
        try:
            worker.measure_baseline(args, kwargs)
            _runs, failure = self._run_cells(worker)
            if failure is not None:
                raise type(failure)(_("running your notebook's cells failed: {failure}").format(failure=failure))
            value = worker.call(name, args, kwargs)
            return value, max(0, worker.peak_memory() - worker.baseline), worker.last_changed
        except WorkerError as error:
            self.incidents.append(error)
            raise
        finally:
            worker.close()

    def close(self):
        if self.worker is not None:
            self.worker.close()


def _first_line(source):
    return next((line.strip() for line in source.splitlines() if line.strip()), "")[:60]


class _Proxy:
    """Stands for the learner's function ``name`` inside the test code."""

    def __init__(self, session, name):
        self._session, self.__name__ = session, name
        self.changed_input = False  # did the last call change one of its inputs? (read by checks.attempt)

    def __call__(self, *args, **kwargs):
        return self._call(args, kwargs, False)

    def traced_call(self, *args, **kwargs):
        """(value, peak bytes), the peak measured by the kernel for the sandboxed process tree."""
        return self._call(args, kwargs, True)

    def _call(self, args, kwargs, measure):
        self.changed_input = False
        try:
            if measure:
                value, peak, changed = self._session.measured_call(self.__name__, args, kwargs)
            else:
                value, changed = self._session.call(self.__name__, args, kwargs)
        except RemoteError as error:
            raise LearnerError(self.__name__, str(error)) from None
        except WorkerError as error:
            raise LearnerError(self.__name__, f"{STOPPED} {error}") from None
        if changed:
            self.changed_input = True
            self._session.changed.append((self.__name__, changed))
        return (value, peak) if measure else value

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
        text = i18n.one_language(str(error).strip())   # a visible test's message is bilingual
        if text:
            return text.splitlines()[0] if len(text) < 2000 else text[:2000]
        # A bare `assert`: name the statement, which is visible test code.
        line = traceback.extract_tb(error.__traceback__)[-1].lineno
        lines = test_source.splitlines()
        if line and line <= len(lines):
            return _("check failed: {statement}").format(statement=lines[line - 1].strip())
        return _("check failed")
    if isinstance(error, LearnerError):
        return checks.raised(error.function, checks.describe_exception(error))
    if isinstance(error, WorkerError):
        return str(error)
    if isinstance(error, NameError):
        return _("{error} (is the function defined, with exactly this name?)").format(error=error)
    return (f"{type(error).__name__}: {error}".splitlines() or [type(error).__name__])[0][:500]


def run_tests(exercise, submission, limits=Limits(), draw=None, language=None):
    """Grade ``submission`` (a NotebookNode) against the source notebook of ``exercise``.

    ``draw`` seeds the hidden inputs (``checks.rng``); by default the class run's, from the
    course's secret (``checks.class_draw``), so that grading the same notebook again gives the
    same scores.  ``language`` is the language of the messages (default: the current one,
    ``i18n.current()``); it changes no score.
    """
    if language is not None:
        with i18n.language(language):
            return run_tests(exercise, submission, limits, draw)
    draw = draw or checks.class_draw(exercise.course)
    source = exercise.source
    deadline = time.monotonic() + limits.total_seconds
    session = _Session(notebooks.learner_cells(submission), limits, deadline)
    results = []
    try:
        try:
            session.ensure_started()
        except WorkerError:
            pass  # every test below fails with the same reason
        with checks.grading(exercise, draw=draw):
            for test in source.tests:
                results.append(_run_test(test, source, session, deadline, limits))
    finally:
        session.close()
    results = [dataclasses.replace(result, message=i18n.tidy(result.message)) for result in results]
    return Report(source.assignment, source.name, results, session.runs or [], i18n.current())


def _run_test(test, source, session, deadline, limits):
    """Run one test cell of the source with proxies for the learner's functions."""
    namespace = {"__name__": "__autograder_test__", "np": np}
    namespace.update({name: _Proxy(session, name) for name in source.functions})
    seen = len(session.incidents)
    session.changed = []
    # Every wrong call of the test is diagnosed, not only the first: `expect` collects.
    with checks.collecting() as found:
        try:
            if session.fatal:
                raise session.fatal
            if time.monotonic() > deadline:
                raise DeadlinePassed(_("grading stopped: the whole notebook took more than {seconds:g} s").format(
                    seconds=limits.total_seconds))
            with contextlib.redirect_stdout(io.StringIO()):  # test cells may print
                exec(compile(test.source, f"<test {test.grade_id}>", "exec"), namespace)
        except Exception as error:
            if isinstance(error, WorkerError):
                session.incidents.append(error)
            kind = _kind(session, seen)
            message = checks.summary(found, _failure_message(error, test.source))
            if kind is Kind.FAILED and session.changed and not _names_changed_input(found, message):
                message = _changed_input_message(source, *session.changed[0])  # the cause, not its symptom
            return TestResult(test.grade_id, 0.0, test.points, message, kind)
    if found or session.changed:
        message = checks.summary(found) if found else ""
        if session.changed and not _names_changed_input(found, message):
            # the learner's function wrote into its input: the cause, whatever else it showed
            message = _changed_input_message(source, *session.changed[0])
        return TestResult(test.grade_id, 0.0, test.points, message, _kind(session, seen))
    return TestResult(test.grade_id, test.points, test.points, "")


def _kind(session, seen):
    """How a failed test ended: the first incident since it started (a timeout, a dead process), if any."""
    incident = session.incidents[seen] if len(session.incidents) > seen else None
    return (Kind.TIMEOUT if isinstance(incident, WorkerTimeout) else
            Kind.CRASHED if incident is not None else Kind.FAILED)


# The words that say a function changed its input, in the messages of the shared mistake and of
# ``_changed_input_message`` (English; the test below also reads the grading's language).
CHANGED_INPUT = N_("changed its input")


def _names_changed_input(found, message):
    """Does the test's message already say that the learner's function changed its input?"""
    return (any(key == "modifies_input" for key, _text in found) or CHANGED_INPUT in message
            or _(CHANGED_INPUT) in message)


def _changed_input_message(source, function, indexes):
    try:
        names = list(inspect.signature(getattr(source.reference, function)).parameters)
    except (AttributeError, TypeError, ValueError):
        names = []
    labels = [names[i] if i < len(names) else _("argument {number}").format(number=i + 1) for i in indexes]
    return _("your function changed its input: {function} wrote into {arguments} in place. "
             "Inputs must never be modified; compute into a new array instead "
             "(`shifted = x - x.max()`, not `x -= x.max()`).").format(function=function, arguments=", ".join(labels))
