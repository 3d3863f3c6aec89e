"""The grader's vocabulary: what a graded test can be, and the words that travel between modules.

The engine produces these results; the nbgrader adapter writes them into the
autograded notebook (a failed test cell gets an error output named after its
kind); the class run and the report read them back from there.  Each word is
defined here once and only compared through these names.
"""
import dataclasses
import enum

from .i18n import ENGLISH, N_


class Kind(enum.Enum):
    """How a test ended."""
    PASSED = "passed"
    FAILED = "failed"       # an assertion (or the learner's exception) failed it
    TIMEOUT = "timeout"     # the learner's code ran past a wall-clock limit
    CRASHED = "crashed"     # the learner's process died
    NOT_MEASURED = "not measured"   # a bound on memory this machine cannot measure (no memory cgroup): no verdict

    @property
    def error_name(self):
        """The ``ename`` of the error output a failed test cell carries in the autograded notebook."""
        return _ERROR_NAMES[self]

    @classmethod
    def from_error_name(cls, ename):
        """The kind whose error output is named ``ename`` (None for any other name)."""
        return next((kind for kind, name in _ERROR_NAMES.items() if name == ename), None)


_ERROR_NAMES = {Kind.FAILED: "TestFailed", Kind.TIMEOUT: "Timeout", Kind.CRASHED: "ProcessDied",
                Kind.NOT_MEASURED: "NotMeasured"}

# A call that did not return because the engine stopped it (timeout, dead process),
# as opposed to the learner's own exception: "softmax(x): stopped: ...".
STOPPED = "stopped:"
# What a test says when the learner has not replaced `raise NotImplementedError()`.  The
# line is kept in English where the grader reads it (``Attempt.error``) and translated where
# a learner reads it (``checks.learner_error``), the phrase in it with it.
NOT_IMPLEMENTED = N_("not implemented yet")
NOT_IMPLEMENTED_TEMPLATE = N_("NotImplementedError: {not_implemented} (replace `raise NotImplementedError()` "
                              "with your code)")
NOT_IMPLEMENTED_LINE = NOT_IMPLEMENTED_TEMPLATE.format(not_implemented=NOT_IMPLEMENTED)
# The finding of a test that called a function the learner has not written yet (``TestResult.findings``).
NOT_ATTEMPTED = "(not attempted)"


@dataclasses.dataclass
class TestResult:
    grade_id: str
    score: float
    max_score: float
    message: str              # one line for the learner ("" when passed)
    kind: Kind = Kind.PASSED
    # What the grader diagnosed, never read from text: the ids of the catalogued mistakes its checks
    # named, and NOT_ATTEMPTED when a function it called still raises NotImplementedError.  Recorded
    # in the autograded notebook for the misconception report (``preprocessors.record``).
    findings: tuple = ()

    @property
    def passed(self):
        return self.kind is Kind.PASSED


@dataclasses.dataclass
class CellRun:
    """What running one of the learner's code cells did."""
    index: int           # position of the cell in the submission
    first_line: str      # how the learner recognises the cell
    error: str | None    # "NameError: ..." if the cell raised
    output: str          # what it printed (truncated)


@dataclasses.dataclass
class Report:
    """The grades of one notebook."""
    assignment: str
    notebook: str
    tests: list
    cells: list
    language: str = ENGLISH   # the language its messages are in (not part of the JSON)
    language_reason: str = "default"   # what chose it (i18n.chosen), said at the end of the self-check

    @property
    def score(self):
        return sum(t.score for t in self.tests)

    @property
    def max_score(self):
        return sum(t.max_score for t in self.tests)

    def as_json(self, notebook_path):
        return {"assignment": self.assignment, "notebook": str(notebook_path),
                "score": self.score, "max_score": self.max_score,
                "tests": [{"grade_id": t.grade_id, "score": t.score, "max_score": t.max_score,
                           "passed": t.passed, "message": t.message} for t in self.tests]}
