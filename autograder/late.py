"""Per-student due dates and the course's late policy, through nbgrader's own hooks.

**Extensions.** ``autograder/extensions.csv`` (in the course root, git-ignored like the rest of the
class's data) gives students their own due date::

    student,assignment,due
    canvas-12345,01_softmax,2026-05-12T23:59:00+09:00

``due`` is ISO 8601 with its time zone (``Z`` or ``+09:00``; a date without one is refused, since
"23:59" means a different instant on the grading machine), from ``MIN_YEAR`` to ``MAX_YEAR`` in UTC.
Other columns (a note, say) are ignored.  A bad row stops with one line naming it (``extensions.csv,
row 4: ...``), before anything is graded; a row naming an assignment the course does not have too.
A row naming no student with a submission of its assignment (a typo, ``CANVAS-101`` for
``canvas-101``, a name instead of an id; or a student who has not submitted yet) extends no one's due
date: the class run and the export say so in one line listing those rows (``unmatched``), and go on.
The file is bounded (``MAX_BYTES``, ``MAX_ROWS``); Excel's UTF-8 with a byte-order mark is read as well.

nbgrader already has the place for it: ``SubmittedAssignment.extension``, which its ``duedate``
adds to the assignment's due date, and from which ``total_seconds_late`` (the submission's
``timestamp.txt`` minus that due date) is computed for the late-penalty step.  Two points write it:

* ``ApplyExtensions``, a preprocessor placed just before nbgrader's ``AssignLatePenalties`` in the
  autograde pipeline (``nbgrader_config.py``): each submission nbgrader autogrades, whoever runs
  it (the class run, ``nbgrader autograde``, formgrader), gets its extension before its penalty;
* ``refresh``, which the class run calls before it plans (``classrun.grade_class``): the extension
  of every submission already in the gradebook is brought up to date with the file, and its late
  penalty recomputed from the gradebook's current score (manual grades included), as nbgrader's
  step computes it.  A penalty that changes changes what the class run's journal recorded, so that
  student is graded again (and only that student).  ``stale`` lists the penalties that are out of
  date, for the export to refuse them.

**The policy.** ``LatePenalty`` is nbgrader's ``LateSubmissionPlugin`` interface (the course selects
it: ``c.AssignLatePenalties.plugin_class``), with one more method than nbgrader's ``none`` and
``zero``: ``per_day`` takes ``percent_per_day`` percent of the score off for each day late, a started
day counting as a whole one, after ``grace_minutes``, and never more than ``max_percent`` percent
(the defaults: 10 % a day, at most 50 %, no grace).  nbgrader calls it once per notebook with that
notebook's score; the sum over notebooks is the same percentage of the total.  nbgrader's own
``c.LateSubmissionPlugin.penalty_method = "none"`` or ``"zero"`` still apply (this class is one).

**Where a penalty can be computed**: only where nbgrader has a submission time, ``timestamp.txt``
(nbgrader's exchange writes one: ``nbgrader collect``, ``python -m autograder collect --exchange``),
and the assignment a due date in the gradebook.  An LMS's zip has no submission time (see
``collect``): no penalty is computed for it here, the LMS's own late policy applies there.
"""
import csv
import datetime
import io
import math
import sys
import warnings
from pathlib import Path

from nbgrader.plugins import LateSubmissionPlugin
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Enum, Float

from . import safe
from .notebooks import NotebookError

EXTENSIONS = "autograder/extensions.csv"   # relative to the course root
MAX_BYTES = 1 << 20                        # a class of thousands is a few hundred kB
MAX_ROWS = 20000
MAX_STUDENT = 128                          # nbgrader's Student.id column
MAX_ASSIGNMENT = 32                        # nbgrader's Assignment.name column
COLUMNS = ("student", "assignment", "due")
DAY_SECONDS = 24 * 3600
MIN_YEAR, MAX_YEAR = 1970, 9999            # a due date's: the gradebook keeps an extension as 1970 plus it
MAX_ORPHANS = 20                           # extensions.csv rows naming no submission, listed in one line


class LatePenalty(LateSubmissionPlugin):
    """The course's late policy (see the module docstring): nbgrader's plugin interface."""

    penalty_method = Enum(("none", "zero", "per_day"), default_value="per_day",
                          help="'none': no penalty; 'zero': the score becomes 0 (nbgrader's methods); 'per_day': "
                               "percent_per_day percent of the score per started day late, at most max_percent "
                               "percent").tag(config=True)
    percent_per_day = Float(10.0, min=0.0, max=100.0, help="percent of the score taken off per started day late"
                            ).tag(config=True)
    max_percent = Float(50.0, min=0.0, max=100.0, help="the most a late submission loses, in percent of its score"
                        ).tag(config=True)
    grace_minutes = Float(0.0, min=0.0, help="minutes after the due date that do not count as late").tag(config=True)

    def days_late(self, total_seconds_late):
        """The number of (started) days the policy counts, after the grace period."""
        late = float(total_seconds_late) - 60.0 * self.grace_minutes
        return 0 if late <= 0 else math.ceil(late / DAY_SECONDS)

    def late_submission_penalty(self, student_id, score, total_seconds_late):
        if self.penalty_method != "per_day":
            return super().late_submission_penalty(student_id, score, total_seconds_late)
        percent = min(self.max_percent, self.percent_per_day * self.days_late(total_seconds_late))
        return round(float(score) * percent / 100.0, 6)


# --------------------------------------------------------------------------- extensions.csv
def path(course):
    return Path(course.root) / EXTENSIONS


def parse_due(text):
    """An ISO 8601 date and time with its time zone, as nbgrader keeps times: naive UTC.  ValueError if not."""
    when = datetime.datetime.fromisoformat(text.strip())
    if when.tzinfo is None or when.utcoffset() is None:
        raise ValueError("no time zone (write Z or +09:00, say)")
    try:
        utc = (when - when.utcoffset()).replace(tzinfo=None)
    except OverflowError:           # 9999-12-31T23:59-14:00, 0001-01-01T00:00+01:00: no such instant in UTC
        raise OutOfRange() from None
    if not MIN_YEAR <= utc.year <= MAX_YEAR:
        raise OutOfRange()
    return utc


class OutOfRange(ValueError):
    """A due date outside ``MIN_YEAR`` to ``MAX_YEAR`` in UTC."""

    def __str__(self):
        return f"out of range: a year from {MIN_YEAR} to {MAX_YEAR} in UTC"


def read(course):
    """{(student, assignment): due date, naive UTC} from the course's extensions.csv ({} without one).

    A one-line NotebookError names the first bad row (or the file, when it cannot be read at all)."""
    return {key: due for key, (due, _) in read_rows(course).items()}


def read_rows(course):
    """{(student, assignment): (due date, naive UTC; the row's number in the file)}, as ``read``."""
    source = path(course)
    try:
        with open(source, "rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise NotebookError(f"{EXTENSIONS}: cannot be read ({type(error).__name__})") from None
    if len(data) > MAX_BYTES:
        raise NotebookError(f"{EXTENSIONS}: larger than {MAX_BYTES >> 10} kB; one row per extension is far less")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise NotebookError(f"{EXTENSIONS}: not UTF-8 (save it as CSV UTF-8)") from None
    known = {exercise.assignment for exercise in course.exercises}
    rows = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [cell.strip().lower() for cell in next(rows, [])]
    except csv.Error as error:
        raise NotebookError(f"{EXTENSIONS}, row 1: {error}") from None
    if not set(COLUMNS) <= set(header):
        raise NotebookError(f"{EXTENSIONS}, row 1: the header must name the columns student, assignment, due "
                            f"(found {safe.quoted(','.join(header))[:200]})")
    where = {column: header.index(column) for column in COLUMNS}
    extensions, first_row = {}, {}
    number = 1
    try:
        for number, row in enumerate(rows, start=2):
            if number > MAX_ROWS + 1:
                raise NotebookError(f"{EXTENSIONS}: more than {MAX_ROWS} rows")
            if not any(cell.strip() for cell in row):
                continue                                   # a blank line, as spreadsheets leave them
            key, due = _row(row, where, number, known)
            if key in first_row:
                raise NotebookError(f"{EXTENSIONS}, row {number}: {safe.quoted(key[0])} already has a due date for "
                                    f"{key[1]} (row {first_row[key]}); keep one")
            first_row[key], extensions[key] = number, (due, number)
    except csv.Error as error:
        raise NotebookError(f"{EXTENSIONS}, row {number}: {error}") from None
    return extensions


def _row(row, where, number, known):
    cells = {column: (row[index].strip() if index < len(row) else "") for column, index in where.items()}
    student, assignment, due = cells["student"], cells["assignment"], cells["due"]
    if not student or len(student) > MAX_STUDENT or not student.isprintable():
        raise NotebookError(f"{EXTENSIONS}, row {number}: the student must be a student id "
                            f"(at most {MAX_STUDENT} characters), not {safe.quoted(student[:MAX_STUDENT])}")
    if assignment not in known:
        raise NotebookError(f"{EXTENSIONS}, row {number}: no assignment {safe.quoted(assignment[:MAX_ASSIGNMENT])} "
                            f"in the course (it has: {', '.join(sorted(known))})")
    try:
        when = parse_due(due)
    except OutOfRange as error:
        raise NotebookError(f"{EXTENSIONS}, row {number}: the due date {safe.quoted(due[:64])} is {error}") from None
    except ValueError as error:
        raise NotebookError(f"{EXTENSIONS}, row {number}: the due date {safe.quoted(due[:64])} is not an ISO 8601 "
                            f"date and time with its time zone, like 2026-05-12T23:59:00+09:00 ({error})") from None
    return (student, assignment), when


def extension(extensions, assignment_row, student):
    """The timedelta nbgrader's SubmittedAssignment.extension holds for ``student`` (None: the assignment's
    due date), from ``read``'s table and the gradebook's Assignment row."""
    due = extensions.get((student, assignment_row.name))
    if due is None:
        return None
    if assignment_row.duedate is None:
        raise NotebookError(f"{EXTENSIONS} gives {safe.quoted(student)} a due date for {assignment_row.name}, which "
                            f"has none in the gradebook: give the assignment its due date first (from autograder/: "
                            f"nbgrader db assignment add {assignment_row.name} --duedate=...)")
    return due - assignment_row.duedate


def unmatched(course, assignment, students):
    """One line listing the rows of extensions.csv for ``assignment`` whose student is none of ``students``
    (those with a submission of it): a typo, an id in the wrong case, a name for an id, or a student who
    has not submitted yet.  Not an error; None when every row names one."""
    rows = sorted((row, student) for (student, name), (_, row) in read_rows(course).items()
                  if name == assignment and student not in students)
    if not rows:
        return None
    by_case = {}
    for student in sorted(students):
        by_case.setdefault(student.casefold(), []).append(student)
    listed = []
    for row, student in rows[:MAX_ORPHANS]:
        meant = by_case.get(student.casefold(), [])
        hint = f" (did you mean {' or '.join(map(safe.quoted, meant))}?)" if meant else ""
        listed.append(f"row {row} {safe.quoted(student)}{hint}")
    more = f" and {len(rows) - MAX_ORPHANS} more" if len(rows) > MAX_ORPHANS else ""
    return (f"{EXTENSIONS}: {', '.join(listed)}{more}: {'names' if len(rows) == 1 else 'each names'} no student "
            f"with a submission of {assignment}, so it extends no one's due date (a student id, as in "
            f"{course.submitted_directory}/, in its case; or a student who has not submitted yet)")


def untimed(course, assignment):
    """One line naming the students extensions.csv gives a due date for ``assignment`` whose submission
    has no submission time (``timestamp.txt``: an LMS's zip gives none, see ``collect``): nbgrader
    computes no lateness for them, so the extension changes nothing here.  None when there is none."""
    students = sorted(student for (student, name) in read_rows(course) if name == assignment
                      and (course.submitted / student / assignment).is_dir()
                      and not (course.submitted / student / assignment / "timestamp.txt").is_file())
    if not students:
        return None
    return (f"{EXTENSIONS}: {len(students)} student(s) of {assignment} have no submission time (collected from "
            f"an LMS's zip), so no late penalty is computed for them here and their extension changes nothing: "
            f"give it in the LMS ({', '.join(map(safe.quoted, students[:20]))}"
            + (" ..." if len(students) > 20 else "") + ")")


def submitters(course, assignment, graded):
    """The students with a submission of ``assignment``: ``graded`` (those in the gradebook), and those
    collected and not graded yet."""
    students = set(graded)
    if course.submitted.is_dir():
        students |= {folder.parent.name for folder in course.submitted.glob(f"*/{assignment}") if folder.is_dir()}
    return students


# --------------------------------------------------------------------------- the gradebook
def _plugin(config):
    """nbgrader's late-penalty step as the course configures it (its plugin, its clipping)."""
    from nbgrader.preprocessors import AssignLatePenalties
    step = AssignLatePenalties(config=config)
    step.init_plugin()
    return step


def _penalties(step, submission):
    """{notebook name: the late penalty nbgrader's step gives it now}, as AssignLatePenalties computes it."""
    seconds = submission.total_seconds_late
    penalties = {}
    for notebook in submission.notebooks:
        penalty = None
        if seconds > 0:
            penalty = step.plugin_inst.late_submission_penalty(submission.student.id, notebook.score, seconds)
            if penalty is not None:
                penalty = step._check_late_penalty(notebook, penalty)
        penalties[notebook.name] = penalty
    return penalties


def _same(a, b):
    return (a or 0.0) == (b or 0.0) or abs((a or 0.0) - (b or 0.0)) < 1e-9


def _bring_up_to_date(gradebook, course, config, assignment):
    """Set the extension and late penalty of every submission of ``assignment`` in the gradebook's session
    to what extensions.csv and the policy give now (the caller commits or rolls back); return
    (students whose extension changed, students whose penalty changed)."""
    from nbgrader.api import MissingEntry
    try:
        assignment_row = gradebook.find_assignment(assignment)
    except MissingEntry:
        return [], []
    extensions = {key: due for key, due in read(course).items() if key[1] == assignment}
    step = _plugin(config)
    extended, penalised = [], []
    for submission in gradebook.assignment_submissions(assignment):
        student = submission.student.id
        wanted = extension(extensions, assignment_row, student)
        if submission.extension != wanted:
            submission.extension = wanted
            extended.append(student)
        penalties = _penalties(step, submission)
        for notebook in submission.notebooks:
            if not _same(notebook.late_submission_penalty, penalties[notebook.name]):
                notebook.late_submission_penalty = penalties[notebook.name]
                if student not in penalised:
                    penalised.append(student)
    return extended, penalised


def refresh(course, config, assignment, out=sys.stdout):
    """Bring the extensions and late penalties of ``assignment`` in the gradebook up to date (the class run
    calls it before grading); one line says whose penalty changed, one which rows of extensions.csv name
    no student with a submission (``unmatched``).  NotebookError (one line) for a bad extensions.csv,
    before anything is written."""
    from nbgrader.api import Gradebook
    read(course)
    with warnings.catch_warnings():   # nbgrader 0.9 on SQLAlchemy 2 warns about its own autoflush
        warnings.simplefilter("ignore")
        with Gradebook(course.gradebook_url) as gradebook:
            extended, penalised = _bring_up_to_date(gradebook, course, config, assignment)
            gradebook.db.commit()
            graded = [submission.student.id for submission in gradebook.assignment_submissions(assignment)]
    orphans = unmatched(course, assignment, submitters(course, assignment, graded))
    if orphans:
        print(orphans, file=out)
    timeless = untimed(course, assignment)
    if timeless:
        print(timeless, file=out)
    if penalised:
        print(f"{assignment}: the late penalty of {len(penalised)} submission(s) changed ({EXTENSIONS}, the late "
              f"policy or a manual grade since): {', '.join(map(safe.quoted, penalised[:20]))}"
              + (" ..." if len(penalised) > 20 else ""), file=out)
    return penalised


def stale(course, config, assignment):
    """The students of ``assignment`` whose late penalty in the gradebook is not the one extensions.csv and
    the policy give now (nothing is written)."""
    from nbgrader.api import Gradebook
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with Gradebook(course.gradebook_url) as gradebook:
            try:
                return _bring_up_to_date(gradebook, course, config, assignment)[1]
            finally:
                gradebook.db.rollback()


class ApplyExtensions(NbGraderPreprocessor):
    """Sets the extension of the submission being autograded from extensions.csv, before nbgrader's
    AssignLatePenalties reads ``total_seconds_late`` (place it just before that step)."""

    def _course(self):
        from nbgrader.coursedir import CourseDirectory

        from .course import Course
        owner = self.parent
        while owner is not None and getattr(owner, "coursedir", None) is None:
            owner = getattr(owner, "parent", None)
        return Course.from_coursedir(owner.coursedir if owner is not None else CourseDirectory(config=self.config))

    def preprocess(self, nb, resources):
        from nbgrader.api import Gradebook
        info = resources["nbgrader"]
        course = self._course()
        extensions = read(course)
        with Gradebook(info["db_url"]) as gradebook:
            submission = gradebook.find_submission(info["assignment"], info["student"])
            wanted = extension(extensions, submission.assignment, info["student"])
            if submission.extension != wanted:
                submission.extension = wanted
                gradebook.db.commit()
        return nb, resources

    def preprocess_cell(self, cell, resources, index):
        return cell, resources
