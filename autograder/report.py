"""The class report: ``python -m autograder report ASSIGNMENT [--lang ja]``.

For one assignment, what the class got wrong and where it lost its points:

* **Catalogued mistakes**: how many students made each.  What is counted are
  the findings the grader recorded with each test's result when it graded
  (``preprocessors.record``): the ids of the mistakes its checks named, how the
  test ended, whether a function was not written yet; never text matched in the
  feedback, which quotes the learner's own exceptions.  The records are sealed
  with the course's secret, so a record a submission brings is not believed,
  and a notebook graded without them (an older grader, stock nbgrader) is
  counted as unknown, in one line, never guessed from its text.
* **Scores per test** (each graded cell, by its nbgrader grade id): mean,
  median, share of full marks, points lost and a histogram, from nbgrader's
  gradebook (``Grade.score``: the grader's score, or the one an instructor gave
  by hand, extra credit included; a written answer still waiting for its hand
  grade is left out of its test's numbers and counted apart).
* **Errors that stopped the code, by cause**: a syntax error, a failed import of
  a module of the course (numpy, Python's own, the book's library, which the
  grader hides from learner code) or of a package outside it (``import
  torch``), a timeout, a crash, another error in a cell that defines the graded
  functions.  A timeout and a crash are read from what the grader recorded
  (each test's kind, sealed).  The other causes are counted only for a student
  whose tests failed, only for an error in a cell that defines the graded code
  (a solution cell of the source notebook), and never on the word of the
  error's name (``ename``), which a learner's own ``raise SyntaxError`` or
  ``class ModuleNotFoundError`` sets: a syntax error only when the cell's code
  does not compile (IPython's magics transformed or left out, as the grader
  runs them); a failed import only when the cell's code imports that module
  (``import``/``from ... import``, top-level package compared), whose name is
  taken from the message (``No module named 'torch'``), checked to be a module
  name and shown to the instructor only; any other error of such a cell is
  ``other_error``.  A student whose tests failed for such a cause, with no
  catalogued mistake named, counts as ``(stopped by an error)`` (a cell's
  timeout: ``(timeout or crash)``) in the mistakes' table, not as a wrong
  answer.
* **Late submissions**: nbgrader's ``total_seconds_late`` (the due date with the
  student's extension), shown as a duration rounded up to the second (``1 s``,
  ``1 d 0 h 0 min 1 s``: a late submission never reads 0), and late penalty,
  and the LMS's own mark when ``collect`` recorded one
  (``autograder/collected/ASSIGNMENT.json``).  The penalties are checked as the
  export checks them (``late.stale``): those that extensions.csv, the late
  policy or a manual grade has changed since are counted in one line, which
  says that ``python -m autograder grade ASSIGNMENT`` brings them up to date.
* **Who submitted nothing**: the roster's students (``autograder/roster.json``,
  ``python -m autograder roster import``) with no submission.

Written to ``autograder/reports/ASSIGNMENT/`` of the course: ``misconceptions.md``
with its charts (``misconceptions.png``, ``statistics.png``) and its tables as CSV
(``mistakes.csv``, ``tests.csv``, ``scores.csv``, ``stops.csv``).  That page names
no student, so it can be shared with the class; the students of each mistake,
cause, late submission and missing submission are in ``instructor-only/``
(``students.md``, ``students.csv``), with the roster's names.  Every CSV text cell
is made safe for spreadsheets (``safe.spreadsheet_text``).

The ids (mistakes, causes, tests) do not depend on the language.  The report's
headings, sentences and messages are in the language it is asked for
(``--lang``); the ids stay as they are.
"""
import ast
import collections
import csv
import dataclasses
import math
import re
import statistics
import sys
from pathlib import Path

from . import course_secret, i18n, notebooks
from .checks import SHARED_MISTAKES
from .safe import spreadsheet_text
from .i18n import N_, _, ngettext, pgettext
from .preprocessors import read_record
from .results import NOT_ATTEMPTED, Kind

UNKNOWN = "(findings not recorded)"
TIMEOUT_OR_CRASH = "(timeout or crash)"
STOPPED = "(stopped by an error)"
OTHER = "(other wrong answer)"
MAX_AUTOGRADED_BYTES = 64 << 20   # an autograded notebook larger than this was not written by this grader
MAX_ERRORS = 1000                 # error outputs read from one notebook (the grader writes one per cell)
MAX_SUBMISSIONS = 100_000         # rows read from the gradebook
# What the rows that are not catalogued mistakes mean (their ids stay English, as the mistakes' ids).
EXTRA_ROWS = {NOT_ATTEMPTED: N_("a function still raises NotImplementedError"),
              TIMEOUT_OR_CRASH: N_("the code was stopped: too slow, endless, or it killed its process"),
              STOPPED: N_("a failed test, after a syntax error, a failed import or another error stopped a cell "
                          "that defines the graded code (the causes are below)"),
              OTHER: N_("a failed test, and no catalogued mistake named for this student")}
UNKNOWN_ROW = N_("graded without the findings this grader records (an older version, or stock nbgrader): "
                 "not counted in the other rows")
# The causes of the errors that stop a learner's code (ids stay English).
CAUSES = {"syntax_error": N_("a syntax error: the cell did not run at all, so nothing it defines exists"),
          "missing_course_module": N_("a failed import of a module the course uses (numpy, Python's own, or the "
                                      "book's library, which the grader hides from the learner's code)"),
          "package_outside_course": N_("a failed import of a package outside the course (such as torch): the "
                                       "grader has only the course's packages"),
          "timeout": N_("a cell or a test ran past its time limit (an endless loop, or far too slow)"),
          "crash": N_("the process running the learner's code died (killed, or out of memory)"),
          "other_error": N_("another error in a cell that defines the graded functions")}
SYNTAX_ERRORS = {"SyntaxError", "IndentationError", "TabError"}
FAILING = (Kind.FAILED, Kind.TIMEOUT, Kind.CRASHED)   # how a test ends when it failed (else passed, or no verdict)
_EXCEPTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")
_NO_MODULE = re.compile(r"ModuleNotFoundError: No module named '([A-Za-z_][A-Za-z0-9_]{0,99}"
                        r"(?:\.[A-Za-z_][A-Za-z0-9_]{0,99}){0,20})'")
INSTRUCTOR_ONLY = "instructor-only"
# Fonts with Japanese glyphs, for the chart of a Japanese report (else its labels stay English).
CJK_FONTS = ("Noto Sans CJK JP", "Noto Sans JP", "IPAexGothic", "IPAGothic", "TakaoGothic", "VL Gothic",
             "Hiragino Sans", "Yu Gothic", "MS Gothic")


# --------------------------------------------------------------------------- the findings of each student
@dataclasses.dataclass
class ClassFindings:
    """What the grader recorded for the autograded class of one assignment."""
    students: list     # every autograded student, sorted
    rows: dict         # student -> set of the mistakes' table rows (catalogued ids and the rows above)
    causes: dict       # student -> {cause id: set of missing modules (for the imports; else empty)}
    messages: dict     # row -> what it means, in the current language


def class_findings(course, assignment):
    """The ClassFindings of ``assignment``'s autograded notebooks; messages in the current language.
    A student whose notebook holds no verified record of every test is in the row UNKNOWN only (that
    row has a message only when someone is in it), with no cause."""
    exercise = course.exercise(assignment)
    catalogued = {m.id: m for m in (*SHARED_MISTAKES, *exercise.catalogue.MISTAKES)}
    mistakes = {i: mistake.translated() for i, mistake in catalogued.items()}
    extra = {row: _(text) for row, text in EXTRA_ROWS.items()}
    students = sorted(p.parent.name for p in course.autograded.glob(f"*/{assignment}") if p.is_dir())
    if not students:
        raise notebooks.NotebookError(f"nothing graded for {assignment}: expected autograded notebooks in "
                                      f"{course.autograded / '<student>' / assignment}/ "
                                      f"(run python -m autograder grade {assignment} first)")
    key = course_secret.seal_key(course)
    if key is None:
        raise notebooks.NotebookError(
            f"the findings of {assignment} are sealed with the course's grading secret, which this machine does "
            f"not have: copy {course_secret.SECRET_FILE} from the machine that graded, or set "
            f"{course_secret.SECRET_VARIABLE}")
    modules = course_modules(course)
    rows, causes = {}, {}
    for student in students:
        graded = _graded(key, exercise, course.autograded / student / assignment, student)
        if graded is None:
            rows[student], causes[student] = {UNKNOWN}, {}
            continue
        results, errors = graded
        found, unexplained = set(), False
        stops = collections.defaultdict(set)
        if any(kind in FAILING for kind, _findings in results):   # an error that stopped nothing graded is none
            for source, ename, evalue in errors:
                cause = _cell_cause(source, ename, evalue, modules)
                if cause is not None:
                    stops[cause[0]].update(cause[1:])
        cell_causes = set(stops)
        for kind, findings in results:
            named = set(findings) & set(catalogued)
            if kind in (Kind.TIMEOUT, Kind.CRASHED):
                stops.setdefault("timeout" if kind is Kind.TIMEOUT else "crash", set())
            if named:
                found |= named
            elif kind in (Kind.TIMEOUT, Kind.CRASHED):
                found.add(TIMEOUT_OR_CRASH)
            elif NOT_ATTEMPTED in findings:
                found.add(NOT_ATTEMPTED)
            elif kind is Kind.FAILED:
                unexplained = True
        # a visible test fails too when a catalogued mistake was named: that is the same mistake
        if unexplained and not (found & set(mistakes)):
            found.add(STOPPED if cell_causes - {"timeout"} else TIMEOUT_OR_CRASH if cell_causes else OTHER)
        rows[student], causes[student] = found, dict(stops)
    if any(UNKNOWN in found for found in rows.values()):
        extra[UNKNOWN] = _(UNKNOWN_ROW)
    return ClassFindings(students, rows, causes, {**mistakes, **extra})


def count_mistakes(course, assignment):
    """(students, Counter mistake id -> students, dict id -> message) for the autograded class;
    the messages in the current language (``class_findings``)."""
    found = class_findings(course, assignment)
    counts = collections.Counter(row for rows in found.rows.values() for row in rows)
    return found.students, counts, found.messages


def _graded(key, exercise, folder, student):
    """([(Kind, findings)] of every test of ``exercise`` that the grader recorded in the student's autograded
    notebook (a failed test's only), [(the cell's source, ename, evalue)] of the error outputs of the cells
    that define the graded code: the source notebook's solution cells), or None unless every test holds a
    record whose seal verifies."""
    source = exercise.source
    path = folder / f"{source.name}.ipynb"
    try:
        if path.stat().st_size > MAX_AUTOGRADED_BYTES:
            return None
        notebook = notebooks.read_notebook(path)
    except (OSError, notebooks.NotebookError, RecursionError):
        return None
    solution_cells = {notebooks.meta(c).get("grade_id") for c in source.notebook.cells
                      if c.cell_type == "code" and notebooks.meta(c).get("solution")}
    recorded, errors = {}, []
    for cell in notebook.cells:
        grade_id = notebooks.meta(cell).get("grade_id")
        if notebooks.is_test_cell(cell):
            if isinstance(grade_id, str) and grade_id not in recorded:
                result = read_record(key, (exercise.assignment, source.name, student, grade_id), cell)
                if result is not None:
                    recorded[grade_id] = result
        elif (cell.get("cell_type") == "code" and isinstance(grade_id, str) and grade_id in solution_cells
              and notebooks.meta(cell).get("solution") is True and isinstance(cell.get("outputs"), list)):
            code = cell.get("source")
            code = "".join(code) if isinstance(code, list) else code if isinstance(code, str) else ""
            for output in cell["outputs"][:MAX_ERRORS - len(errors)]:
                if isinstance(output, dict) and output.get("output_type") == "error":
                    ename, evalue = output.get("ename"), output.get("evalue")
                    errors.append((code, ename if isinstance(ename, str) else "",
                                   evalue if isinstance(evalue, str) else ""))
    if any(test.grade_id not in recorded for test in source.tests):
        return None
    return [recorded[test.grade_id] for test in source.tests if recorded[test.grade_id][0] is not Kind.PASSED], errors


def _cell_cause(source, ename, evalue, modules):
    """(cause,) or (cause, module) of one error output of a cell that defines the graded code (``source``:
    the cell's code as graded), or None when it is no error the report names.  Its name (``ename``) is the
    learner's to choose (``raise SyntaxError(...)``, ``class ModuleNotFoundError``), so a cause is believed
    only when the code shows it: a syntax error when the cell does not compile, a failed import when the
    cell imports the module the message names; any other error is ``other_error``.  The grader names a
    cell's timeout ``Timeout`` and renames a learner's exception of that name; anything that is not an
    exception's name (a dead process's sentence) is no cause: the test records say it."""
    if not _EXCEPTION_NAME.fullmatch(ename):
        return None
    if ename == Kind.TIMEOUT.error_name:
        return ("timeout",)
    if ename in SYNTAX_ERRORS and not _compiles(source):
        return ("syntax_error",)
    found = _NO_MODULE.match(evalue) if ename == "ModuleNotFoundError" else None
    if found is not None and found[1].partition(".")[0] in _imported(source):
        module = found[1]
        return ("missing_course_module" if module.partition(".")[0] in modules else "package_outside_course", module)
    return ("other_error",)


_MAGIC_LINE = re.compile(r"^[ \t]*[%!].*$", re.MULTILINE)


def _compiles(source):
    """Whether a cell's code compiles as the grader runs it: as Python, else with IPython's syntax (magics,
    ``!shell``) rewritten (``notebooks.learner_cells``), else with the lines of magics and shell commands
    left out.  Only a SyntaxError is a cell that does not compile; anything else (a source too deep to
    parse) is not shown to be one."""
    for attempt in (lambda: source, lambda: notebooks._as_python(source), lambda: _MAGIC_LINE.sub("", source)):
        try:
            compile(attempt(), "<cell>", "exec", dont_inherit=True)
            return True
        except SyntaxError:
            continue
        except Exception:   # null bytes (ValueError), a recursion or memory limit: not a syntax error shown
            return True
    return False


def _imported(source):
    """The top-level names of the modules a cell's code imports (``import a.b``, ``from a.b import c``;
    relative imports left out), as parsed, IPython's syntax rewritten; empty when it does not parse."""
    try:
        tree = ast.parse(notebooks._as_python(source))
    except Exception:   # SyntaxError, ValueError, RecursionError, MemoryError: it imports nothing shown
        return frozenset()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.partition(".")[0])
    return frozenset(names)


def course_modules(course):
    """Top-level names of the modules the course provides: Python's own, those its exercises' source
    notebooks import, and the book's library package (imported by the chapters)."""
    names = set(sys.stdlib_module_names)
    for exercise in course.exercises:
        if exercise.chapter:
            names.add(exercise.library_module.partition(".")[0])
        try:
            cells = exercise.source.notebook.cells
        except notebooks.NotebookError:
            continue
        for cell in cells:
            if cell.get("cell_type") == "code":
                names |= _imported(cell.source)
    return frozenset(names)


# --------------------------------------------------------------------------- the gradebook's numbers
@dataclasses.dataclass
class TestScores:
    """The gradebook's scores of one graded cell over the submissions."""
    notebook: str
    grade_id: str
    max_score: float
    scores: dict          # student -> score (graded ones)
    pending: int = 0      # submissions whose score waits for a hand grade

    @property
    def values(self):
        return sorted(self.scores.values())

    @property
    def mean(self):
        return statistics.fmean(self.values) if self.scores else None

    @property
    def median(self):
        return statistics.median(self.values) if self.scores else None

    @property
    def full_marks(self):
        """The share of the graded submissions with at least the cell's points (None: nothing graded)."""
        if not self.scores:
            return None
        return sum(score >= self.max_score - 1e-9 for score in self.values) / len(self.scores)

    @property
    def lost(self):
        return sum(max(0.0, self.max_score - score) for score in self.values)

    def histogram(self):
        """[(low, high, students)]: one bar per score when the scores take a few values (points, half
        points), else ten equal bins from 0 to the cell's points (a bin holds its low end; the last both)."""
        values = self.values
        few = set(values) | {0.0, self.max_score}
        if all(float(v * 2).is_integer() for v in few) and self.max_score <= 10:
            step = 1.0 if all(float(v).is_integer() for v in few) else 0.5
            few |= {i * step for i in range(int(self.max_score / step) + 1)}
        if len(few) <= 21:
            return [(v, v, values.count(v)) for v in sorted(few)]
        width = self.max_score / 10 if self.max_score > 0 else 1.0
        counts = [0] * 10
        for value in values:
            counts[min(9, max(0, int(value // width)))] += 1
        return [(i * width, (i + 1) * width, counts[i]) for i in range(10)]


@dataclasses.dataclass
class GradebookNumbers:
    tests: list            # [TestScores] in the notebooks' order
    submissions: dict      # student -> (seconds late, late penalty) of each submission in the gradebook
    duedate: object        # the assignment's due date (None: nbgrader counts nothing late)
    untimed: set = dataclasses.field(default_factory=set)   # submissions without a time: lateness unknown


def gradebook_numbers(course, assignment):
    """The GradebookNumbers of ``assignment`` in the course's gradebook, its tests in the source notebook's
    order; None when the gradebook holds nothing of it (an SQLite gradebook that does not exist is not
    created).  A gradebook that cannot be read is a one-line NotebookError, without its password."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, SQLAlchemyError

    from . import safe
    url = course.gradebook_url
    try:
        parsed = make_url(url)
        if parsed.get_backend_name() == "sqlite" and not (parsed.database and Path(parsed.database).is_file()):
            return None
        numbers = _read_gradebook(url, assignment)
    except (ArgumentError, SQLAlchemyError, OSError) as error:
        raise notebooks.NotebookError(f"the gradebook {safe.url_without_password(url)} cannot be read "
                                      f"({type(error).__name__})") from None
    if numbers is not None:
        source = course.exercise(assignment).source
        order = {notebooks.meta(cell).get("grade_id"): index for index, cell in enumerate(source.notebook.cells)}
        numbers.tests.sort(key=lambda t: (t.notebook != source.name, order.get(t.grade_id, len(order)), t.grade_id))
    return numbers


def _read_gradebook(url, assignment):
    from nbgrader.api import Gradebook, MissingEntry
    with Gradebook(url) as gradebook:
        try:
            found = gradebook.find_assignment(assignment)
        except MissingEntry:
            return None
        tests = {}
        for notebook in found.notebooks:
            for cell in notebook.grade_cells:
                tests[(notebook.name, cell.name)] = TestScores(notebook.name, cell.name, float(cell.max_score), {})
        submissions, untimed = {}, set()
        for submission in found.submissions[:MAX_SUBMISSIONS]:
            student = submission.student_id
            if submission.timestamp is None:   # no timestamp.txt (an LMS's zip): nbgrader counts it on time
                untimed.add(student)
            submissions[student] = (float(submission.total_seconds_late),
                                    float(submission.late_submission_penalty or 0.0))
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    test = tests.get((notebook.name, grade.name))
                    if test is None:
                        continue
                    if grade.needs_manual_grade and grade.manual_score is None:
                        test.pending += 1
                    else:
                        test.scores[student] = float(grade.score)
        if not submissions or not tests:
            return None
        return GradebookNumbers(list(tests.values()), submissions, found.duedate, untimed)


# --------------------------------------------------------------------------- roster, collection
def _roster(course):
    """{student: Entry} of the course's roster ({} without one)."""
    try:
        from . import roster
    except ImportError:   # a grader without the roster module
        return {}
    return roster.by_student(course)


def _label(entries, student):
    """The roster's "Name (student)" of ``student``, else the id."""
    entry = entries.get(student)
    return f"{entry.display} ({student})" if entry is not None and entry.display != student else student


def _untimed(course, assignment, numbers):
    """The students whose submission carries no submission time (collected from an LMS's zip, which gives
    none): the gradebook's, when it holds the submission, else the collected folder's ``timestamp.txt``;
    nbgrader cannot tell whether they are late."""
    graded = numbers.submissions if numbers else {}
    collected = {folder.parent.name for folder in course.submitted.glob(f"*/{assignment}")
                 if folder.is_dir() and not (folder / "timestamp.txt").is_file()}
    return (numbers.untimed if numbers else set()) | {student for student in collected if student not in graded}


def _untimed_line(untimed):
    return _("The lateness of {count} submission(s) is not known here: collected from an LMS's zip, they carry no "
             "submission time (the LMS's own grading page shows it).").format(count=len(untimed))


def _lms_late(course, assignment):
    """The students whose submission the LMS marked late when ``collect`` imported it (``collect.origins``)."""
    from . import collect
    recorded = collect.origins(course, assignment)
    return {str(student) for student, origin in recorded.items()
            if isinstance(origin, dict) and origin.get("late") is True}


class Stale(collections.namedtuple("Stale", "students reason")):
    """The students whose late penalty in the gradebook is out of date (``late.stale``), or the one-line
    reason they could not be checked (then ``students`` is empty)."""


def _stale_penalties(course, assignment):
    """The Stale penalties of ``assignment``, checked as the export checks them: the gradebook's late penalty
    of each submission against the one extensions.csv and the course's late policy give now (nothing is
    written).  Call it only when the gradebook holds the assignment (it would create an SQLite one)."""
    from sqlalchemy.exc import SQLAlchemyError

    from . import course as courses
    from . import late as lateness
    try:
        return Stale(tuple(lateness.stale(course, courses.load_config(course.root), assignment)), None)
    except notebooks.NotebookError as error:          # a bad extensions.csv: one line, the grade command's
        return Stale((), str(error).splitlines()[0] if str(error) else type(error).__name__)
    except (SQLAlchemyError, OSError) as error:        # never the gradebook's URL, which may hold a password
        return Stale((), type(error).__name__)


def _stale_lines(assignment, stale):
    """["", the one line] saying that late penalties are out of date, or could not be checked; [] if neither."""
    if stale.students:
        return ["", ngettext("The late penalty of {count} submission in the gradebook is out of date (extensions.csv, "
                             "the late policy or a manual grade changed since it was computed): this report shows "
                             "the old one, and `python -m autograder grade {assignment}` brings it up to date.",
                             "The late penalties of {count} submissions in the gradebook are out of date "
                             "(extensions.csv, the late policy or a manual grade changed since they were "
                             "computed): this report shows the old ones, and `python -m autograder grade "
                             "{assignment}` brings them up to date.",
                             len(stale.students)).format(count=len(stale.students), assignment=assignment)]
    if stale.reason:
        return ["", _("Whether the late penalties are up to date could not be checked (extensions.csv or the "
                      "late policy could not be read): `python -m autograder grade {assignment}` says "
                      "why.").format(assignment=assignment)]
    return []


# --------------------------------------------------------------------------- writing
def _cjk_font():
    """The name of an installed font with Japanese glyphs, or None."""
    from matplotlib import font_manager
    for name in CJK_FONTS:
        try:
            font_manager.findfont(font_manager.FontProperties(family=name), fallback_to_default=False)
            return name
        except ValueError:
            continue
    return None


_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|#!{}])")


def _md(text):
    """A learner's or the roster's text as one Markdown table cell: one line, markup escaped."""
    from . import safe
    return _MARKDOWN_SPECIAL.sub(r"\\\1", safe.terminal(text, encoding="utf-8", limit=200))


def _number(value):
    return "–" if value is None else f"{value:.2f}".rstrip("0").rstrip(".")


def _duration(seconds):
    """A lateness as days, hours, minutes and seconds, from its largest unit to its smallest one that is not
    zero, rounded up to the second: a late submission never reads 0 ("1 s", "2 h 5 min", "1 d 0 h 0 min 1 s")."""
    if seconds is None or not math.isfinite(seconds):
        return "–"
    rest = max(0, math.ceil(seconds))
    amounts = [rest // 86400, rest % 86400 // 3600, rest % 3600 // 60, rest % 60]
    # Translators: the units of a duration ("1 d 0 h 0 min 1 s"); Japanese counts them 「1 日 0 時間 0 分 1 秒」.
    units = [pgettext("duration", "{n} d"), pgettext("duration", "{n} h"), pgettext("duration", "{n} min"),
             pgettext("duration", "{n} s")]
    shown = [index for index, amount in enumerate(amounts) if amount] or [len(amounts) - 1]
    return " ".join(units[i].format(n=amounts[i]) for i in range(shown[0], shown[-1] + 1))


def _plain(value):
    """A number as a spreadsheet reads it best: an integral float as an int."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _percent(share):
    return "–" if share is None else f"{100 * share:.0f}%"


def _bin_label(low, high):
    return f"{low:g}" if low == high else f"{low:g}–{high:g}"


def _listed(names):
    """File names as inline code, in a list of the current language."""
    # Translators: between the items of a list of file names ("a, b"; Japanese writes 「、」).
    return pgettext("list separator", ", ").join(f"`{name}`" for name in names)


def _test_label(test, tests):
    """A test's grade id, with its notebook when the assignment has several notebooks."""
    several = len({t.notebook for t in tests}) > 1
    return f"{test.notebook}/{test.grade_id}" if several else test.grade_id


def _write_csv(path, header, rows):
    """A CSV a spreadsheet opens as written: every text cell made safe, numbers left numbers."""
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow([spreadsheet_text(cell) for cell in header])
        for row in rows:
            writer.writerow(["" if cell is None else cell if isinstance(cell, (int, float)) else spreadsheet_text(cell)
                             for cell in row])


def _chart_context(language):
    """(matplotlib style, language of the labels): a Japanese chart needs a font with its glyphs."""
    font = _cjk_font() if language != i18n.ENGLISH else None
    chart_language = language if language == i18n.ENGLISH or font else i18n.ENGLISH   # no glyphs: English labels
    return ({"font.family": [font, "DejaVu Sans"]} if font else {}), chart_language


def _mistakes_chart(plt, path, assignment, found, rows, counts):
    fig, ax = plt.subplots(figsize=(7.5, 0.35 * len(rows) + 1.2))
    ax.barh(range(len(rows)), [counts[i] for i in rows], color="#4c72b0")
    ax.set_yticks(range(len(rows)), rows)
    ax.invert_yaxis()
    ax.set_xlabel(_("students (of {count})").format(count=len(found.students)))
    ax.set_title(_("{assignment}: catalogued mistakes in the class").format(assignment=assignment))
    ax.xaxis.get_major_locator().set_params(integer=True)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _statistics_chart(plt, path, assignment, tests):
    """One small histogram per test: students per score."""
    columns = min(4, len(tests))
    lines = math.ceil(len(tests) / columns)
    fig, axes = plt.subplots(lines, columns, figsize=(3.2 * columns, 2.4 * lines + 0.6), squeeze=False)
    for ax in axes.flat[len(tests):]:
        ax.set_visible(False)
    for ax, test in zip(axes.flat, tests):
        bins = test.histogram()
        ax.bar(range(len(bins)), [count for _low, _high, count in bins], color="#4c72b0")
        ax.set_xticks(range(len(bins)), [_bin_label(low, high) for low, high, _count in bins],
                      fontsize=7, rotation=45 if len(bins) > 6 else 0)
        ax.set_title(_test_label(test, tests), fontsize=9)
        ax.set_xlabel(_("points scored"), fontsize=8)
        ax.set_ylabel(_("students"), fontsize=8)
        ax.yaxis.get_major_locator().set_params(integer=True)
    fig.suptitle(_("{assignment}: scores of each test").format(assignment=assignment))
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _class_page(assignment, found, counts, rows, numbers, stops, late, stale, lms_late, entries, nothing, written,
                untimed=()):
    """The lines of the page that names no student."""
    total = max(1, len(found.students))
    lines = ["# " + _("{assignment}: what the class got wrong").format(assignment=assignment), "",
             _("{count} autograded submissions. A student counts once per mistake, "
               "however many tests showed it.").format(count=len(found.students)), "",
             *([_("{count} of them hold no findings recorded by this grader (graded by an older version or "
                  "by stock nbgrader): counted as `{row}` only; grade them again with `python -m autograder "
                  "grade {assignment} --force`.").format(count=counts[UNKNOWN], row=UNKNOWN,
                                                        assignment=assignment), ""]
               if counts[UNKNOWN] else []),
             "![{alt}](misconceptions.png)".format(alt=_("students per mistake")), "",
             "| {} | {} | {} | {} |".format(_("mistake"), _("students"), _("share"), _("what the grader told them")),
             "|---|---:|---:|---|"]
    for mistake in rows:
        text = found.messages[mistake].replace("|", "\\|")
        lines.append(f"| `{mistake}` | {counts[mistake]} | {100 * counts[mistake] / total:.0f}% | {text} |")

    lines += ["", "## " + _("Scores per test"), ""]
    if numbers is None:
        lines.append(_("The gradebook holds no grades of {assignment} yet: `python -m autograder grade {assignment}` "
                       "puts them there.").format(assignment=assignment))
    else:
        lines += [_("{count} submissions in the gradebook. A test's score is the one the gradebook holds: the "
                    "grader's, or the one given by hand where an instructor changed it (extra credit "
                    "included).").format(count=len(numbers.submissions)), ""]
        pending = sum(test.pending for test in numbers.tests)
        if pending:
            lines += [_("{count} scores still wait for a hand grade (formgrader): they are left out of their "
                        "test's numbers.").format(count=pending), ""]
        lines += ["![{alt}](statistics.png)".format(alt=_("histogram of the scores of each test")), "",
                  "| {} | {} | {} | {} | {} | {} | {} | {} |".format(
                      _("test"), _("points"), _("graded"), _("mean"), _("median"), _("full marks"), _("points lost"),
                      _("scores (students)")),
                  "|---|---:|---:|---:|---:|---:|---:|---|"]
        for test in numbers.tests:
            histogram = ", ".join(f"{_bin_label(low, high)}: {count}" for low, high, count in test.histogram())
            lines.append(f"| `{_test_label(test, numbers.tests)}` | {test.max_score:g} | {len(test.scores)} | "
                         f"{_number(test.mean)} | {_number(test.median)} | {_percent(test.full_marks)} | "
                         f"{_number(test.lost)} | {histogram} |")

    lines += ["", "## " + _("Errors that stopped the code, by cause"), "",
              _("A student counts once per cause, and only a student whose tests failed. A timeout or a crash "
                "is read from how the grader recorded each test's end; the other causes only from an error in a "
                "cell that defines the graded code, checked against that cell's code, never taken from the "
                "error's name or message: a syntax error when the code does not compile, a failed import when "
                "the code imports that module, else another error. The modules an import missed are listed on "
                "the instructor's page only."), "",
              "| {} | {} | {} | {} |".format(_("cause"), _("students"), _("share"), _("what it means")),
              "|---|---:|---:|---|"]
    for cause, text in CAUSES.items():
        lines.append(f"| `{cause}` | {stops[cause]} | {100 * stops[cause] / total:.0f}% | {_(text)} |")

    lines += ["", "## " + _("Late submissions"), ""]
    if numbers is None:
        lines.append(_("Without grades in the gradebook, nbgrader's lateness is not known yet."))
    elif numbers.duedate is None:
        lines.append(_("The gradebook holds no due date for {assignment}: nbgrader counts no submission "
                       "late.").format(assignment=assignment))
    else:
        penalty = sum(late[student][1] for student in late if student in numbers.submissions)
        timed = [student for student in numbers.submissions if student not in untimed]   # the others: unknown
        lines.append(_("Late: {count} of {total} submissions (after the due date, with the student's extension if "
                       "any); their late penalties total {points} points.").format(
            count=sum(1 for seconds, _penalty in late.values() if seconds > 0), total=len(timed),
            points=_number(penalty)))
    lines += _stale_lines(assignment, stale)
    if untimed:
        lines += ["", _untimed_line(untimed)]
    if lms_late:
        lines += ["", _("Marked late by the LMS when collected: {count}.").format(count=len(lms_late))]

    lines += ["", "## " + _("Submitted nothing"), ""]
    if not entries:
        lines.append(_("No roster: after `python -m autograder roster import FILE` (the class list the LMS exports) "
                       "this lists the students with no submission."))
    else:
        lines.append(_("{count} of the {total} students on the roster have no submission of {assignment}.").format(
            count=len(nothing), total=len(entries), assignment=assignment))

    lines += ["", "---", "",
              _("This page names no student: it can be shared with the class. The students of each row are in "
                "{files}, for the instructor only.").format(files=_listed(written["private"])),
              "", _("The tables are also written as CSV: {files}.").format(files=_listed(written["csv"]))]
    return lines


def _instructor_page(assignment, found, rows, numbers, late, stale, lms_late, entries, nothing, untimed=()):
    """(Markdown lines, CSV rows) of the instructor's page: the students of each row."""
    label = {student: _md(_label(entries, student))
             for student in {*found.students, *late, *stale.students, *lms_late, *nothing}}
    csv_rows = []
    lines = ["# " + _("{assignment}: the students, for the instructor only").format(assignment=assignment), "",
             _("This page names students: it is for the instructor and the teaching assistants, not for the class, "
               "whose page is {page}.").format(page="`../misconceptions.md`"), "",
             "## " + _("Catalogued mistakes"), "",
             "| {} | {} | {} |".format(_("mistake"), _("students"), _("who")), "|---|---:|---|"]
    for mistake in rows:
        who = sorted(s for s in found.students if mistake in found.rows[s])
        if not who:
            continue
        lines.append(f"| `{mistake}` | {len(who)} | {', '.join(label[s] for s in who)} |")
        csv_rows += [(s, "mistake", mistake, None) for s in who]

    lines += ["", "## " + _("Errors that stopped the code, by cause"), "",
              "| {} | {} | {} |".format(_("cause"), _("student"), _("missing modules")), "|---|---|---|"]
    for cause in CAUSES:
        for student in sorted(s for s in found.students if cause in found.causes[s]):
            modules = sorted(found.causes[student][cause])
            lines.append(f"| `{cause}` | {label[student]} | {', '.join(f'`{m}`' for m in modules)} |")
            csv_rows.append((student, "stopped", cause, " ".join(modules) or None))

    lines += ["", "## " + _("Late submissions"), ""]
    stale_lines = _stale_lines(assignment, stale)
    if stale.students:   # the instructor's page names them
        stale_lines[-1] += " " + _("Out of date: {students}.").format(
            students=pgettext("list separator", ", ").join(label[s] for s in sorted(stale.students)))
    elif stale.reason:
        stale_lines[-1] += f" ({_md(stale.reason)})"
    lines += [*stale_lines[1:], *([""] if stale_lines else [])]
    submissions = numbers.submissions if numbers else {}
    if late or lms_late or stale.students:
        lines += ["| {} | {} | {} | {} |".format(_("student"), _("time late"), _("late penalty"),
                                                 _("marked late by the LMS")), "|---|---:|---:|---|"]
        for student in sorted({*late, *lms_late, *stale.students}):
            # an LMS's mark alone: nbgrader's lateness not shown; a penalty out of date: the gradebook's numbers
            known = late.get(student) or (submissions.get(student) if student in stale.students else None)
            seconds, penalty = known or (None, None)
            marked = _("yes") if student in lms_late else ""
            out_of_date = " " + _("(out of date)") if student in stale.students else ""
            lines.append(f"| {label[student]} | {_duration(seconds)} | {_number(penalty)}{out_of_date} | {marked} |")
            if seconds is not None:
                csv_rows += [(student, "late", "seconds_late", _plain(seconds)),
                             (student, "late", "time_late", _duration(seconds)),
                             (student, "late", "late_penalty", penalty)]
            if student in stale.students:
                csv_rows.append((student, "late", "late_penalty_out_of_date", 1))
            if student in lms_late:
                csv_rows.append((student, "late", "marked_late_by_lms", 1))
    elif untimed:
        lines.append(_untimed_line(untimed))
    else:
        lines.append(_("No submission is late."))

    lines += ["", "## " + _("Submitted nothing"), ""]
    if not entries:
        lines.append(_("No roster: after `python -m autograder roster import FILE` (the class list the LMS exports) "
                       "this lists the students with no submission."))
    elif not nothing:
        lines.append(_("Every student on the roster submitted something."))
    else:
        lines += [f"- {label[student]}" for student in nothing]
        csv_rows += [(student, "nothing_submitted", assignment, None) for student in nothing]
    return lines, csv_rows


def write_report(course, assignment, out_dir=None, language=i18n.ENGLISH):
    """Write the report (the module's docstring says what) in the course's reports folder, headings and
    messages in ``language``; return the path of the class's Markdown page (misconceptions.md)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with i18n.language(language):
        found = class_findings(course, assignment)
    counts = collections.Counter(row for rows in found.rows.values() for row in rows)
    numbers = gradebook_numbers(course, assignment)
    entries = _roster(course)
    lms_late = _lms_late(course, assignment)
    late = {student: (seconds, penalty) for student, (seconds, penalty) in (numbers.submissions.items() if numbers
                                                                           else ()) if seconds > 0 or penalty > 0}
    stale = _stale_penalties(course, assignment) if numbers else Stale((), None)
    submitted = {*found.students, *(numbers.submissions if numbers else ()),
                 *(p.parent.name for p in course.submitted.glob(f"*/{assignment}") if p.is_dir())}
    nothing = sorted(student for student in entries if student not in submitted)
    stops = collections.Counter(cause for causes in found.causes.values() for cause in causes)
    rows = sorted(found.messages, key=lambda i: (-counts[i], i))

    out_dir = Path(out_dir) if out_dir else course.reports / assignment
    private = out_dir / INSTRUCTOR_ONLY
    private.mkdir(parents=True, exist_ok=True)
    written = {"csv": ["mistakes.csv", *(["tests.csv", "scores.csv"] if numbers else []), "stops.csv"],
               "private": [f"{INSTRUCTOR_ONLY}/students.md", f"{INSTRUCTOR_ONLY}/students.csv"]}
    if not numbers:
        for name in ("tests.csv", "scores.csv", "statistics.png"):
            (out_dir / name).unlink(missing_ok=True)

    style, chart_language = _chart_context(language)
    with i18n.language(chart_language), matplotlib.rc_context(style):
        _mistakes_chart(plt, out_dir / "misconceptions.png", assignment, found, rows, counts)
        if numbers and numbers.tests:
            _statistics_chart(plt, out_dir / "statistics.png", assignment, numbers.tests)

    with i18n.language(language):
        total = max(1, len(found.students))
        _write_csv(out_dir / "mistakes.csv", [_("mistake"), _("students"), _("share"), _("what the grader told them")],
                   [(m, counts[m], counts[m] / total, found.messages[m]) for m in rows])
        _write_csv(out_dir / "stops.csv", [_("cause"), _("students"), _("share"), _("what it means")],
                   [(cause, stops[cause], stops[cause] / total, _(text)) for cause, text in CAUSES.items()])
        if numbers:
            _write_csv(out_dir / "tests.csv",
                       [_("notebook"), _("test"), _("points"), _("graded"), _("mean"), _("median"), _("full marks"),
                        _("points lost"), _("to grade by hand")],
                       [(t.notebook, t.grade_id, t.max_score, len(t.scores), t.mean, t.median, t.full_marks, t.lost,
                         t.pending) for t in numbers.tests])
            _write_csv(out_dir / "scores.csv",
                       [_("notebook"), _("test"), _("points from"), _("points to"), _("students")],
                       [(t.notebook, t.grade_id, low, high, count) for t in numbers.tests
                        for low, high, count in t.histogram()])
        untimed = _untimed(course, assignment, numbers)
        page = _class_page(assignment, found, counts, rows, numbers, stops, late, stale, lms_late, entries, nothing,
                           written, untimed)
        instructor, csv_rows = _instructor_page(assignment, found, rows, numbers, late, stale, lms_late, entries,
                                                nothing, untimed)
        _write_csv(private / "students.csv", [_("student"), _("name"), _("topic"), _("item"), _("value")],
                   [(s, entries[s].display if s in entries else "", topic, item, value)
                    for s, topic, item, value in csv_rows])
    (private / "students.md").write_text("\n".join(instructor) + "\n", encoding="utf-8")
    path = out_dir / "misconceptions.md"
    path.write_text("\n".join(page) + "\n", encoding="utf-8")
    return path
