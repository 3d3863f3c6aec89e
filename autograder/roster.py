"""The class list: ``python -m autograder roster import FILE [--assignment NN_name]`` (issue 31).

An LMS knows who is in the class; the zips of submissions only name who submitted, and
under an id that differs between LMSs (and, on Moodle, between assignments).  The roster is
the class list an LMS exports, read once a term (and again when students join), kept in
``<course root>/autograder/roster.json`` (git-ignored, like the rest of autograder/'s state)::

  {"lms": "canvas" | "moodle", "imported_from": "<file name>", "students": [
    {"student": "canvas-12345", "name": "Zoë Martin", "first_name": "Zoë", "last_name": "Martin",
     "email": "zoe@uni.example", "lms_id": "12345", "sis_id": "", "login": "", "section": "",
     "participants": {"01_softmax": "123456"}}]}

The files it reads, told apart by their header row (the English header the LMS writes):

* **Canvas's gradebook export** (Grades > Export > Export Entire Gradebook; Canvas's
  ``lib/gradebook_exporter.rb``): ``Student, ID, [SIS User ID,] SIS Login ID, [Integration ID,]
  [Root Account,] Section`` then a column per assignment (or ``LastName, FirstName`` instead of
  ``Student`` when the course shows names that way); a "Manual Posting" row and a
  "    Points Possible" row follow the header.  ``Student`` is Canvas's sortable name,
  "Last, First"; a name that starts with ``=`` is written ``="..."`` (Canvas's guard against
  formulas) and read back.  Canvas's own Test Student ("Student, Test") is left out, and said.
  The student id is ``canvas-<ID>``, the id ``collect`` gives from Canvas's zip.
* **Moodle's participants download** (Participants > select all > "Download table data as"
  CSV; ``user/action_redir.php``): ``First name, Last name`` then the site's identity fields
  (``Email address`` by default; ``ID number``, ``Username`` where the site shows them), and
  ``Roles``: a participant who is not a ``Student`` (a teacher) is left out, and said.
* **Moodle's gradebook export** (Grades > Export > Plain text file; ``grade/export/txt``):
  ``First name, Last name, ID number, Institution, Department, Email address``, the grade
  items, ``Last downloaded from this course``; comma, semicolon, colon or tab separated
  (the export's "Separator" option).
* **Moodle's grading worksheet** of one assignment (the assignment's "Download grading
  worksheet", ``mod/assign/feedback/offline``): ``Identifier`` ("Participant 123456"), ``Full
  name``, the identity fields, ``Status``, ``Grade``, ...  It is the only file that ties
  Moodle's participant numbers (which name the folders of its zips, blind marking included)
  to people, so it is imported with the assignment it belongs to (``--assignment 01_softmax``),
  after the participants; each row is tied to a roster entry by its ID number or email, never by
  its name (a learner may rename herself like a classmate in Moodle), and two rows tied to one
  student are tied to neither.

A Moodle student's id comes from the stable fields Moodle exports, never from a name:
``moodle-id-<ID number>-<digest>`` when the ID number is there, else ``moodle-<email>-<digest>``
(the readable part lower case, ``@`` written ``-at-``, every other run of characters outside
``[a-z0-9]`` written ``-``; the digest is of the whole field, so the id depends on that field
alone and never on the order of the rows: roster.json made again from the same exports gives the
same ids).  Ids are ``[a-z0-9-]`` only and never all digits after ``moodle-``, so they never meet
the ``moodle-<participant number>`` that ``collect`` falls back to.  An id, once given, is kept:
importing again ties each row to its entry by the LMS's ids (Canvas's user id alone; Moodle's ID
number, else email) and updates it, so a later export adds students and refreshes names and never
changes an id; students missing from the new file are kept and counted.  A row tied by its email
alone that bears another person's name (Moodle gave the address to someone else) stops the import
with one line: merged, it would take the first person's id and grades.  Without ID numbers, a
student whose email changes becomes a new student (show ID numbers in the export to avoid it).

UTF-8 with or without Excel's byte order mark, and UTF-16 with one (Excel's "Unicode text")
are read; the file is bounded (MAX_FILE_BYTES, MAX_ROWS); a file of none of these formats is
one line saying which headers were expected.  Each import prints one summary line.  The
students go to nbgrader's gradebook too (``Student``: first name, last name, email), so
formgrader and ``nbgrader export`` show them, and the report can list who submitted nothing.
"""
import csv
import dataclasses
import hashlib
import io
import json
import os
import re
import unicodedata
import warnings
from pathlib import Path

from . import safe
from .notebooks import NotebookError

COMMANDS = ("roster",)
ROSTER = "autograder/roster.json"
MAX_FILE_BYTES = 8 << 20       # a class list of 20 000 rows with 100 grade columns fits
MAX_ROWS = 20_000
MAX_FIELD = 1024               # characters of one cell (a longer one is no LMS's)
MAX_NAME = 128                 # nbgrader's Student columns
MAX_ID = 96                    # nbgrader's Student.id holds 128
SEPARATORS = (",", ";", "\t", ":")
TEST_STUDENT = "Student, Test"     # Canvas's "Test Student" (student view), sortable name
STUDENT_ROLE = "Student"           # Moodle's role of the students (its participants page lists every role)
CANVAS_ID = re.compile(r"[0-9]{1,20}")
STUDENT_ID = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,126}[a-z0-9])?")   # a roster id names folders: nothing else
PARTICIPANT = re.compile(r"([0-9]{1,20})\s*$")   # "Participant 123456": Moodle strips its word, keeps the number
# What Moodle's clean_filename (PARAM_FILE) removes from a name in a folder of its zips.
_FILENAME_REMOVED = re.compile(r"[\x00-\x1f\x7f&<>\"`|':\\/]")

FORMATS = {
    "canvas": "Canvas gradebook export",
    "moodle-participants": "Moodle participants download",
    "moodle-grades": "Moodle gradebook export",
    "moodle-worksheet": "Moodle grading worksheet",
}
EXPECTED = ("a Canvas gradebook export (Student, ID, SIS Login ID, Section, ...), a Moodle participants download "
            "(First name, Last name, Email address, ...), a Moodle gradebook export (First name, Last name, "
            "ID number, ..., Email address, ...) or a Moodle grading worksheet (Identifier, Full name, ..., "
            "Status, Grade, ...)")


@dataclasses.dataclass
class Entry:
    """One student of the roster (module docstring)."""
    student: str
    name: str = ""
    first_name: str = ""
    last_name: str = ""
    email: str = ""
    lms_id: str = ""            # Canvas's user id ("" on Moodle: its exports do not give it)
    sis_id: str = ""            # Canvas's SIS User ID, Moodle's ID number
    login: str = ""             # Canvas's SIS Login ID, Moodle's username
    section: str = ""
    participants: dict = dataclasses.field(default_factory=dict)   # {assignment: Moodle participant number}

    @property
    def display(self):
        """The name to show: the LMS's full name, else first and last, else the id."""
        return self.name or " ".join(p for p in (self.first_name, self.last_name) if p) or self.student


def _root(course):
    """The root of a course.Course, or a course folder given as a path."""
    return Path(course) if isinstance(course, (str, os.PathLike)) else Path(course.root)


def path(course):
    return _root(course) / ROSTER


def _read(course):
    """(lms, entries, left out) of the course's roster: (None, [], {}) when it has none.  A file that is
    not what ``write`` writes (edited by hand, cut short) is one line naming it."""
    file = path(course)
    if not file.is_file():
        return None, [], {}
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
        entries = [_entry(e) for e in data["students"]]
        left = data.get("left_out", {})
        if data.get("lms") not in ("canvas", "moodle") or not isinstance(left, dict) or \
                not all(isinstance(k, str) and isinstance(v, str) for k, v in left.items()):
            raise ValueError("not a roster this command wrote")
    except (ValueError, TypeError, KeyError, AttributeError, OSError) as error:
        raise NotebookError(f"{file} cannot be read ({type(error).__name__}: {error}): import the class list "
                            "again (python -m autograder roster import FILE)") from None
    return data["lms"], entries, left


def _entry(record):
    """An Entry from one student of roster.json, every field checked (TypeError otherwise)."""
    fields = {f.name for f in dataclasses.fields(Entry)}
    if not isinstance(record, dict) or not isinstance(record.get("student"), str) or \
            not STUDENT_ID.fullmatch(record["student"]):
        raise TypeError("a student without a valid id")
    values = {k: v for k, v in record.items() if k in fields}
    if not all(isinstance(v, str) for k, v in values.items() if k != "participants"):
        raise TypeError(f"a field of {record['student']} that is not text")
    participants = values.get("participants", {})
    if not isinstance(participants, dict) or \
            not all(isinstance(k, str) and isinstance(v, str) for k, v in participants.items()):
        raise TypeError(f"the participant numbers of {record['student']} are not text")
    return Entry(**{**values, "participants": dict(participants)})


def load(course):
    """The roster's entries, in its order (empty when the course has no roster)."""
    return _read(course)[1]


def left_out(course):
    """{Canvas user id: why} of the people an import left out of the roster (Canvas's Test Student),
    whom ``collect`` skips."""
    return _read(course)[2]


def by_student(course):
    """{student id: Entry}."""
    return {entry.student: entry for entry in load(course)}


def label(course, student, entries=None):
    """"Name (student)" for a student of the roster, else the id; the name made safe for one line."""
    entry = (entries if entries is not None else by_student(course)).get(student)
    if entry is None or entry.display == student:
        return student
    return f"{safe.terminal(entry.display, limit=MAX_NAME)} ({student})"


# --------------------------------------------------------------------------- names
def name_key(name):
    """A name as two spellings of it compare: NFC, case-folded, "_" as Moodle's folders write it
    (a space), the characters Moodle's file names drop removed, whitespace runs as one space."""
    name = unicodedata.normalize("NFC", name or "").replace("_", " ")
    return " ".join(_FILENAME_REMOVED.sub("", name).casefold().split())


def name_keys(entry):
    """Every way an LMS may write the entry's full name: its own, "First Last" and "Last First"
    (Moodle's fullname follows the site's language: "Martin Zoë" on a Japanese site)."""
    keys = {name_key(entry.name)}
    if entry.first_name or entry.last_name:
        keys |= {name_key(f"{entry.first_name} {entry.last_name}"), name_key(f"{entry.last_name} {entry.first_name}")}
    return keys - {""}


def by_name(entries):
    """{name key: [entries]}."""
    found = {}
    for entry in entries:
        for key in name_keys(entry):
            found.setdefault(key, []).append(entry)
    return found


# --------------------------------------------------------------------------- reading a file
def _clean(value, limit=MAX_NAME):
    """A cell as the roster keeps it: NFC, one line, no control characters, bounded."""
    return " ".join(safe.clean(unicodedata.normalize("NFC", value or "")).split())[:limit]


def _decode(data, name):
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    elif data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise NotebookError(f"{safe.quoted(name)} is not UTF-8 text: export it again as UTF-8 (in a spreadsheet, "
                            "save it as \"CSV UTF-8\")") from None


def _kind(header):
    """The format a header row is, or None."""
    cells = set(header)
    if {"ID", "SIS Login ID", "Section"} <= cells and ("Student" in cells or {"LastName", "FirstName"} <= cells):
        return "canvas"
    if "Identifier" in cells and {"Status", "Grade"} <= cells:
        return "moodle-worksheet"
    if "First name" in cells and cells & {"Last name", "Surname"}:
        return "moodle-grades" if "Last downloaded from this course" in cells else "moodle-participants"
    return None


def read_table(file):
    """(kind, header, rows) of a class list: rows as lists of cells, the header's cells stripped."""
    file = Path(file)
    try:
        size = file.stat().st_size
        if not file.is_file():
            raise NotebookError(f"{safe.quoted(str(file))} is not a file")
        if size > MAX_FILE_BYTES:
            raise NotebookError(f"{safe.quoted(file.name)} has {size / 2**20:.1f} MiB, more than the "
                                f"{MAX_FILE_BYTES >> 20} MiB a class list may have")
        with open(file, "rb") as opened:
            data = opened.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise NotebookError(f"{safe.quoted(str(file))} cannot be read ({error.strerror or error})") from None
    if len(data) > MAX_FILE_BYTES:
        raise NotebookError(f"{safe.quoted(file.name)} has more than the {MAX_FILE_BYTES >> 20} MiB a class list "
                            "may have")
    text = _decode(data, file.name).lstrip("\ufeff")
    first = text.split("\n", 1)[0]
    for separator in SEPARATORS:
        if separator not in first:
            continue
        try:
            header = next(csv.reader([first], delimiter=separator))
        except csv.Error:
            continue
        header = [cell.strip() for cell in header]
        kind = _kind(header)
        if kind:
            break
    else:
        raise NotebookError(f"{safe.quoted(file.name)} is not a class list this command reads: expected {EXPECTED}, "
                            f"with their English headers; its first line is {safe.quoted(first[:120])}")
    rows = []
    try:
        for number, row in enumerate(csv.reader(io.StringIO(text, newline=""), delimiter=separator, strict=True)):
            if number > MAX_ROWS:
                raise NotebookError(f"{safe.quoted(file.name)} has more than the {MAX_ROWS} rows a class list "
                                    "may have")
            if any(len(cell) > MAX_FIELD for cell in row):
                raise NotebookError(f"{safe.quoted(file.name)}, line {number + 1}: a cell longer than {MAX_FIELD} "
                                    "characters, which no LMS writes")
            if number:
                rows.append((number + 1, row))
    except csv.Error as error:
        raise NotebookError(f"{safe.quoted(file.name)} is not well-formed CSV ({error})") from None
    return kind, header, rows


def _canvas_name(sortable):
    """(name, first, last) from Canvas's sortable name "Last, First" (read back from ``="..."``)."""
    match = re.fullmatch(r'=\s*"(.*)"', sortable, re.DOTALL)
    if match:
        sortable = match[1].replace('""', '"')
    last, comma, first = sortable.partition(",")
    if not comma:
        return _clean(sortable), "", _clean(sortable)
    first, last = _clean(first), _clean(last)
    return _clean(f"{first} {last}"), first, last


def _records(kind, header, rows, notes, left):
    """The entries a file gives (ids not yet given), and [why] of the rows it could not read; the Canvas
    user ids it leaves out go to ``left``."""
    column = {name: index for index, name in reversed(list(enumerate(header)))}   # the first of a repeated header

    def cell(row, *names):
        for name in names:
            if name in column and column[name] < len(row):
                return row[column[name]].strip()
        return ""

    records, unread = [], []
    # Moodle's participants page lists every role; a course that renamed "Student" keeps everyone, and says so
    students_have_role = "Roles" in column and any(
        STUDENT_ROLE.casefold() in {r.strip().casefold() for r in cell(row, "Roles").split(",")} for _, row in rows)
    if "Roles" in column and not students_have_role:
        notes.append("no participant has the role Student: everyone kept (remove the teachers from the file)")
    for line, row in rows:
        if not any(cell.strip() for cell in row):
            continue
        if kind == "canvas":
            student, user = cell(row, "Student"), cell(row, "ID")
            if not user and (row[0].strip() if row else "") in ("", "Points Possible"):
                continue           # Canvas's "    Points Possible" and "Manual Posting" rows
            if student == TEST_STUDENT:
                notes.append("left out Canvas's Test Student")
                if CANVAS_ID.fullmatch(user):
                    left[user] = "Canvas's Test Student"
                continue
            if not CANVAS_ID.fullmatch(user):
                unread.append(f"line {line}: ID {safe.quoted(user)} is not a Canvas user id")
                continue
            if "Student" in column:
                name, first, last = _canvas_name(student)
            else:
                first, last = _clean(cell(row, "FirstName")), _clean(cell(row, "LastName"))
                name = _clean(f"{first} {last}")
            records.append(Entry(f"canvas-{user}", name=name, first_name=first, last_name=last, lms_id=user,
                                 sis_id=_clean(cell(row, "SIS User ID")), login=_clean(cell(row, "SIS Login ID")),
                                 section=_clean(cell(row, "Section"))))
            continue
        email = _clean(cell(row, "Email address"))
        sis_id = _clean(cell(row, "ID number"))
        if kind == "moodle-worksheet":
            number = PARTICIPANT.search(cell(row, "Identifier"))
            if not number:
                unread.append(f"line {line}: Identifier {safe.quoted(cell(row, 'Identifier'))} holds no "
                              "participant number")
                continue
            records.append((number[1], Entry("", name=_clean(cell(row, "Full name")), email=email, sis_id=sis_id,
                                             login=_clean(cell(row, "Username")))))
            continue
        first, last = _clean(cell(row, "First name")), _clean(cell(row, "Last name", "Surname"))
        roles = {role.strip().casefold() for role in cell(row, "Roles").split(",") if role.strip()}
        if students_have_role and STUDENT_ROLE.casefold() not in roles:   # the participants page lists teachers
            notes.append("left out the participants who are not students (by their Roles)")
            continue
        if not (sis_id or email):
            unread.append(f"line {line}: {safe.quoted(f'{first} {last}')} has neither an ID number nor an email")
            continue
        records.append(Entry("", name=_clean(f"{first} {last}"), first_name=first, last_name=last, email=email,
                             sis_id=sis_id, login=_clean(cell(row, "Username"))))
    return records, unread


# --------------------------------------------------------------------------- ids and merging
def _slug(text):
    return re.sub(r"[^a-z0-9]+", "-", unicodedata.normalize("NFKD", text).casefold().replace("@", "-at-")).strip("-")


def moodle_id(entry, taken):
    """The id of a new Moodle entry: the readable part of its ID number (else email) and a digest of
    the whole field, so that the id depends on that field alone, never on which rows came first (two
    fields with one readable part, ``a.b@x`` and ``a-b@x``, still get two ids)."""
    source, prefix = (entry.sis_id, "moodle-id-") if entry.sis_id else (entry.email.casefold(), "moodle-")
    digest = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
    base = prefix + (_slug(source)[:MAX_ID - 30].strip("-") or "x")
    for length in range(8, 65):
        candidate = f"{base}-{digest[:length]}"
        if candidate not in taken:
            return candidate
    raise NotebookError(f"cannot give {safe.quoted(entry.display)} an id of her own")   # 2**256: never


def _same(old, new):
    """Whether a roster entry and an imported row are one person, by the LMS's ids: Canvas's user id
    alone (a SIS id is the institution's, and may be reused or retyped); Moodle's ID number where
    both have one, else the email (case-insensitive, as Moodle compares them)."""
    if new.student and old.student == new.student:
        return True
    if new.student.startswith("canvas-") or old.student.startswith("canvas-"):
        return False
    if new.sis_id and old.sis_id:
        return old.sis_id == new.sis_id
    return bool(new.email and old.email and old.email.casefold() == new.email.casefold())


def _find(entries, new):
    for entry in entries:
        if _same(entry, new):
            return entry
    return None


def _update(entry, new):
    """Fill ``entry`` with the non-empty fields of ``new``; whether anything changed."""
    before = dataclasses.asdict(entry)
    for field in ("name", "first_name", "last_name", "email", "lms_id", "sis_id", "login", "section"):
        value = getattr(new, field)
        if value:
            setattr(entry, field, value)
    entry.participants.update(new.participants)
    return dataclasses.asdict(entry) != before


def _link(entries, row):
    """The entry a worksheet row is, by its ID number or email (never by its name, which the learner
    may edit in Moodle); or None."""
    return _find(entries, row) if row.email or row.sis_id else None


def _conflict(entry, record):
    """Why an import must not merge ``record`` into ``entry``, matched by Moodle's ID number or email:
    the names are another person's (Moodle gave the number or the address to someone else), or None.
    Canvas's user id is Canvas's own, never given again: never a conflict."""
    if record.student or entry.student.startswith("canvas-"):
        return None
    if name_keys(entry) and name_keys(record) and not name_keys(entry) & name_keys(record):
        field = record.sis_id if entry.sis_id and record.sis_id else record.email
        return (f"{safe.quoted(field)} was {safe.quoted(entry.display)} ({entry.student}) and is now "
                f"{safe.quoted(record.display)}")
    return None


def merge(entries, kind, records, assignment=None):
    """Merge the rows of one file into ``entries`` (changed in place); return (added, updated, unchanged,
    not linked (worksheet rows tied to no one, or two rows tied to one student), [notes]).  A row that
    matches an entry by email alone but bears another person's name stops the import (NotebookError):
    merging it would give that person the entry's id, and its grades."""
    added, updated, unchanged, unlinked, notes, conflicts = [], [], [], [], [], []
    seen = set()
    taken = {e.student for e in entries}
    if kind == "moodle-worksheet":   # two rows tied to one student: which participant is she? neither
        links = {}
        for participant, record in records:
            entry = _link(entries, record)
            if entry is not None:
                links.setdefault(id(entry), []).append(participant)
        doubled = {number for numbers in links.values() if len(numbers) > 1 for number in numbers}
        numbers = [participant for participant, _ in records]   # one number on two rows: whose is it? neither's
        doubled |= {number for number in numbers if numbers.count(number) > 1}
    for record in records:
        if kind == "moodle-worksheet":
            participant, record = record
            record.participants = {assignment: participant}
            if not (record.email or record.sis_id):
                unlinked.append(f"{safe.quoted(record.name)} (participant {participant}: no email or ID number)")
                continue
            if participant in doubled:
                unlinked.append(f"{safe.quoted(record.name)} (participant {participant}: another row of the "
                                "worksheet is the same student, or has the same number)")
                continue
            entry = _link(entries, record)
        else:
            entry = _find(entries, record)
        if entry is not None and id(entry) in seen:
            notes.append(f"{safe.quoted(record.display)} appears twice (the first row kept)")
            continue
        if entry is None:
            record.student = record.student or moodle_id(record, taken)
            taken.add(record.student)
            entries.append(record)
            seen.add(id(record))
            added.append(record)
            continue
        conflict = _conflict(entry, record)
        if conflict:
            conflicts.append(conflict)
            continue
        seen.add(id(entry))
        if kind == "moodle-worksheet":   # a participant number is one person's, in one assignment
            for other in entries:
                if other is not entry and other.participants.get(assignment) == record.participants[assignment]:
                    del other.participants[assignment]
        (updated if _update(entry, record) else unchanged).append(entry)
    if conflicts:
        raise NotebookError(f"not imported: {len(conflicts)} ID number(s) or email address(es) now belong to "
                            "someone else: " + "; ".join(conflicts[:5]) + ("; ..." if len(conflicts) > 5 else "")
                            + f" (correct {ROSTER} by hand if it is one person renamed)")
    return added, updated, unchanged, unlinked, notes


def write(course, lms, entries, imported_from, left=None):
    """Write roster.json (whole, then renamed into place)."""
    file = path(course)
    file.parent.mkdir(parents=True, exist_ok=True)
    data = {"lms": lms, "imported_from": imported_from, "students": [dataclasses.asdict(e) for e in entries],
            "left_out": left or {}}
    part = file.with_name(f".{file.name}.part")
    part.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    os.replace(part, file)


def fill_gradebook(course, entries):
    """Give every roster entry its Student row in nbgrader's gradebook: first name, last name, email."""
    from nbgrader.api import Gradebook

    from .gradebooks import scrub
    try:
        with warnings.catch_warnings():   # nbgrader 0.9 on SQLAlchemy 2 warns about its own autoflush
            warnings.simplefilter("ignore")
            with Gradebook(course.gradebook_url) as gradebook:
                for entry in entries:
                    first, last = (entry.first_name, entry.last_name) if entry.first_name or entry.last_name \
                        else ("", entry.name)
                    gradebook.update_or_create_student(entry.student, first_name=first[:MAX_NAME],
                                                       last_name=last[:MAX_NAME],
                                                       email=(entry.email or None) and entry.email[:MAX_NAME])
    except Exception as error:
        return f"{type(error).__name__}: {scrub(error, course.gradebook_url)}"
    return None


def import_file(course, file, assignment=None, gradebook=True):
    """Import one class list into the course's roster and (unless not ``gradebook``) its gradebook's
    students; return (the summary line, None or why the gradebook could not be filled)."""
    kind, header, rows = read_table(file)
    if kind == "moodle-worksheet" and not assignment:
        raise NotebookError(f"{safe.quoted(Path(file).name)} is a Moodle grading worksheet, which belongs to one "
                            "assignment: name it (--assignment NN_name)")
    if kind != "moodle-worksheet" and assignment:
        raise NotebookError(f"--assignment is for a Moodle grading worksheet; {safe.quoted(Path(file).name)} is a "
                            f"{FORMATS[kind]}")
    if assignment:
        course.exercise(assignment)   # a misspelled assignment stops here
    if kind == "moodle-worksheet" and "Full name" not in header:
        raise NotebookError(f"{safe.quoted(Path(file).name)} hides the students' names (blind marking): download "
                            "the worksheet with the right to see identities, or collect with the participant "
                            "numbers as ids")
    lms = "canvas" if kind == "canvas" else "moodle"
    old_lms, entries, old_left = _read(course)
    if old_lms and old_lms != lms:
        raise NotebookError(f"the course's roster comes from {old_lms.capitalize()}, {safe.quoted(Path(file).name)} "
                            f"from {lms.capitalize()}: one LMS a course (remove {path(course)} to start again)")
    if kind == "moodle-worksheet" and not entries:
        raise NotebookError("a grading worksheet ties participant numbers to the students of the roster, which "
                            "has none yet: import the participants (or the gradebook export) first")
    if kind == "moodle-worksheet" and not {"Email address", "ID number"} & set(header):
        raise NotebookError(f"{safe.quoted(Path(file).name)} shows neither emails nor ID numbers, the only fields "
                            "that tie a participant to a student (a name is the learner's to edit): download it "
                            "where Moodle shows user identity fields")
    notes, left = [], dict(old_left)
    records, unread = _records(kind, header, rows, notes, left)
    if not records:
        raise NotebookError(f"{safe.quoted(Path(file).name)} ({FORMATS[kind]}) lists no student it can read"
                            + (f": {'; '.join(unread[:5])}" if unread else "") + "; the roster is unchanged")
    known = len(entries)
    added, updated, unchanged, unlinked, merge_notes = merge(entries, kind, records, assignment)
    notes = sorted(set(notes)) + merge_notes
    if not (added or updated or unchanged):
        raise NotebookError(f"{safe.quoted(Path(file).name)}: no row was tied to a student ("
                            + "; ".join(unlinked[:5]) + "); the roster is unchanged")
    write(course, lms, entries, Path(file).name, left)
    failed = fill_gradebook(course, entries) if gradebook else None
    missing = known - len(updated) - len(unchanged)
    parts = [f"roster: {len(added)} added, {len(updated)} updated, {len(unchanged)} unchanged from "
             f"{safe.quoted(Path(file).name)} ({FORMATS[kind]}); {len(entries)} students in {path(course)}"]
    if kind == "moodle-worksheet":
        linked = len(added) + len(updated) + len(unchanged)
        parts.append(f"participant numbers of {assignment} for {linked}")
    if missing > 0 and kind != "moodle-worksheet":
        parts.append(f"{missing} in the roster but not in this file (kept)")
    if unlinked:
        parts.append(f"{len(unlinked)} row(s) tied to no student: "
                     + ", ".join(unlinked[:10]) + (", ..." if len(unlinked) > 10 else ""))
    if unread:
        parts.append(f"{len(unread)} row(s) not read: " + "; ".join(unread[:5]) + ("; ..." if len(unread) > 5 else ""))
    parts += notes[:5]
    if failed:
        parts.append(f"could not fill the gradebook's students ({failed}): import again once it can be written")
    return safe.terminal("; ".join(parts), limit=10_000), failed


# --------------------------------------------------------------------------- command line
def add_parsers(commands):
    roster = commands.add_parser("roster", help="the class list an LMS exports (Canvas or Moodle)")
    actions = roster.add_subparsers(dest="roster_action", required=True, parser_class=type(roster))
    imported = actions.add_parser("import", help="read the class list a Canvas or Moodle export gives into "
                                                 "autograder/roster.json and the gradebook's students")
    imported.add_argument("file", help="Canvas's gradebook export (CSV), Moodle's participants download, "
                                       "Moodle's gradebook export, or a Moodle assignment's grading worksheet")
    imported.add_argument("--assignment", help="the assignment a Moodle grading worksheet belongs to (e.g. "
                                               "01_softmax): ties its participant numbers to the students")
    imported.add_argument("--course-root", help="course folder (default: the repository)")


def main(args):
    from . import course
    config = course.load_config(args.course_root)
    summary, failed = import_file(course.from_config(config), args.file, args.assignment)
    print(summary)
    return 1 if failed else 0
