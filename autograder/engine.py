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
from .results import NOT_ATTEMPTED, NOT_IMPLEMENTED_LINE, STOPPED, CellRun, Kind, Report, TestResult
from .sandbox import (CellHung, CellInterrupted, DeadlinePassed, Limits, MemoryUnmeasurable, RemoteError,
                      ReplyBudget, Worker, WorkerError, WorkerTimeout)


class _Session:
    """The worker holding one submission's code, restarted when it dies.

    Each learner cell runs within ``cell_seconds``, as nbgrader's ``Execute.timeout``: past it the
    worker interrupts the cell (KeyboardInterrupt, what the cell defined before stays) and the
    next cells run.  A cell that does not stop when interrupted has its worker killed; it is
    then *hung*: a fresh worker runs the cells again without it, and so does every later
    restart, so it is never waited on again.

    Every worker of the submission shares one wall-clock deadline (checked during
    each request, not only between them), one budget of reply bytes and one
    budget of output characters, so a submission's total cost is bounded
    whatever it does.
    """

    def __init__(self, cells, limits, deadline, hidden=()):
        self.cells, self.limits, self.deadline = cells, limits, deadline
        self.hidden = hidden   # folders the worker must not see even inside a bound one (Worker)
        self.budget = ReplyBudget(limits.reply_bytes)
        self.output_left = limits.output_chars
        self.worker, self.runs, self.fatal = None, [], None
        self.hung = set()    # indexes of the cells that ignored their interruption: skipped from then on
        self.incidents = []  # every WorkerError met, so a test can tell a timeout from a wrong answer
        self.changed = []    # (function, argument indexes) of calls that changed their inputs, this test
        self.not_implemented = False   # did a function still raise NotImplementedError, this test?

    def _new_worker(self):
        return Worker(self.limits, deadline=self.deadline, budget=self.budget, hidden=self.hidden).start()

    def _run_cells(self, worker):
        """Run the learner's cells in ``worker``, each within ``cell_seconds``, skipping the hung ones.

        (runs, failure): failure is the WorkerError that ended the worker (CellHung for a cell
        that has just joined ``hung``), None when every cell has run.
        """
        runs = []
        for index, source in self.cells:
            if index in self.hung:
                continue
            try:
                error, output = worker.run_cell(index, source, self.limits.cell_seconds)
                error = _learners_own(error)
            except CellInterrupted as interrupted:  # as in a kernel: an error for this cell, the next cells run
                error, output = _cell_error(interrupted), interrupted.output
            except WorkerError as failure:
                if isinstance(failure, CellHung):
                    self.hung.add(index)
                runs.append(CellRun(index, _first_line(source), _cell_error(failure), ""))
                return runs, failure
            runs.append(CellRun(index, _first_line(source), error, output))
        return runs, None

    def _start(self, prepare=None):
        """(worker, runs, failure): a fresh worker that has run the learner's cells, ``prepare(worker)``
        first.  While a cell hangs, another fresh worker starts over without it (at most once per
        cell; the deadline bounds them all).  Any other failure (the deadline, a death) ends the
        start: the worker is None and ``failure`` says why."""
        runs = []
        while True:
            worker = self._new_worker()
            try:
                if prepare is not None:
                    prepare(worker)
                attempt, failure = self._run_cells(worker)
            except BaseException:
                worker.close()
                raise
            runs += attempt
            if failure is None:
                return worker, runs, None
            worker.close()
            if not isinstance(failure, CellHung):
                return None, runs, _cells_failed(failure)

    def _record(self, runs):
        """Keep each cell's first run (a restart's runs of the same cells are not recorded again),
        within the submission's budget of output characters."""
        recorded = {run.index for run in self.runs}
        for run in runs:
            if run.index in recorded:
                continue
            recorded.add(run.index)
            output, error = run.output, run.error
            if len(output) > self.output_left:
                output = (output[:max(self.output_left, 0)] + "\n" + _("[more output not kept]")
                          if self.output_left > 0 else "")
            self.output_left -= len(output)
            if error is not None and len(error) > max(self.output_left, 120):
                error = error[:max(self.output_left, 120)] + "..."
            self.output_left -= len(error or "")
            self.runs.append(CellRun(run.index, run.first_line, error, output))

    def ensure_started(self):
        if self.worker is not None and self.worker.alive:
            return
        if self.fatal:  # running the cells themselves kills the worker, or the deadline has passed
            raise self.fatal
        self.worker, runs, failure = self._start()
        self._record(runs)
        if failure is not None:
            self.fatal = failure
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
        Without a memory cgroup there is no such number: MemoryUnmeasurable.
        """
        if self.fatal:
            raise self.fatal
        worker = None
        try:
            worker, _runs, failure = self._start(prepare=lambda fresh: fresh.measure_baseline(args, kwargs))
            if failure is not None:
                raise failure
            value = worker.call(name, args, kwargs)
            return value, max(0, worker.peak_memory() - worker.baseline), worker.last_changed
        except WorkerError as error:
            self.incidents.append(error)
            raise
        finally:
            if worker is not None:
                worker.close()

    def close(self):
        if self.worker is not None:
            self.worker.close()


def _learners_own(error):
    """The learner's own error line, never named like one the engine writes ("Timeout: ..."): a class
    of the learner's called Timeout must not read as a timeout in the instructor's summary."""
    name = (error or "").split(":")[0]
    return f"{name} (your exception){error[len(name):]}" if Kind.from_error_name(name) else error


def _cell_error(failure):
    """The error line of a learner cell that a WorkerError stopped; a timeout's is named as a timed-out
    test's error output (``Kind.TIMEOUT``), so that the class run reports it (``classrun.engine_problems``)."""
    return f"{Kind.TIMEOUT.error_name}: {failure}" if isinstance(failure, WorkerTimeout) else str(failure)


def _cells_failed(failure):
    """What every test is told when the learner's cells cannot run: ``failure``, of the same type."""
    return type(failure)(_("running your notebook's cells failed: {failure}").format(failure=failure))


def _first_line(source):
    return next((line.strip() for line in source.splitlines() if line.strip()), "")[:60]


class _Proxy:
    """Stands for the learner's function ``name`` inside the test code."""

    def __init__(self, session, name):
        self._session, self.__name__ = session, name
        self.changed_input = False  # did the last call change one of its inputs? (read by checks.attempt)

    def __call__(self, *args, **kwargs):
        return self._call(args, kwargs, False)

    def sibling(self, name):
        """The learner's function ``name`` in the same session (``checks.learner_function``)."""
        return _Proxy(self._session, name)

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
            learner = LearnerError(self.__name__, str(error))
            if checks.describe_exception(learner) == NOT_IMPLEMENTED_LINE:
                self._session.not_implemented = True   # a fact for the report, never read back from a message
            raise learner from None
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
        if text:   # kept whole, on one line
            text = " ".join(line.strip() for line in text.splitlines() if line.strip())
            return text if len(text) <= 2000 else text[:1997] + "..."
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


def run_tests(exercise, submission, limits=Limits(), *, draw, language=None):
    """Grade ``submission`` (a NotebookNode) against the source notebook of ``exercise``.

    ``draw`` seeds the hidden inputs (``checks.rng``), and every caller says which: the class
    run's, from the course's secret (``course_secret.class_draw``), so that grading the same
    notebook again gives the same scores, or a learner's fresh one (``checks.self_check_draw``).
    ``language`` is the language of the messages (default: the current one, ``i18n.current()``);
    it changes no score.
    """
    if language is not None:
        with i18n.language(language):
            return run_tests(exercise, submission, limits, draw=draw)
    source = exercise.source
    deadline = time.monotonic() + limits.total_seconds
    # The course's folder holds its solutions, secret and gradebook: never seen by the learner's code.
    session = _Session(notebooks.learner_cells(submission), limits, deadline, hidden=(exercise.course.root,))
    results = []
    catalogued = frozenset(m.id for m in (*checks.SHARED_MISTAKES, *exercise.catalogue.MISTAKES))
    try:
        try:
            session.ensure_started()
        except WorkerError:
            pass  # every test below fails with the same reason
        with checks.grading(exercise, draw=draw):
            for test in source.tests:
                seen = len(session.incidents)
                result = _run_test(test, source, session, deadline, limits, catalogued)
                results.append(_unless_unmeasurable(result, session.incidents[seen:]))
    finally:
        session.close()
    results = [dataclasses.replace(result, message=i18n.tidy(result.message)) for result in results]
    return Report(source.assignment, source.name, results, session.runs or [], i18n.current())


def _run_test(test, source, session, deadline, limits, catalogued=frozenset()):
    """Run one test cell of the source with proxies for the learner's functions; a failed one's findings
    are the ``catalogued`` mistake ids its checks named."""
    namespace = {"__name__": "__autograder_test__", "np": np}
    namespace.update({name: _Proxy(session, name) for name in source.functions})
    seen = len(session.incidents)
    session.changed, session.not_implemented = [], False
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
            return TestResult(test.grade_id, 0.0, test.points, message, kind, _findings(found, catalogued, session))
    # A test whose own code passed is passed, as in a kernel, even if an input was written into: the
    # grader's arrays are never changed, and the hidden checks' ``attempt`` names that mistake.
    if found:
        message = checks.summary(found)
        if session.changed and not _names_changed_input(found, message):
            # the learner's function wrote into its input: the cause, whatever else it showed
            message = _changed_input_message(source, *session.changed[0])
        return TestResult(test.grade_id, 0.0, test.points, message, _kind(session, seen),
                          _findings(found, catalogued, session))
    return TestResult(test.grade_id, test.points, test.points, "")


def _findings(found, catalogued, session):
    """A failed test's findings (``TestResult.findings``): the catalogued mistakes ``expect`` named, each
    once (the shared "modifies_input" too when a function wrote into its input, which the message then
    names), then NOT_ATTEMPTED when a function raised NotImplementedError.  Never read from a message,
    which may quote the learner's own exception text."""
    keys = [key for key, _message in found] + (["modifies_input"] if session.changed else [])
    named = tuple(dict.fromkeys(key for key in keys if key in catalogued))
    return named + ((NOT_ATTEMPTED,) if session.not_implemented else ())


def _unless_unmeasurable(result, incidents):
    """``result``, unless its test asked for a peak of memory this machine cannot measure: then it has
    no verdict (neither a pass nothing measured nor a mistake from a call that never ran), scores
    nothing and says why in one line (``Kind.NOT_MEASURED``)."""
    unmeasurable = next((incident for incident in incidents if isinstance(incident, MemoryUnmeasurable)), None)
    if unmeasurable is None:
        return result
    return dataclasses.replace(result, score=0.0, message=str(unmeasurable), kind=Kind.NOT_MEASURED)


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
