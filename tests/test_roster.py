"""The class list: `python -m autograder roster import FILE` (issue 31).

Each file is written as its LMS writes it: Canvas's gradebook export (lib/gradebook_exporter.rb:
Ruby's CSV, "\\n" rows, the "Manual Posting" and "    Points Possible" rows, the sortable name
"Last, First" quoted for its comma, a name starting with "=" written ="...", the Test Student,
a byte order mark when the user's setting asks for one, ";" as the separator for a locale with
decimal commas); Moodle's participants download (a dataformat CSV: byte order mark, ","),
Moodle's gradebook export (fputcsv with the separator the export form offers: comma, semicolon,
colon or tab) and an assignment's grading worksheet (the grading table downloaded as CSV:
"Participant 1234567" identifiers).  Non-ASCII names (Zoë, 李华), names with a comma.
"""
import csv
import io
import json
import re
import subprocess
import sys
import unicodedata

import pytest
from nbgrader.api import Gradebook

import helpers
from autograder import course as courses
from autograder import roster
from autograder.notebooks import NotebookError

pytestmark = pytest.mark.nbgrader

BOM = "\ufeff"


def moodle_student(id_number="", email=""):
    """The id the roster gives a Moodle student, as roster.py's docstring states it: the readable part
    of the ID number (else the email) and the first 8 hex digits of the field's SHA-256."""
    import hashlib
    field, prefix = (id_number, "moodle-id-") if id_number else (email.casefold(), "moodle-")
    readable = "-".join(re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKD", field).casefold().replace("@", "-at-")))
    return f"{prefix}{readable}-{hashlib.sha256(field.encode()).hexdigest()[:8]}"


S001, S003, S004, S005, S006, S007 = (moodle_student(f"S-00{n}") for n in (1, 3, 4, 5, 6, 7))
HUA = moodle_student(email="hua.li@uni.example")


def _csv(rows, delimiter=",", lineterminator="\n", bom=False):
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator=lineterminator).writerows(rows)
    return (BOM if bom else "") + out.getvalue()


def canvas_export(bom=True, separator=",", students=None):
    """Canvas's "Export Entire Gradebook", with SIS ids shown (include_sis_id)."""
    header = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Softmax (4021)", "Attention (4022)",
              "Current Points", "Final Points", "Current Score", "Unposted Current Score", "Final Score",
              "Unposted Final Score"]
    hidden = [None] * 5 + ["Manual Posting", None] + [None] * 6
    points = ["    Points Possible", None, None, None, None, "10.00", "12.00"] + ["(read only)"] * 6
    students = students if students is not None else [
        ["Martin, Zoë", "12345", "S-001", "zoe.martin", "Attention 101 A", "8.00", "", "8.00", "8.00",
         "80.00", "80.00", "36.36", "36.36"],
        ["Li, Hua", "12346", "S-002", "li.hua", "Attention 101 A and Attention 101 B", "", "", "", "", "", "", "", ""],
        ["=\"=1+1, Eve\"", "12347", "", "eve", "Attention 101 B", "", "", "", "", "", "", "", ""],
        ["李, 华", "12348", "", "lihua2", "Attention 101 B", "", "", "", "", "", "", "", ""],
        ["Student, Test", "99999", "", "", "Attention 101 A", "", "", "", "", "", "", "", ""],
    ]
    return _csv([header, hidden, points, *students], delimiter=separator, bom=bom)


def moodle_participants(rows=None):
    """Moodle's participants page, "Download table data as" CSV (ID number and email shown)."""
    rows = rows if rows is not None else [
        ["Zoë", "Martin", "S-001", "zoe@uni.example"],
        ["Hua", "Li", "", "hua.li@uni.example"],
        ["Jean", "Smith, Jr.", "S-003", "jean@uni.example"],
    ]
    return _csv([["First name", "Last name", "ID number", "Email address"], *rows], bom=True)


def moodle_grades(separator, rows=None):
    """Moodle's gradebook export, Plain text file (grade_export_txt: csv_export_writer)."""
    header = ["First name", "Last name", "ID number", "Institution", "Department", "Email address",
              "Assignment: Softmax (Real)", "Course total (Real)", "Last downloaded from this course"]
    rows = rows if rows is not None else [
        ["Zoë", "Martin", "S-001", "Uni", "CS", "zoe@uni.example", "8.00", "8.00", "1795000000"],
        ["Hua", "Li", "", "Uni", "CS", "hua.li@uni.example", "-", "-", "1795000000"],
        ["Ana", "Gómez", "S-004", "Uni", "CS", "ana@uni.example", "-", "-", "1795000000"],
    ]
    return _csv([header, *rows], delimiter=separator)


def moodle_worksheet(rows=None):
    """An assignment's "Download grading worksheet" (the grading table as CSV)."""
    header = ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum grade", "Grade can be changed",
              "Last modified (submission)", "Last modified (grade)", "Feedback comments"]
    rows = rows if rows is not None else [
        ["Participant 5550101", "Zoë Martin", "zoe@uni.example", "Submitted for grading", "", "10.00", "Yes",
         "Wednesday, 18 November 2026, 9:30 AM", "-", ""],
        ["Participant 5550102", "Hua Li", "", "No submission", "", "10.00", "Yes", "-", "-", ""],
        ["Participant 5550103", "Jean Smith, Jr.", "jean@uni.example", "Submitted for grading", "", "10.00", "Yes",
         "Wednesday, 18 November 2026, 9:31 AM", "-", ""],
    ]
    return _csv([header, *rows], bom=True)


@pytest.fixture
def root(tmp_path):
    return helpers.course(tmp_path)


def _file(tmp_path, name, text, encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def _import(root, path, *args):
    """`python -m autograder roster import FILE`, as an instructor runs it."""
    return subprocess.run([sys.executable, "-m", "autograder", "roster", "import", str(path), *args,
                           "--course-root", str(root)], cwd=helpers.REPO, capture_output=True, text=True, timeout=120)


def _summary(root, path, assignment=None, gradebook=False):
    """Import in this process; the gradebook's students only when asked (making a gradebook takes seconds)."""
    summary, failed = roster.import_file(courses.course_at(root), path, assignment, gradebook=gradebook)
    assert failed is None, failed
    return summary


def _roster(root):
    return json.loads((root / "autograder" / "roster.json").read_text(encoding="utf-8"))


def _gradebook(root):
    with Gradebook(helpers.gradebook_url(root)) as gradebook:
        return {s.id: (s.first_name, s.last_name, s.email) for s in gradebook.students}


def test_canvas_gradebook_export_by_the_command(root, tmp_path):
    result = _import(root, _file(tmp_path, "2026-11-20T0930_Grades-ATT101.csv", canvas_export()))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "roster: 4 added, 0 updated, 0 unchanged from 2026-11-20T0930_Grades-ATT101.csv (Canvas gradebook export); "
        f"4 students in {root / 'autograder' / 'roster.json'}; left out Canvas's Test Student"]
    data = _roster(root)
    assert data["lms"] == "canvas" and data["imported_from"] == "2026-11-20T0930_Grades-ATT101.csv"
    zoe = data["students"][0]
    assert zoe == {"student": "canvas-12345", "name": "Zoë Martin", "first_name": "Zoë", "last_name": "Martin",
                   "email": "", "lms_id": "12345", "sis_id": "S-001", "login": "zoe.martin",
                   "section": "Attention 101 A", "participants": {}}
    people = {e.student: e for e in roster.load(root)}
    assert people["canvas-12346"].section == "Attention 101 A and Attention 101 B"
    assert people["canvas-12347"].display == "Eve =1+1"        # Canvas's ="..." read back, never a formula
    assert people["canvas-12348"].display == "华 李"
    assert _gradebook(root) == {"canvas-12345": ("Zoë", "Martin", None), "canvas-12346": ("Hua", "Li", None),
                                "canvas-12347": ("Eve", "=1+1", None), "canvas-12348": ("华", "李", None)}
    assert roster.label(root, "canvas-12345") == "Zoë Martin (canvas-12345)"
    assert roster.label(root, "canvas-1") == "canvas-1"


@pytest.mark.parametrize("separator, bom", [(";", False), (",", False)], ids=["semicolon", "no-bom"])
def test_canvas_export_with_a_semicolon_or_without_a_byte_order_mark(root, tmp_path, separator, bom):
    """Canvas writes ";" for a user who asks for it (or whose locale writes decimal commas), and the
    byte order mark only when her setting asks for one."""
    summary = _summary(root, _file(tmp_path, "grades.csv", canvas_export(bom=bom, separator=separator)))
    assert summary.startswith("roster: 4 added, 0 updated, 0 unchanged from grades.csv (Canvas gradebook export)")
    assert [e.student for e in roster.load(root)] == ["canvas-12345", "canvas-12346", "canvas-12347", "canvas-12348"]


def test_canvas_export_with_first_and_last_name_columns(root, tmp_path):
    """A course set to show first and last names exports LastName, FirstName instead of Student."""
    text = _csv([["LastName", "FirstName", "ID", "SIS Login ID", "Section", "Softmax (4021)"],
                 ["    Points Possible", "", "", "", "", "10.00"],
                 ["Martin", "Zoë", "12345", "zoe.martin", "A", "8.00"]])
    _summary(root, _file(tmp_path, "grades.csv", text))
    (zoe,) = roster.load(root)
    assert (zoe.student, zoe.first_name, zoe.last_name, zoe.display) == ("canvas-12345", "Zoë", "Martin", "Zoë Martin")


def test_moodle_participants_download(root, tmp_path):
    summary = _summary(root, _file(tmp_path, "courseid_7_participants.csv", moodle_participants()), gradebook=True)
    assert summary.startswith("roster: 3 added, 0 updated, 0 unchanged from courseid_7_participants.csv "
                              "(Moodle participants download)")
    people = {e.display: e for e in roster.load(root)}
    assert people["Zoë Martin"].student == S001                   # the ID number
    assert people["Hua Li"].student == HUA          # no ID number: the email
    assert people["Jean Smith, Jr."].last_name == "Smith, Jr."                  # the quoted comma kept
    assert _roster(root)["lms"] == "moodle"
    assert _gradebook(root)[S001] == ("Zoë", "Martin", "zoe@uni.example")


@pytest.mark.parametrize("separator", [",", ";", "\t", ":"], ids=["comma", "semicolon", "tab", "colon"])
def test_moodle_gradebook_export_with_each_separator(root, tmp_path, separator):
    summary = _summary(root, _file(tmp_path, "ATT101 Grades.csv", moodle_grades(separator)))
    assert "(Moodle gradebook export); 3 students" in summary
    assert {e.student: e.display for e in roster.load(root)} == {
        S001: "Zoë Martin", HUA: "Hua Li", S004: "Ana Gómez"}


def test_importing_again_merges_and_never_drops(root, tmp_path):
    """The participants first; then the gradebook export, a month later: Ana joined, Jean left the
    export (kept), Zoë changed her email, Hua's id (from her email) stays hers."""
    _summary(root, _file(tmp_path, "participants.csv", moodle_participants()), gradebook=True)
    before = {e.display: e.student for e in roster.load(root)}
    grades = moodle_grades(",", rows=[
        ["Zoë", "Martin", "S-001", "Uni", "CS", "zoe.martin@uni.example", "8.00", "8.00", "1795000000"],
        ["Hua", "Li", "", "Uni", "CS", "hua.li@uni.example", "-", "-", "1795000000"],
        ["Ana", "Gómez", "S-004", "Uni", "CS", "ana@uni.example", "-", "-", "1795000000"]])
    summary = _summary(root, _file(tmp_path, "grades.csv", grades), gradebook=True)
    assert summary.startswith("roster: 1 added, 1 updated, 1 unchanged from grades.csv (Moodle gradebook export); "
                              "4 students in ")
    assert summary.endswith("; 1 in the roster but not in this file (kept)")
    after = {e.display: e for e in roster.load(root)}
    assert {name: after[name].student for name in before} == before
    assert after["Zoë Martin"].email == "zoe.martin@uni.example" and after["Ana Gómez"].student == S004
    assert set(_gradebook(root)) == {e.student for e in after.values()}


def test_a_grading_worksheet_ties_participant_numbers_to_the_students(root, tmp_path):
    """By email (or ID number) only: Hua's row shows no email, and her name is not enough (a learner
    may rename herself like a classmate in Moodle), so her number is tied to no one, and said."""
    _summary(root, _file(tmp_path, "participants.csv", moodle_participants()))
    worksheet = _file(tmp_path, "Grades-ATT101-Softmax-42.csv", moodle_worksheet())
    summary = _summary(root, worksheet, "01_softmax")
    assert "(Moodle grading worksheet)" in summary and "participant numbers of 01_softmax for 2" in summary
    assert "1 row(s) tied to no student: 'Hua Li' (participant 5550102: no email or ID number)" in summary
    participants = {e.display: e.participants for e in roster.load(root)}
    assert participants == {"Zoë Martin": {"01_softmax": "5550101"}, "Hua Li": {},
                            "Jean Smith, Jr.": {"01_softmax": "5550103"}}


def test_a_worksheet_tied_to_no_one_changes_nothing(root, tmp_path):
    _summary(root, _file(tmp_path, "participants.csv", moodle_participants()))
    before = roster.path(root).read_bytes()
    worksheet = moodle_worksheet(rows=[["Participant 5550109", "Nobody Known", "", "No submission", "", "10.00",
                                        "Yes", "-", "-", ""]])
    with pytest.raises(NotebookError, match="no row was tied to a student .*'Nobody Known'.*the roster is unchanged"):
        roster.import_file(courses.course_at(root), _file(tmp_path, "worksheet.csv", worksheet), "01_softmax")
    assert roster.path(root).read_bytes() == before


def test_two_worksheet_rows_of_one_student_tie_neither(root, tmp_path):
    """Zoë's email on two rows (a worksheet edited by hand, or Moodle's own duplicate): which number is
    hers cannot be known, so neither is tied to her."""
    _summary(root, _file(tmp_path, "participants.csv", moodle_participants()))
    rows = [["Participant 501", "Zoë Martin", "zoe@uni.example", "", "", "10.00", "Yes", "-", "-", ""],
            ["Participant 502", "Bob Smith", "zoe@uni.example", "", "", "10.00", "Yes", "-", "-", ""],
            ["Participant 503", "Jean Smith, Jr.", "jean@uni.example", "", "", "10.00", "Yes", "-", "-", ""]]
    summary = _summary(root, _file(tmp_path, "worksheet.csv", moodle_worksheet(rows=rows)), "01_softmax")
    assert "2 row(s) tied to no student" in summary and "another row of the worksheet is the same student" in summary
    assert {e.display: e.participants for e in roster.load(root)}["Zoë Martin"] == {}


def test_a_worksheet_without_emails_or_id_numbers_is_refused(root, tmp_path):
    _summary(root, _file(tmp_path, "participants.csv", moodle_participants()))
    header = ["Identifier", "Full name", "Status", "Grade", "Maximum grade"]
    text = _csv([header, ["Participant 501", "Zoë Martin", "", "", "10.00"]])
    with pytest.raises(NotebookError, match="shows neither emails nor ID numbers"):
        roster.import_file(courses.course_at(root), _file(tmp_path, "worksheet.csv", text), "01_softmax")


def test_a_worksheet_before_the_participants_is_refused(root, tmp_path):
    with pytest.raises(NotebookError, match="import the participants .* first"):
        roster.import_file(courses.course_at(root), _file(tmp_path, "ws.csv", moodle_worksheet()), "01_softmax")
    assert not roster.path(root).exists()


@pytest.mark.parametrize("before_rows, after_rows, field", [
    ([["Alice", "Able", "", "alice@uni.example"], ["Bob", "Smith", "", "bob@uni.example"]],
     [["Alice", "Able", "", "alice.new@uni.example"], ["Bob", "Smith", "", "alice@uni.example"]], "alice@uni.example"),
    ([["Alice", "Able", "S100", "alice@uni.example"], ["Bob", "Smith", "S200", "bob@uni.example"]],
     [["Bob", "Smith", "S100", "bob@uni.example"], ["Alice", "Able", "S300", "alice@uni.example"]], "S100"),
])
def test_a_field_given_to_someone_else_stops_the_import(root, tmp_path, before_rows, after_rows, field):
    """Moodle's ids come from the ID number, else the email.  When either moves to another person, merging
    her row would give her the first person's id and grades: the import stops, unchanged."""
    _summary(root, _file(tmp_path, "p1.csv", moodle_participants(rows=before_rows)))
    before = roster.path(root).read_bytes()
    with pytest.raises(NotebookError, match=f"{field} was 'Alice Able' .* and is now 'Bob Smith'"):
        roster.import_file(courses.course_at(root), _file(tmp_path, "p2.csv", moodle_participants(rows=after_rows)))
    assert roster.path(root).read_bytes() == before


def test_canvas_rows_are_one_person_by_canvas_user_id_alone(root, tmp_path):
    """Two Canvas users whose SIS ids differ only in case stay two students (a SIS id is retyped, reused)."""
    one = [["Able, Alice", "101", "S1", "alice", "Mon", *[""] * 8]]
    two = [["Able, Alice", "102", "s1", "alice2", "Mon", *[""] * 8]]
    _summary(root, _file(tmp_path, "c1.csv", canvas_export(students=one)))
    _summary(root, _file(tmp_path, "c2.csv", canvas_export(students=two)))
    assert {(e.student, e.lms_id) for e in roster.load(root)} == {("canvas-101", "101"), ("canvas-102", "102")}


@pytest.mark.parametrize("text, words", [
    ('{"lms": "moodle", "students": [{"student": "moodle-x-1", "participants": "501"}]}', "participant numbers"),
    ('{"lms": "moodle", "students": [{"student": "moodle-x-1", "name": 5}]}', "not text"),
    ('{"lms": "moodle", "students": [{"student": "../etc"}]}', "valid id"),
    ('{"lms": "moodle"}', "KeyError"),
    ('[1, 2]', "TypeError"),
])
def test_a_damaged_roster_is_one_line_naming_it(root, text, words):
    roster.path(root).write_text(text, encoding="utf-8")
    with pytest.raises(NotebookError, match=f"roster.json cannot be read .*{words}.*import the class list again"):
        roster.load(root)


def test_a_file_with_no_student_changes_nothing(root, tmp_path):
    header_only = _file(tmp_path, "participants.csv", _csv([["First name", "Last name", "Email address"]]))
    with pytest.raises(NotebookError, match="lists no student it can read; the roster is unchanged"):
        roster.import_file(courses.course_at(root), header_only)
    assert not roster.path(root).exists()


@pytest.mark.parametrize("name, text, args, words", [
    ("notes.csv", "name,score\nZoë,8\n", [], "is not a class list this command reads: expected a Canvas gradebook "
                                             "export (Student, ID, SIS Login ID, Section, ...)"),
    ("latin1.csv", None, [], "is not UTF-8 text"),
    ("worksheet.csv", moodle_worksheet(), [], "is a Moodle grading worksheet, which belongs to one assignment: "
                                              "name it (--assignment NN_name)"),
    ("worksheet.csv", moodle_worksheet(), ["--assignment", "01_sofmax"], "no exercise named '01_sofmax'"),
    ("grades.csv", moodle_grades(","), ["--assignment", "01_softmax"], "--assignment is for a Moodle grading "
                                                                       "worksheet"),
    ("broken.csv", 'Student,ID,SIS Login ID,Section\n"Martin, Zoë,12345,zoe,A\n', [], "is not well-formed CSV"),
    ("empty.csv", canvas_export(students=[]), [], "(Canvas gradebook export) lists no student"),
], ids=["not-a-class-list", "not-utf8", "worksheet-without-assignment", "misspelled-assignment",
        "assignment-for-another-file", "broken-quotes", "no-student"])
def test_a_bad_file_is_one_line_and_a_non_zero_exit(root, tmp_path, name, text, args, words):
    path = _file(tmp_path, name, text) if text is not None else \
        _file(tmp_path, name, "First name,Last name,Email address\nZoë,Martin,zoe@uni.example\n", encoding="latin-1")
    assignment = args[1] if args else None
    with pytest.raises(NotebookError) as refused:
        roster.import_file(courses.course_at(root), path, assignment)
    assert words in str(refused.value) and len(str(refused.value).splitlines()) == 1
    assert not (root / "autograder" / "roster.json").exists()


@pytest.mark.parametrize("name, text, words", [
    ("notes.csv", "name,score\nZoë,8\n", "autograder: notes.csv is not a class list this command reads: expected "),
    ("worksheet.csv", moodle_worksheet(), "is a Moodle grading worksheet, which belongs to one assignment"),
], ids=["not-a-class-list", "worksheet-without-assignment"])
def test_a_bad_file_by_the_command(root, tmp_path, name, text, words):
    result = _import(root, _file(tmp_path, name, text))
    assert result.returncode != 0 and len(result.stderr.splitlines()) == 1, result.stderr
    assert words in result.stderr and not result.stdout and "Traceback" not in result.stderr


def test_a_file_too_large_is_refused_before_it_is_read(root, tmp_path):
    path = tmp_path / "huge.csv"
    with open(path, "wb") as huge:
        huge.truncate(roster.MAX_FILE_BYTES + 1)
    with pytest.raises(NotebookError, match=r"^'?huge.csv'? has 8.0 MiB, more than the 8 MiB a class list may have"):
        roster.import_file(courses.course_at(root), path)


def test_too_many_rows_are_refused(root, tmp_path, monkeypatch):
    monkeypatch.setattr(roster, "MAX_ROWS", 3)
    rows = [["Zoë", "Martin", "", f"z{i}@uni.example"] for i in range(4)]
    with pytest.raises(NotebookError, match="has more than the 3 rows a class list may have"):
        roster.import_file(courses.course_at(root), _file(tmp_path, "p.csv", moodle_participants(rows)))


def test_one_lms_a_course(root, tmp_path):
    _summary(root, _file(tmp_path, "grades.csv", canvas_export()))
    with pytest.raises(NotebookError, match="the course's roster comes from Canvas, participants.csv from Moodle"):
        roster.import_file(courses.course_at(root), _file(tmp_path, "participants.csv", moodle_participants()))


def test_moodle_ids_are_stable_distinct_and_never_a_participant_number():
    first = roster.moodle_id(roster.Entry("", sis_id="2001"), set())
    assert first == moodle_student("2001") and first.startswith("moodle-id-2001-")   # never collect's "moodle-2001"
    other = roster.moodle_id(roster.Entry("", sis_id="2001 "), set())   # another person, one readable part
    assert other.startswith("moodle-id-2001-") and other != first
    # the id depends on the field alone, not on which row came first (roster.json made again: the same ids)
    dotted, dashed = roster.Entry("", email="a.b@x.example"), roster.Entry("", email="a-b@x.example")
    assert roster.moodle_id(dotted, set()) != roster.moodle_id(dashed, set())
    assert roster.moodle_id(dotted, {roster.moodle_id(dashed, set())}) == roster.moodle_id(dotted, set())
    zoe = roster.moodle_id(roster.Entry("", email="Zoë.Martin@Uni.Example"), set())
    assert zoe == moodle_student(email="Zoë.Martin@Uni.Example") and zoe.startswith("moodle-zoe-martin-at-uni-example-")
    for made in (first, other, zoe):
        assert set(made) <= set("abcdefghijklmnopqrstuvwxyz0123456789-")


def test_names_compare_as_moodle_writes_them():
    entry = roster.Entry("x", first_name="Zoë", last_name="O'Brien")
    assert roster.name_key("ZOE\u0308  OBrien") in roster.name_keys(entry)      # NFD, case, spaces; Moodle drops the "'"
    assert roster.name_key("O'Brien Zoë") in roster.name_keys(entry)             # a site writing "Last First"


def test_the_participants_page_lists_teachers_who_are_left_out(root, tmp_path):
    header = ["First name", "Last name", "Email address", "Roles", "Groups", "Last access to course", "Status"]
    rows = [["Zoë", "Müller", "zoe@uni.example", "Student", "No groups", "2 days", "Active"],
            ["Ada", "Teacher", "ada@uni.example", "Teacher", "No groups", "1 hour", "Active"],
            ["Sam", "Both", "sam@uni.example", "Student, Non-editing teacher", "No groups", "1 hour", "Active"]]
    summary = _summary(root, _file(tmp_path, "courseid_7_participants.csv", _csv([header, *rows], bom=True)))
    assert {e.display for e in roster.load(root)} == {"Zoë Müller", "Sam Both"}
    assert "left out the participants who are not students (by their Roles)" in summary


def test_a_course_whose_students_have_another_role_keeps_everyone(root, tmp_path):
    """Roles compare case-folded; a course that renamed "Student" ("Learner") would lose every student to
    the filter: everyone is kept, and said."""
    header = ["First name", "Last name", "Email address", "Roles"]
    lower = [["Zoë", "Müller", "zoe@uni.example", "student"], ["Ada", "Teacher", "ada@uni.example", "Teacher"]]
    _summary(root, _file(tmp_path, "p1.csv", _csv([header, *lower])))
    assert {e.display for e in roster.load(root)} == {"Zoë Müller"}
    renamed = [["Kim", "Park", "kim@uni.example", "Learner"], ["Ada", "Teacher", "ada@uni.example", "Teacher"]]
    summary = _summary(root, _file(tmp_path, "p2.csv", _csv([header, *renamed])))
    assert "no participant has the role Student: everyone kept (remove the teachers from the file)" in summary
    assert {e.display for e in roster.load(root)} == {"Zoë Müller", "Kim Park", "Ada Teacher"}


def test_one_participant_number_on_two_rows_ties_neither(root, tmp_path):
    _summary(root, _file(tmp_path, "participants.csv", moodle_participants()))
    rows = [["Participant 501", "Zoë Martin", "zoe@uni.example", "", "", "10.00", "Yes", "-", "-", ""],
            ["Participant 501", "Jean Smith, Jr.", "jean@uni.example", "", "", "10.00", "Yes", "-", "-", ""],
            ["Participant 502", "Hua Li", "hua.li@uni.example", "", "", "10.00", "Yes", "-", "-", ""]]
    summary = _summary(root, _file(tmp_path, "worksheet.csv", moodle_worksheet(rows=rows)), "01_softmax")
    assert "2 row(s) tied to no student" in summary and "or has the same number" in summary
    assert {e.display: e.participants for e in roster.load(root)} == {
        "Zoë Martin": {}, "Jean Smith, Jr.": {}, "Hua Li": {"01_softmax": "502"}}


def test_the_command_fills_a_new_gradebook_without_the_environment_activated(root, tmp_path):
    """nbgrader makes a new gradebook by running `alembic`: the one beside this Python is found even when
    the environment is not activated (`.venv/bin/python -m autograder ...`)."""
    import os
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-m", "autograder", "roster", "import",
                             str(_file(tmp_path, "grades.csv", canvas_export())), "--course-root", str(root)],
                            cwd=helpers.REPO, capture_output=True, text=True, timeout=120, env=env)
    assert result.returncode == 0, result.stderr
    assert _gradebook(root)["canvas-12345"] == ("Zoë", "Martin", None)
