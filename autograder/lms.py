"""Grades and feedback back into the LMS (issue 31).

  python -m autograder export ASSIGNMENT --to canvas FILE --column "01 Softmax (1234)"
  python -m autograder export ASSIGNMENT --to moodle FILE [--key email|idnumber|username] [--column NAME]
  python -m autograder release_feedback ASSIGNMENT --to canvas|moodle ZIP

**Grades** are the gradebook's (nbgrader's ``SubmittedAssignment``): ``score`` (the automatic
scores, a manual score where the instructor gave one) minus ``late_submission_penalty``, never
below 0, out of ``max_score``.  A penalty the gradebook holds that extensions.csv, the late policy
or a manual grade given since would change (``late.stale``) stops the export, in one line: the
class run brings them up to date.  Only students with a submission in the gradebook get a row (an
empty cell would leave the LMS's grade as it is anyway); a student the LMS cannot be told (no roster
entry, no Canvas user id, no email ...) is listed in one line and left out, since a row the LMS
cannot match is worse than none (Moodle's import stops at the first user it cannot find).  So are
students who share one identity (Canvas's ``ID``, the Moodle ``--key`` column, compared as the LMS
does: a student collected twice under two ids, a roster giving two students one email): a row the
LMS cannot attribute is worse than none, and which of them is right cannot be known.  Rows of
extensions.csv naming no student with a submission are listed in one line (``late.unmatched``).

* **Canvas**: the gradebook import CSV (Grades > Import; Canvas's ``GradebookImporter``):
  ``Student, ID, SIS User ID, SIS Login ID, Section`` then the assignment's column, named as Canvas's
  own export names it, ``<assignment name> (<Canvas assignment id>)``: only Canvas knows that id,
  so ``--column`` is asked for (copy it from a gradebook export).  Canvas finds each student by
  ``ID``, the Canvas user id: the roster's, else the one ``collect`` read from Canvas's own file
  names (``canvas-<id>``).  ``--points-possible`` adds Canvas's optional "Points Possible" row
  (Canvas then sets the assignment's points to it).
* **Moodle**: the gradebook's CSV import (Grades > Import > CSV file; ``grade/import/csv``):
  ``First name, Last name, ID number, Email address, Username`` and a column for the grade item
  (``--column``, default the assignment id); at import the instructor maps the identity column
  (``--key``: email, the default, ID number or username) to the user and the grade column to the
  assignment's grade item.

Every text cell is made safe for spreadsheets (``safe.spreadsheet_text``); scores are plain
numbers.  An identity cell that would need that guard (an email starting with ``-``) could not be
matched by the LMS once guarded: that student is listed and left out.  The files are UTF-8 with a
byte-order mark: Excel needs it to read the names right when the instructor opens the file to check
it, Canvas writes one itself (its "Include Byte-Order Mark" setting) and finds its header with it,
and Moodle's CSV reader (``csv_import_reader``) strips it.

**Feedback** (``release_feedback``) puts each student's feedback pages
(``autograder/feedback/<student>/<assignment>/*.html``, from ``nbgrader generate_feedback``) in a
zip under the name the LMS matches, rebuilt from where ``collect`` found the submission
(``collect.origins``: the LMS's own folder and file names, kept exactly):

* **Moodle**, "Upload multiple feedback files in a zip" (the assignment's grading table; the
  assignment needs "Feedback files" enabled; ``mod/assign/feedback/file/importziplib.php``):
  Moodle splits each path part at ``_`` into at most five pieces and wants
  ``<name>_<participant id>_<plugin type>_<plugin name>[_<rest>]``: the exported folder
  ``<Full name>_<participant id>_assignsubmission_file_/`` is kept and the page goes inside it
  (a flat export, without folders: the same prefix before the page's name).
* **Canvas**, "Re-Upload Submissions" (the assignment's page; ``Assignment#generate_comments_from_files``):
  Canvas reads the first two all-digit pieces of a file name split at ``_`` as the user id and
  the id of a file that student submitted, and attaches the file to a comment on that submission
  ("See attached file"), under that submitted file's name.  The page keeps the exported prefix
  ``<name>[_LATE]_<user id>_<attachment id>_``; a student who submitted again since the download
  is not matched by Canvas (the file is no longer the submission's).

Two students claiming the same name in the zip, or the same participant (Moodle) or user id
(Canvas), are a student collected twice under two ids (before and after the roster, say): none of
their pages go in, since which one is right cannot be known, and one line names them and the
contested name.  A student with feedback but no record of where the submission came from is listed in one line;
the pages are bounded (``MAX_PAGE_BYTES``, ``MAX_PAGES_PER_STUDENT``, ``MAX_ZIP_BYTES``); links are
never followed; the zip is written beside its destination and moved there when complete.  A page
loads MathJax 3 from the course's ``autograder/feedback/mathjax``, which the LMS does not have: its
formulas show as their TeX source there.
"""
import csv
import os
import re
import sys
import tempfile
import warnings
import zipfile
from pathlib import Path, PurePosixPath
from typing import Callable, NamedTuple

from . import safe
from .safe import FORMULA_STARTS, spreadsheet_text
from .notebooks import NotebookError

COMMANDS = ("export", "release_feedback")
LMSES = ("canvas", "moodle")
CANVAS_HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
MOODLE_HEADER = ["First name", "Last name", "ID number", "Email address", "Username"]
MOODLE_KEYS = {"email": ("email", "Email address"), "idnumber": ("sis_id", "ID number"),
               "username": ("login", "Username")}
CANVAS_COLUMN = re.compile(r".+ \([0-9]{1,20}\)")    # "<assignment name> (<Canvas assignment id>)"
MAX_COLUMN = 255
MAX_PAGE_BYTES = 32 << 20          # one feedback page (its images are inline)
MAX_PAGES_PER_STUDENT = 8
MAX_ZIP_BYTES = 2 << 30            # what an LMS upload takes is far less; said when it is large
ENCODING = "utf-8-sig"             # UTF-8 with a byte-order mark (see the module docstring)
_DIGITS = re.compile(r"[0-9]+")


# --------------------------------------------------------------------------- the command line
def add_parsers(commands):
    export = commands.add_parser("export", help="grades as the LMS's gradebook imports them (Canvas or Moodle CSV)")
    export.add_argument("assignment", help="e.g. 01_softmax")
    export.add_argument("--to", required=True, choices=LMSES, help="the LMS the file is for")
    export.add_argument("file", help="the CSV file to write")
    export.add_argument("--column", help="the grade column's name: for Canvas, as its gradebook export names the "
                                         "assignment, '<name> (<assignment id>)' (required); for Moodle, any name "
                                         "(default: the assignment id), mapped to the grade item at import")
    export.add_argument("--key", choices=sorted(MOODLE_KEYS), default="email",
                        help="Moodle: the user field the import matches rows by (default: email)")
    export.add_argument("--points-possible", action="store_true",
                        help="Canvas: add the 'Points Possible' row (Canvas then sets the assignment's points)")
    export.add_argument("--partial", action="store_true",
                        help="export even while written answers await hand grading (the scores so far)")
    export.add_argument("--course-root", help="course folder (default: the repository)")
    feedback = commands.add_parser("release_feedback", help="every student's feedback page in a zip the LMS's "
                                                            "bulk upload matches (Canvas or Moodle)")
    feedback.add_argument("assignment", help="e.g. 01_softmax")
    feedback.add_argument("--to", required=True, choices=LMSES, help="the LMS the zip is for")
    feedback.add_argument("zip", help="the zip file to write")
    feedback.add_argument("--course-root", help="course folder (default: the repository)")


def main(args):
    from . import course as courses
    config = courses.load_config(args.course_root)
    course = courses.from_config(config)
    if args.command == "export":
        lines = export(course, config, args.assignment, args.to, Path(args.file), column=args.column,
                       key=args.key, points_possible=args.points_possible, partial=args.partial)
    else:
        lines = release_feedback(course, args.assignment, args.to, Path(args.zip))
    for line in lines:
        print(safe.terminal(line, encoding=getattr(sys.stdout, "encoding", None)))
    return 0


def _names(course, students, most=30):
    """The students, as the roster names them, on one line (at most ``most`` of them, then how many more)."""
    from . import roster
    shown = ", ".join(safe.quoted(roster.label(course, student)) for student in students[:most])
    return shown + (f" and {len(students) - most} more" if len(students) > most else "")


# --------------------------------------------------------------------------- grades
def number(value):
    """A score as a spreadsheet and both LMSs read it: a plain decimal, at most 4 places, no exponent."""
    text = f"{round(float(value), 4) + 0.0:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _grades(course, assignment):
    """({student: score after the late penalty}, the assignment's max score, {student: points of written
    answers nobody has graded yet}) of every submission of ``assignment`` in the gradebook; NotebookError
    when the gradebook has none."""
    from nbgrader.api import Gradebook, MissingEntry

    from .feedback import awaits_grading
    with warnings.catch_warnings():   # nbgrader 0.9 on SQLAlchemy 2 warns about its own autoflush
        warnings.simplefilter("ignore")
        with Gradebook(course.gradebook_url) as gradebook:
            try:
                max_score = float(gradebook.find_assignment(assignment).max_score)
            except MissingEntry:
                raise NotebookError(f"the gradebook has no grades of {assignment}: grade it first "
                                    f"(python -m autograder grade {assignment})") from None
            grades, awaiting = {}, {}
            for submission in gradebook.assignment_submissions(assignment):
                penalty = float(submission.late_submission_penalty or 0.0)
                grades[submission.student.id] = max(0.0, float(submission.score) - penalty)
                waiting = sum(grade.max_score for notebook in submission.notebooks for grade in notebook.grades
                              if awaits_grading(grade))
                if waiting:
                    awaiting[submission.student.id] = float(waiting)
    return grades, max_score, awaiting


def _awaiting_line(course, assignment, awaiting):
    """The line naming the students whose written answers nobody has graded yet (``feedback.awaits_grading``)."""
    points = sum(awaiting.values())
    return (f"{len(awaiting)} student(s) of {assignment} have written answers not graded yet ({points:g} points in "
            f"all; grade them in Formgrader): {_names(course, sorted(awaiting), 10)}")


def _check_column(column, lms):
    if column is None:
        return
    if not column.strip() or len(column) > MAX_COLUMN or not column.isprintable():
        raise NotebookError(f"--column: a name of 1 to {MAX_COLUMN} printable characters, not {safe.quoted(column)}")
    if column.startswith(FORMULA_STARTS):
        raise NotebookError(f"--column {safe.quoted(column)}: a column name starting with = + - @ would be a formula "
                            f"in a spreadsheet; name it otherwise")
    if lms == "canvas" and not CANVAS_COLUMN.fullmatch(column):
        raise NotebookError(f"--column {safe.quoted(column)}: Canvas names an assignment's column "
                            f"'<name> (<assignment id>)', e.g. '01 Softmax (1234)'; copy it from a gradebook export")


def _canvas_id(entry, student):
    """The Canvas user id of a student: the roster's, else the one collect read from Canvas's file names."""
    if entry is not None and _DIGITS.fullmatch(entry.lms_id or ""):
        return entry.lms_id
    match = re.fullmatch(r"canvas-([0-9]{1,20})", student)
    return match.group(1) if match else None


def _canvas_name(entry, student):
    if entry is None:
        return student
    if entry.last_name and entry.first_name:
        return f"{entry.last_name}, {entry.first_name}"     # Canvas's sortable name
    return entry.display


def export(course, config, assignment, lms, destination, *, column=None, key="email", points_possible=False,
           partial=False):
    """Write the grades of ``assignment`` as ``lms`` imports them into ``destination``; return the lines to print."""
    from . import late, roster
    course.exercise(assignment)                    # a typo: one line listing the course's assignments
    if lms == "canvas" and column is None:
        raise NotebookError("--column is required for Canvas: the assignment's column as Canvas's gradebook export "
                            "names it, '<name> (<assignment id>)', e.g. --column '01 Softmax (1234)'")
    _check_column(column, lms)
    stale = late.stale(course, config, assignment)
    if stale:
        raise NotebookError(f"the late penalty of {len(stale)} submission(s) of {assignment} in the gradebook is out "
                            f"of date (extensions.csv, the late policy or a manual grade changed since): run "
                            f"python -m autograder grade {assignment} first ({_names(course, stale, 5)})")
    grades, max_score, awaiting = _grades(course, assignment)
    if awaiting and not partial:   # scores so far, uploaded as if final, are the LMS's grades from then on
        raise NotebookError(_awaiting_line(course, assignment, awaiting) + "; or export the scores so far with "
                            "--partial")
    entries = roster.by_student(course)
    claims, unmatched, unsafe = {}, [], []     # claims: {the LMS identity as the LMS compares it: [(student, row)]}
    for student in sorted(grades, key=lambda s: (entries[s].display if s in entries else s).casefold()):
        entry = entries.get(student)
        score = number(grades[student])
        if lms == "canvas":
            canvas_id = identity = _canvas_id(entry, student)
            if canvas_id is None:
                unmatched.append(student)
                continue
            text = [_canvas_name(entry, student), canvas_id] + \
                   [getattr(entry, field, "") if entry else "" for field in ("sis_id", "login", "section")]
            same = _number(canvas_id)
        else:
            field, _ = MOODLE_KEYS[key]
            identity = getattr(entry, field, "") if entry is not None else ""
            if not identity:
                unmatched.append(student)
                continue
            if identity.startswith(FORMULA_STARTS):
                unsafe.append(student)
                continue
            text = [entry.first_name or entry.display, entry.last_name, entry.sis_id, entry.email, entry.login]
            same = identity.strip() if key == "idnumber" else identity.strip().casefold()   # Moodle: any case
        claims.setdefault(same, []).append((student, identity, [spreadsheet_text(cell) for cell in text] + [score]))
    rows = [row for claimed in claims.values() if len(claimed) == 1 for _, _, row in claimed]
    shared = sorted((claimed for claimed in claims.values() if len(claimed) > 1),
                    key=lambda claimed: sorted(student for student, _, _ in claimed))
    identity = "Canvas user id" if lms == "canvas" else f"{MOODLE_KEYS[key][1]} in the roster"
    reasons = []
    if unmatched:
        reasons.append(f"not written, no {identity} (import the roster: python -m autograder roster import FILE): "
                       + _names(course, unmatched))
    if unsafe:
        reasons.append(f"not written, their {MOODLE_KEYS[key][1]} starts with = + - @ (a spreadsheet formula; "
                       f"use another --key): " + _names(course, unsafe))
    if shared:
        shown = "; ".join(f"{' and '.join(sorted(safe.quoted(student) for student, _, _ in claimed))} have "
                          f"{' and '.join(sorted({safe.quoted(value) for _, value, _ in claimed}))}"
                          for claimed in shared[:10]) + (f" and {len(shared) - 10} more" if len(shared) > 10 else "")
        reasons.append(f"not written, students with the same {identity} (whose grade a row is could not be known): "
                       f"{shown}; either a student was collected under two ids (remove the stale one: its folders "
                       f"under {course.submitted_directory}/ and {course.feedback_directory}/, and from autograder/: "
                       f"nbgrader db student remove ID --force) or the roster gives two students one")
    if not rows:
        raise NotebookError(f"no grade of {assignment} to write for {lms}: "
                            + ("; ".join(reasons) or "the gradebook holds no submission"))
    header = (CANVAS_HEADER if lms == "canvas" else MOODLE_HEADER) + [column or assignment]
    extra = []
    if lms == "canvas" and points_possible:
        extra = [["Points Possible", "", "", "", "", number(max_score)]]
    _write_atomically(destination, lambda handle: _write_csv(handle, header, extra + rows), text=True)
    lines = [f"wrote {destination}: {len(rows)} grade(s) of {assignment} (out of {number(max_score)}) for "
             f"{'Canvas: Grades > Import' if lms == 'canvas' else 'Moodle: Grades > Import > CSV file'}"]
    orphans = late.unmatched(course, assignment, late.submitters(course, assignment, grades))
    return lines + reasons + ([orphans] if orphans else []) + \
        ([_awaiting_line(course, assignment, awaiting) + " (--partial: these scores are not final)"] if awaiting else [])


def _write_csv(handle, header, rows):
    writer = csv.writer(handle)        # minimal quoting, CRLF line ends (RFC 4180, as both LMSs export)
    writer.writerow([spreadsheet_text(cell) for cell in header])
    writer.writerows(rows)


def _write_atomically(destination, write, text=False):
    """Write ``destination`` through a temporary file beside it, moved into place when complete."""
    destination = Path(destination)
    if destination.is_dir():
        raise NotebookError(f"{safe.quoted(str(destination))} is a folder: give the file to write")
    if not destination.parent.is_dir():
        raise NotebookError(f"{safe.quoted(str(destination.parent))}: no such folder")
    handle, temporary = tempfile.mkstemp(prefix=".partial-", dir=destination.parent)
    try:
        with (open(handle, "w", encoding=ENCODING, newline="") if text else open(handle, "wb")) as stream:
            write(stream)
        os.replace(temporary, destination)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# --------------------------------------------------------------------------- feedback
def moodle_prefix(name):
    """(participant id, the prefix Moodle's zip importer strips) of one path part, by its rule: split at ``_``
    into at most five pieces, the second a number, a plugin type and name as third and fourth; else None."""
    pieces = name.split("_", 4)
    if len(pieces) < 4 or not _DIGITS.fullmatch(pieces[1]) or not pieces[2] or not pieces[3]:
        return None
    return pieces[1], "_".join(pieces[:4]) + "_"


def canvas_prefix(name):
    """(user id, attachment id, the prefix up to them) of a file name Canvas exported, by the rule its re-upload
    reads: the first two all-digit pieces of the name split at ``_``; else None."""
    pieces = name.split("_")
    digits = [index for index, piece in enumerate(pieces) if _DIGITS.fullmatch(piece)][:2]
    if len(digits) < 2:
        return None
    return pieces[digits[0]], pieces[digits[1]], "_".join(pieces[:digits[1] + 1]) + "_"


def _pages(course, student, assignment):
    """The student's feedback pages of ``assignment``: regular files only, never through a link."""
    folder = course.feedback / student / assignment
    if folder.is_symlink() or not folder.is_dir():
        return []
    return sorted(path for path in folder.glob("*.html") if path.is_file() and not path.is_symlink())


class _Target(NamedTuple):
    """Where a student's pages go in the zip: ``identity``, the number the LMS reads from the names (Moodle's
    participant, Canvas's user id); ``prefix``, the exported folder or file-name prefix kept; ``name``, the
    zip entry's name of a page (a function of the page's file name)."""
    identity: str
    prefix: str
    name: Callable[[str], str]


def _feedback_names(lms, student, origin, notebook):
    """The ``_Target`` the LMS matches to ``student``, rebuilt from where collect found the submission; or
    the reason (str) why there is none."""
    if not origin:
        return "no record of where the submission came from"
    if origin.get("lms") != lms:
        return f"collected from {origin.get('lms') or 'an unknown LMS'}, not {lms}"
    files = [name for name in origin.get("files") or [] if isinstance(name, str)]
    number = str(origin.get("participant") or "")      # the LMS's number in its names, as collect read it
    if not number and lms == "canvas" and re.fullmatch(r"canvas-[0-9]{1,20}", student):
        number = student.removeprefix("canvas-")
    if lms == "moodle":
        folder = origin.get("folder") or ""
        if folder:
            parsed = moodle_prefix(folder)
            if "/" in folder or parsed is None or (number and parsed[0] != number):
                return f"the folder {safe.quoted(folder)} is not one Moodle's importer reads as the student's"
            return _Target(_number(parsed[0]), folder, lambda page: f"{folder}/{page}")
        prefixes = {moodle_prefix(PurePosixPath(name).name) for name in files} - {None}
        if len(prefixes) != 1 or (number and next(iter(prefixes))[0] != number):
            return "no file name Moodle's importer reads as the student's"
        (participant, prefix), = prefixes
        return _Target(_number(participant), prefix, lambda page: prefix + page)
    for name in sorted(files, key=lambda name: (not name.endswith(".ipynb"), name)):   # a notebook first
        parsed = canvas_prefix(PurePosixPath(name).name)
        if parsed and number and parsed[0] == number:
            return _Target(_number(parsed[0]), parsed[2], lambda page, prefix=parsed[2]: prefix + page)
    return "no file name of Canvas's with the student's user id"


def _number(digits):
    """An LMS's id as the LMS compares it: a number (Canvas's "0101" is its user 101)."""
    return str(int(digits))


def _contested(lms, assignment, course, claimed):
    """The students whose pages cannot go in the zip because another student claims the same LMS identity
    or the same entry name (collected twice under two ids: which one is the LMS's cannot be known), and the
    line naming them; ``claimed`` is [(student, pages, _Target)]."""
    by_identity, by_name = {}, {}
    for student, pages, target in claimed:
        by_identity.setdefault(target.identity, []).append((student, target.prefix))
        for page in pages:
            by_name.setdefault(target.name(page.name), []).append((student, target.prefix))
    groups = [claims for claims in by_identity.values() if len(claims) > 1]
    grouped = {student for claims in groups for student, _ in claims}
    groups += [claims for claims in by_name.values()           # the same name is the same identity: a safeguard
               if len({student for student, _ in claims}) > 1 and not grouped & {student for student, _ in claims}]
    if not groups:
        return set(), None
    what = "Canvas user id" if lms == "canvas" else "Moodle participant"
    shown = []
    for claims in groups[:10]:
        students = sorted({student for student, _ in claims})
        prefixes = sorted({prefix for _, prefix in claims})
        shown.append(f"{' and '.join(map(safe.quoted, students))} claim {' and '.join(map(safe.quoted, prefixes))}")
    more = f" and {len(groups) - 10} more" if len(groups) > 10 else ""
    line = (f"not in the zip, students claiming the same {what} (which one's pages are right cannot be known): "
            f"{'; '.join(shown)}{more}; remove the stale student's folder under {course.submitted_directory}/ "
            f"and {course.feedback_directory}/ and collect {assignment} again")
    return {student for claims in groups for student, _ in claims}, line


def release_feedback(course, assignment, lms, destination):
    """Zip every student's feedback pages of ``assignment`` as ``lms``'s bulk upload matches them; return the
    lines to print."""
    from . import collect
    exercise = course.exercise(assignment)
    origins = collect.origins(course, assignment)
    notebook = exercise.notebook
    students = sorted(p.parent.name for p in course.feedback.glob(f"*/{assignment}") if p.is_dir())
    claimed, left_out = [], {}
    for student in students:
        pages = _pages(course, student, assignment)
        if not pages:
            continue
        target = _feedback_names(lms, student, origins.get(student), notebook)
        if isinstance(target, str):
            left_out.setdefault(target, []).append(student)
            continue
        claimed.append((student, pages, target))
    contested, contest = _contested(lms, assignment, course, claimed)
    planned, total = [], 0
    for student, pages, target in claimed:
        if student in contested:
            continue
        if len(pages) > MAX_PAGES_PER_STUDENT:
            left_out.setdefault(f"more than {MAX_PAGES_PER_STUDENT} pages", []).append(student)
            continue
        sizes = [page.stat().st_size for page in pages]
        if max(sizes) > MAX_PAGE_BYTES:
            left_out.setdefault(f"a page larger than {MAX_PAGE_BYTES >> 20} MiB", []).append(student)
            continue
        total += sum(sizes)
        if total > MAX_ZIP_BYTES:
            raise NotebookError(f"the feedback of {assignment} is larger than {MAX_ZIP_BYTES >> 30} GiB: no LMS takes "
                                f"such an upload")
        planned.append((student, [(page, target.name(page.name)) for page in pages]))
    if not planned:
        reasons = "; ".join([f"{reason}: {len(who)}" for reason, who in left_out.items()]
                            + ([contest] if contest else []))
        raise NotebookError(f"no feedback of {assignment} to release to {lms}"
                            + (f" ({reasons})" if reasons else f" (run nbgrader generate_feedback {assignment} "
                                                              f"from autograder/ first)"))

    def write(stream):
        with zipfile.ZipFile(stream, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            for _, pages in planned:
                for page, name in pages:
                    with open(page, "rb") as source, archive.open(name, "w", force_zip64=True) as target:
                        while chunk := source.read(1 << 20):
                            target.write(chunk)
    _write_atomically(destination, write)
    where = ("Canvas: the assignment's Re-Upload Submissions" if lms == "canvas"
             else "Moodle: the assignment's 'Upload multiple feedback files in a zip'")
    lines = [f"wrote {destination}: the feedback of {len(planned)} student(s) "
             f"({sum(len(p) for _, p in planned)} page(s), {total / (1 << 20):.1f} MiB) for {where}"]
    for reason, who in left_out.items():
        lines.append(f"not in the zip, {reason}: " + _names(course, who))
    return lines + ([contest] if contest else [])

