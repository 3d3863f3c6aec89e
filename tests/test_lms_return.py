"""Grades and feedback back into the LMS (autograder/lms.py): the files each LMS imports.

The gradebooks here are built with nbgrader's API (an assignment, its graded cells, submissions with
automatic and manual scores and a late penalty), so the export is checked against exactly what the
gradebook holds without running a class; the feedback pages are small HTML files in a scratch
course, beside the record ``collect`` keeps of where each submission came from.  Each file is read
back as the LMS and a spreadsheet would: with csv.reader, and with transcriptions of the rules by
which Canvas's ``GradebookImporter`` finds its header and students, Moodle's ``assignfeedback_file``
zip importer its participants, and Canvas's re-upload its users and files.
"""
import csv
import datetime
import json
import subprocess
import sys
import warnings
import zipfile

import pytest
from nbgrader.api import Gradebook

import helpers
from autograder import course as courses
from autograder import lms
from autograder.notebooks import NotebookError

DUE = datetime.datetime(2026, 3, 1, 12, 0)        # naive UTC, as nbgrader keeps it
FORMULA = ("=", "+", "-", "@", "\t", "\r")

ROSTER = [
    {"student": "canvas-101", "name": "Zoë Martin", "first_name": "Zoë", "last_name": "Martin",
     "email": "zoe@uni.example", "lms_id": "101", "sis_id": "S-101", "login": "zmartin", "section": "Mon"},
    {"student": "canvas-102", "name": "=HYPERLINK(\"http://x.example\",\"click\")", "first_name": "@SUM(A1)",
     "last_name": "+1", "email": "-attacker@uni.example", "lms_id": "102", "sis_id": "=2+2", "login": "",
     "section": "-Tue"},
    {"student": "moodle-id-77", "name": "Ana Pérez", "first_name": "Ana", "last_name": "Pérez",
     "email": "ana@uni.example", "lms_id": "", "sis_id": "77", "login": "aperez", "section": ""},
    {"student": "moodle-id-78", "name": "No Email", "first_name": "No", "last_name": "Email",
     "email": "", "lms_id": "", "sis_id": "78", "login": "", "section": ""},
]


def _gradebook(root):
    """01_softmax with a code test (5 points) and a written answer (3, graded by hand), and five submissions:
    canvas-101: 5 automatic + 2 by hand = 7; canvas-102: 4 automatic, submitted 3 h late (10 % off: 0.4);
    canvas-103 (no roster entry): 5; moodle-id-77: 2; moodle-id-78 (no email): 1; exchange-bob: 3."""
    url = courses.course_at(root).gradebook_url
    with warnings.catch_warnings(), Gradebook(url) as gradebook:   # nbgrader 0.9 on SQLAlchemy 2: autoflush
        warnings.simplefilter("ignore")
        gradebook.add_assignment("01_softmax", duedate=DUE)
        gradebook.add_notebook("softmax", "01_softmax")
        gradebook.add_grade_cell("test_softmax", "softmax", "01_softmax", max_score=5, cell_type="code")
        gradebook.add_grade_cell("written", "softmax", "01_softmax", max_score=3, cell_type="markdown")
        scores = {"canvas-101": (5, 2), "canvas-102": (4, None), "canvas-103": (5, None), "moodle-id-77": (2, None),
                  "moodle-id-78": (1, None), "exchange-bob": (3, None)}
        for student, (auto, manual) in scores.items():
            gradebook.add_student(student)
            late = student == "canvas-102"
            gradebook.add_submission("01_softmax", student,
                                     timestamp=DUE + datetime.timedelta(hours=3 if late else -1))
            test = gradebook.find_grade("test_softmax", "softmax", "01_softmax", student)
            test.auto_score = auto
            written = gradebook.find_grade("written", "softmax", "01_softmax", student)
            written.auto_score, written.manual_score = None, 0 if manual is None else manual   # graded by hand
            if late:
                gradebook.find_submission_notebook("softmax", "01_softmax", student).late_submission_penalty = 0.4
        gradebook.db.commit()
    return url


@pytest.fixture
def course(tmp_path):
    root = helpers.course(tmp_path)
    (root / "autograder" / "roster.json").write_text(
        json.dumps({"lms": "canvas", "imported_from": "grades.csv", "students": ROSTER}), encoding="utf-8")
    _gradebook(root)
    config = courses.load_config(root)
    return courses.from_config(config), config


def _read(path):
    """The rows a spreadsheet shows: UTF-8 with its byte-order mark, read by csv.reader."""
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf"), data[:10]
    with open(path, encoding="utf-8-sig", newline="") as handle:
        return list(csv.reader(handle))


def _no_formula(rows):
    for row in rows:
        for cell in row:
            assert not cell.startswith(FORMULA) or helpers.is_number(cell), (cell, row)


def _canvas_header_accepted(header):
    """Canvas's GradebookImporter#header?: Student, then ID, then (with SIS User ID and SIS Login ID) Section."""
    return (len(header) > 3 and "Student" in header[0] and "ID" in header[1] and header[2] == "SIS User ID"
            and header[3] == "SIS Login ID" and "Section" in header[4])


def test_canvas_gradebook_import_csv(course, tmp_path):
    course, config = course
    out = tmp_path / "canvas.csv"
    lines = lms.export(course, config, "01_softmax", "canvas", out, column="01 Softmax (1234)", points_possible=True)
    rows = _read(out)
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "01 Softmax (1234)"]
    assert _canvas_header_accepted(rows[0])
    assert rows[1] == ["Points Possible", "", "", "", "", "8"]
    by_id = {row[1]: row for row in rows[2:]}
    # the gradebook's scores: manual grade included, the late penalty taken off
    assert by_id["101"] == ["Martin, Zoë", "101", "S-101", "zmartin", "Mon", "7"]
    assert by_id["102"][1:] == ["102", "'=2+2", "", "'-Tue", "3.6"]
    assert by_id["102"][0] == "'+1, @SUM(A1)"                      # a name that would be a formula stays text
    assert by_id["103"] == ["canvas-103", "103", "", "", "", "5"]  # no roster entry: collect's Canvas user id
    assert set(by_id) == {"101", "102", "103"}                      # the Moodle and exchange ids are not Canvas's
    _no_formula(rows)
    assert lines[0].startswith(f"wrote {out}: 3 grade(s) of 01_softmax (out of 8)")
    assert lines[1].startswith("not written, no Canvas user id") and "exchange-bob" in lines[1]
    assert "Ana Pérez (moodle-id-77)" in lines[1] and "canvas-10" not in lines[1]


def test_canvas_needs_its_column_name(course, tmp_path):
    course, config = course
    with pytest.raises(NotebookError, match="--column is required for Canvas"):
        lms.export(course, config, "01_softmax", "canvas", tmp_path / "c.csv")
    with pytest.raises(NotebookError, match=r"'<name> \(<assignment id>\)'"):
        lms.export(course, config, "01_softmax", "canvas", tmp_path / "c.csv", column="01 Softmax")
    with pytest.raises(NotebookError, match="would be a formula"):
        lms.export(course, config, "01_softmax", "moodle", tmp_path / "c.csv", column="=cmd|' /C calc'!A0")
    with pytest.raises(NotebookError, match="no exercise named '99_nothing'"):
        lms.export(course, config, "99_nothing", "moodle", tmp_path / "c.csv")
    assert not list(tmp_path.glob("*.csv")) and not list(tmp_path.glob(".partial-*"))


def test_moodle_grade_import_csv_keyed_by_email(course, tmp_path):
    course, config = course
    out = tmp_path / "moodle.csv"
    lines = lms.export(course, config, "01_softmax", "moodle", out)
    rows = _read(out)
    assert rows[0] == ["First name", "Last name", "ID number", "Email address", "Username", "01_softmax"]
    by_email = {row[3]: row for row in rows[1:]}
    assert by_email == {"zoe@uni.example": ["Zoë", "Martin", "S-101", "zoe@uni.example", "zmartin", "7"],
                        "ana@uni.example": ["Ana", "Pérez", "77", "ana@uni.example", "aperez", "2"]}
    _no_formula(rows)
    assert "No Email (moodle-id-78)" in lines[1] and "canvas-103" in lines[1] and "exchange-bob" in lines[1]
    # the email that starts a formula is not written guarded (Moodle could not find the user): listed
    assert lines[2].startswith("not written, their Email address starts with") and "canvas-102" in lines[2]
    (course.root / "autograder" / "roster.json").unlink()      # without a roster, Moodle can be told no one
    with pytest.raises(NotebookError, match="no grade of 01_softmax to write for moodle: not written, no Email "
                                            "address in the roster .*canvas-101, canvas-102"):
        lms.export(course, config, "01_softmax", "moodle", tmp_path / "none.csv")
    assert not (tmp_path / "none.csv").exists()


def test_moodle_keyed_by_id_number(course, tmp_path):
    course, config = course
    out = tmp_path / "moodle.csv"
    lines = lms.export(course, config, "01_softmax", "moodle", out, key="idnumber", column="Softmax (nbgrader)")
    rows = _read(out)
    assert rows[0][-1] == "Softmax (nbgrader)"
    assert sorted(row[2] for row in rows[1:]) == ["77", "78", "S-101"]     # 78 has an ID number, no email
    assert {row[2]: row[-1] for row in rows[1:]}["78"] == "1"
    assert "canvas-102" in lines[-1]                  # its ID number "=2+2" would be a formula


def test_an_out_of_date_late_penalty_stops_the_export(course, tmp_path):
    """A manual grade given after the class run changes what the late policy takes off: the export says
    so instead of sending the LMS a stale grade, and the class run's refresh brings it up to date."""
    course, config = course
    from autograder import late
    with Gradebook(course.gradebook_url) as gradebook:
        gradebook.find_grade("written", "softmax", "01_softmax", "canvas-102").manual_score = 3
        gradebook.db.commit()
    with pytest.raises(NotebookError, match=r"late penalty of 1 submission\(s\) of 01_softmax .* out of date"):
        lms.export(course, config, "01_softmax", "canvas", tmp_path / "c.csv", column="A (1)")
    assert late.refresh(course, config, "01_softmax", out=sys.stderr) == ["canvas-102"]
    lms.export(course, config, "01_softmax", "canvas", tmp_path / "c.csv", column="A (1)")
    assert {row[1]: row[-1] for row in _read(tmp_path / "c.csv")[1:]}["102"] == "6.3"   # 7 - 10 %


def test_the_command_line(course, tmp_path):
    course, _ = course
    out = tmp_path / "g.csv"
    command = [sys.executable, "-m", "autograder", "export", "01_softmax", "--to", "moodle", str(out),
               "--course-root", str(course.root)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=helpers.REPO)
    assert done.returncode == 0 and done.stdout.startswith(f"wrote {out}: 2 grade(s)"), done.stderr
    refused = subprocess.run(command[:6] + ["canvas", str(out), "--course-root", str(course.root)],
                             capture_output=True, text=True, cwd=helpers.REPO)
    assert refused.returncode != 0 and refused.stderr.count("\n") == 1, refused.stderr
    assert refused.stderr.startswith("autograder: --column is required for Canvas")


# --------------------------------------------------------------------------- feedback
def _moodle_match(path, participants):
    """Moodle's assignfeedback_file_zip_importer::is_valid_filename_for_import, transcribed: (participant,
    plugin, file name) or None."""
    name = path.rsplit("/", 1)[-1]
    if name.startswith((".", "~")):
        return None
    parts = path.split("/")
    while parts:
        info = parts.pop(0).split("_", 4)
        if len(info) < 4 or not info[1].isdigit() or info[1] not in participants:
            continue
        plugin = (info[2], info[3])
        if plugin not in (("assignsubmission", "file"), ("assignsubmission", "onlinetext")):
            continue
        return info[1], plugin, "/".join([info[4] if len(info) > 4 else "", *parts]).lstrip("/")
    return None


def _canvas_match(path):
    """Canvas's Assignment#infer_comment_context_from_filename: the first two all-digit pieces."""
    pieces = path.rsplit("/", 1)[-1].split("_")
    ids = [piece for piece in pieces if piece.isdigit()][:2]
    return tuple(ids) if len(ids) == 2 else None


def _feedback(root, student, html="<html><body>Score: 7 / 8</body></html>", name="softmax.html"):
    folder = root / "autograder" / "feedback" / student / "01_softmax"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(html, encoding="utf-8")


def _origins(root, origins):
    folder = root / "autograder" / "collected"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "01_softmax.json").write_text(json.dumps(origins, ensure_ascii=False), encoding="utf-8")


def test_moodle_feedback_zip_keeps_the_exported_folders(tmp_path):
    root = helpers.course(tmp_path)
    origins = {
        "moodle-id-77": {"lms": "moodle", "folder": "Ana Pérez_123456_assignsubmission_file_",
                         "files": ["Ana Pérez_123456_assignsubmission_file_/softmax.ipynb"], "display": "Ana Pérez",
                         "late": False, "participant": "123456"},
        # blind marking: Moodle writes "Participant <n>" for the name
        "moodle-123457": {"lms": "moodle", "folder": "Participant 123457_123457_assignsubmission_file",
                          "files": ["Participant 123457_123457_assignsubmission_file/softmax.ipynb"],
                          "display": "Participant 123457", "late": False, "participant": "123457"},
        # the flat layout (no folders): the prefix before the file's name
        "moodle-id-78": {"lms": "moodle", "folder": "",
                         "files": ["No Email_123458_assignsubmission_file_softmax.ipynb"], "display": "No Email",
                         "late": False, "participant": "123458"},
        "canvas-101": {"lms": "canvas", "folder": "", "files": ["martinzoe_101_9001_softmax.ipynb"],
                       "display": "martinzoe", "late": False, "participant": "101"},
    }
    _origins(root, origins)
    for student in [*origins, "exchange-bob"]:
        _feedback(root, student)
    _feedback(root, "moodle-id-77", name="extra.html", html="<p>second page</p>")
    (root / "autograder" / "feedback" / "moodle-id-78" / "01_softmax" / "notes.txt").write_text("not a page")
    course = courses.course_at(root)
    out = tmp_path / "feedback.zip"
    lines = lms.release_feedback(course, "01_softmax", "moodle", out)

    with zipfile.ZipFile(out) as archive:
        names = archive.namelist()
        assert sorted(names) == sorted([
            "Ana Pérez_123456_assignsubmission_file_/extra.html",
            "Ana Pérez_123456_assignsubmission_file_/softmax.html",
            "Participant 123457_123457_assignsubmission_file/softmax.html",
            "No Email_123458_assignsubmission_file_softmax.html"])
        assert all(info.flag_bits & 0x800 for info in archive.infolist() if not info.filename.isascii())
        assert archive.read("Ana Pérez_123456_assignsubmission_file_/extra.html") == b"<p>second page</p>"
        participants = {origin["participant"]: student for student, origin in origins.items()}
        matched = {name: _moodle_match(name, participants) for name in names}
    assert {participants[m[0]] for m in matched.values()} == {"moodle-id-77", "moodle-123457", "moodle-id-78"}
    assert {m[2] for m in matched.values()} == {"softmax.html", "extra.html"}
    assert lines[0].startswith(f"wrote {out}: the feedback of 3 student(s) (4 page(s)")
    assert lines[1:] == ["not in the zip, collected from canvas, not moodle: canvas-101",
                         "not in the zip, no record of where the submission came from: exchange-bob"]


def test_canvas_feedback_zip_keeps_each_students_file_prefix(tmp_path):
    root = helpers.course(tmp_path)
    _origins(root, {
        "canvas-101": {"lms": "canvas", "folder": "", "files": ["martinzoë_101_9001_softmax.ipynb"],
                       "display": "martinzoë", "late": False, "participant": "101"},
        # a late resubmission whose own name holds digits between underscores, and a second file
        "canvas-102": {"lms": "canvas", "folder": "", "late": True, "participant": "102", "display": "doejohn",
                       "files": ["doejohn_LATE_102_9002_notes_2_3.txt", "doejohn_LATE_102_9003_softmax-1.ipynb"]},
        "canvas-103": {"lms": "canvas", "folder": "", "files": ["someone_104_9004_softmax.ipynb"],
                       "display": "someone", "late": False, "participant": "103"},
    })
    for student in ("canvas-101", "canvas-102", "canvas-103"):
        _feedback(root, student)
    out = tmp_path / "canvas.zip"
    lines = lms.release_feedback(courses.course_at(root), "01_softmax", "canvas", out)
    with zipfile.ZipFile(out) as archive:
        names = sorted(archive.namelist())
    assert names == ["doejohn_LATE_102_9003_softmax.html", "martinzoë_101_9001_softmax.html"]
    assert [_canvas_match(name) for name in names] == [("102", "9003"), ("101", "9001")]
    assert lines[1] == "not in the zip, no file name of Canvas's with the student's user id: canvas-103"


def test_nothing_to_release_is_one_line(tmp_path):
    root = helpers.course(tmp_path)
    with pytest.raises(NotebookError, match="no feedback of 01_softmax to release to moodle .*generate_feedback"):
        lms.release_feedback(courses.course_at(root), "01_softmax", "moodle", tmp_path / "f.zip")
    _feedback(root, "exchange-bob")
    with pytest.raises(NotebookError, match="no record of where the submission came from: 1"):
        lms.release_feedback(courses.course_at(root), "01_softmax", "moodle", tmp_path / "f.zip")
    assert not (tmp_path / "f.zip").exists()


def test_a_page_too_large_or_a_link_is_left_out(tmp_path, monkeypatch):
    root = helpers.course(tmp_path)
    _origins(root, {s: {"lms": "moodle", "folder": f"N_{n}_assignsubmission_file_", "files": [], "display": "N",
                        "late": False, "participant": str(n)} for n, s in ((1, "a"), (2, "b"), (3, "c"))})
    _feedback(root, "a", html="x" * 2000)
    _feedback(root, "b")
    outside = tmp_path / "secret.html"
    outside.write_text("not feedback")
    folder = root / "autograder" / "feedback" / "c" / "01_softmax"
    folder.mkdir(parents=True)
    (folder / "softmax.html").symlink_to(outside)
    monkeypatch.setattr(lms, "MAX_PAGE_BYTES", 1000)
    lines = lms.release_feedback(courses.course_at(root), "01_softmax", "moodle", tmp_path / "f.zip")
    with zipfile.ZipFile(tmp_path / "f.zip") as archive:
        assert archive.namelist() == ["N_2_assignsubmission_file_/softmax.html"]
    assert lines[1] == "not in the zip, a page larger than 0 MiB: a"


# --------------------------------------------------------------------------- one LMS identity, one row
def _submit(root, student, auto):
    """One more on-time submission of 01_softmax in the fixture's gradebook."""
    with warnings.catch_warnings(), Gradebook(courses.course_at(root).gradebook_url) as gradebook:
        warnings.simplefilter("ignore")
        gradebook.add_student(student)
        gradebook.add_submission("01_softmax", student, timestamp=DUE - datetime.timedelta(hours=1))
        gradebook.find_grade("test_softmax", "softmax", "01_softmax", student).auto_score = auto
        written = gradebook.find_grade("written", "softmax", "01_softmax", student)
        written.auto_score, written.manual_score = None, 0   # graded by hand
        gradebook.db.commit()


def _roster(root, *extra):
    (root / "autograder" / "roster.json").write_text(
        json.dumps({"lms": "canvas", "imported_from": "grades.csv", "students": ROSTER + list(extra)}),
        encoding="utf-8")


def test_canvas_never_gets_two_rows_for_one_user_id(course, tmp_path):
    """A roster giving a second student Canvas user 101, and a third 0103 (Canvas's user 103, whom collect
    named canvas-103): none of their rows is written, which one is right cannot be known; one line names
    them."""
    course, config = course
    _roster(course.root, dict(ROSTER[0], student="canvas-555"),
            dict(ROSTER[0], student="canvas-556", name="Some One", lms_id="0103"))
    _submit(course.root, "canvas-555", 1)
    _submit(course.root, "canvas-556", 2)
    out = tmp_path / "canvas.csv"
    lines = lms.export(course, config, "01_softmax", "canvas", out, column="01 Softmax (1234)")
    rows = _read(out)
    assert [row[1] for row in rows[1:]] == ["102"]                    # only the one student Canvas can be told
    assert lines[0].startswith(f"wrote {out}: 1 grade(s)")
    shared = [line for line in lines if "the same Canvas user id" in line]
    assert len(shared) == 1 and "\n" not in shared[0]
    assert shared[0].startswith("not written, students with the same Canvas user id (whose grade a row is "
                                "could not be known): ")
    assert "canvas-101 and canvas-555 have 101; canvas-103 and canvas-556 have 0103 and 103; " in shared[0]
    assert "nbgrader db student remove ID --force" in shared[0]


def test_moodle_never_gets_two_rows_for_one_key(course, tmp_path):
    """Two roster entries whose emails differ only in case are one Moodle user to its import (it compares
    emails in any case): both are left out; keyed by ID number, they are two users and both are written."""
    course, config = course
    _roster(course.root, dict(ROSTER[2], student="moodle-id-79", name="Ana P", email="ANA@uni.example ",
                              sis_id="79"))
    _submit(course.root, "moodle-id-79", 4)
    out = tmp_path / "moodle.csv"
    lines = lms.export(course, config, "01_softmax", "moodle", out)
    assert [row[3] for row in _read(out)[1:]] == ["zoe@uni.example"]
    assert lines[-1] == ("not written, students with the same Email address in the roster (whose grade a row is "
                         "could not be known): moodle-id-77 and moodle-id-79 have 'ANA@uni.example ' and "
                         "ana@uni.example; either a student was collected under two ids (remove the stale one: its "
                         "folders under autograder/submitted/ and autograder/feedback/, and from autograder/: "
                         "nbgrader db student remove ID --force) or the roster gives two students one")
    lms.export(course, config, "01_softmax", "moodle", out, key="idnumber")
    assert {row[2]: row[-1] for row in _read(out)[1:]} == {"S-101": "7", "77": "2", "78": "1", "79": "4"}


def _two_collects(root):
    """What two collects of the same Moodle zip leave, the first before the roster (moodle-601), the second
    with it (moodle-alice-...): two students claiming Alice's exported folder."""
    folder = "Alice Able_601_assignsubmission_file"
    origins = {student: {"lms": "moodle", "folder": folder, "files": [f"{folder}/softmax.ipynb"],
                         "display": "Alice Able", "late": False, "participant": "601"}
               for student in ("moodle-601", "moodle-alice-at-uni-example")}
    for student in origins:
        _feedback(root, student, html=f"<p>{student}</p>")
    return origins


def test_two_students_claiming_one_moodle_participant_are_left_out(tmp_path):
    root = helpers.course(tmp_path)
    origins = _two_collects(root)
    origins["moodle-602"] = {"lms": "moodle", "folder": "Bob Smith_602_assignsubmission_file_",
                             "files": ["Bob Smith_602_assignsubmission_file_/softmax.ipynb"], "display": "Bob Smith",
                             "late": False, "participant": "602"}
    # renamed in Moodle between two downloads: two folder names, one participant
    for student, name in (("moodle-603", "Carol Doe"), ("moodle-carol-at-uni-example", "Carol Roe")):
        origins[student] = {"lms": "moodle", "folder": "", "files": [f"{name}_603_assignsubmission_file_nb.ipynb"],
                            "display": name, "late": False, "participant": "603"}
    _origins(root, origins)
    for student in ("moodle-602", "moodle-603", "moodle-carol-at-uni-example"):
        _feedback(root, student)
    out = tmp_path / "feedback.zip"
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # zipfile's "Duplicate name" would be one
        lines = lms.release_feedback(courses.course_at(root), "01_softmax", "moodle", out)
    with zipfile.ZipFile(out) as archive:
        assert archive.namelist() == ["Bob Smith_602_assignsubmission_file_/softmax.html"]
    assert lines[0].startswith(f"wrote {out}: the feedback of 1 student(s) (1 page(s)")
    assert lines[1:] == [
        "not in the zip, students claiming the same Moodle participant (which one's pages are right cannot be "
        "known): moodle-601 and moodle-alice-at-uni-example claim 'Alice Able_601_assignsubmission_file'; "
        "moodle-603 and moodle-carol-at-uni-example claim 'Carol Doe_603_assignsubmission_file_' and "
        "'Carol Roe_603_assignsubmission_file_'; remove the stale student's folder under autograder/submitted/ "
        "and autograder/feedback/ and collect 01_softmax again"]


def test_nothing_but_a_contested_folder_is_one_line_and_no_zip(tmp_path):
    root = helpers.course(tmp_path)
    _origins(root, _two_collects(root))
    out = tmp_path / "feedback.zip"
    done = subprocess.run([sys.executable, "-W", "default", "-m", "autograder", "release_feedback", "01_softmax",
                           "--to", "moodle", str(out), "--course-root", str(root)],
                          capture_output=True, text=True, cwd=helpers.REPO)
    assert done.returncode != 0 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith("autograder: no feedback of 01_softmax to release to moodle (not in the zip, "
                                  "students claiming the same Moodle participant")
    assert "moodle-601 and moodle-alice-at-uni-example claim 'Alice Able_601_assignsubmission_file'" in done.stderr
    assert not out.exists() and not list(tmp_path.glob(".partial-*"))


def test_two_students_claiming_one_canvas_user_are_left_out(tmp_path):
    """Canvas reads the user id from the name: two students with files of user 101 (two downloads, two
    attachment ids) would both land on her submission."""
    root = helpers.course(tmp_path)
    _origins(root, {
        "canvas-101": {"lms": "canvas", "folder": "", "files": ["martinzoe_101_9001_softmax.ipynb"],
                       "display": "martinzoe", "late": False, "participant": "101"},
        "zoe-old": {"lms": "canvas", "folder": "", "files": ["martinzoe_LATE_101_9005_softmax.ipynb"],
                    "display": "martinzoe", "late": True, "participant": "101"},
        "canvas-102": {"lms": "canvas", "folder": "", "files": ["doejohn_102_9002_softmax.ipynb"],
                       "display": "doejohn", "late": False, "participant": "102"},
    })
    for student in ("canvas-101", "zoe-old", "canvas-102"):
        _feedback(root, student)
    out = tmp_path / "canvas.zip"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lines = lms.release_feedback(courses.course_at(root), "01_softmax", "canvas", out)
    with zipfile.ZipFile(out) as archive:
        assert archive.namelist() == ["doejohn_102_9002_softmax.html"]
    assert lines[1:] == [
        "not in the zip, students claiming the same Canvas user id (which one's pages are right cannot be known): "
        "canvas-101 and zoe-old claim martinzoe_101_9001_ and martinzoe_LATE_101_9005_; remove the stale "
        "student's folder under autograder/submitted/ and autograder/feedback/ and collect 01_softmax again"]


def test_written_answers_not_graded_yet_stop_the_export_unless_partial(course, tmp_path):
    """Scores so far, uploaded as if final, would be the LMS's grades: the export names who awaits hand
    grading and writes nothing; --partial writes the scores so far and says they are not final."""
    course, config = course
    with warnings.catch_warnings(), Gradebook(course.gradebook_url) as gradebook:
        warnings.simplefilter("ignore")
        gradebook.find_grade("written", "softmax", "01_softmax", "canvas-103").manual_score = None
        gradebook.db.commit()
    out = tmp_path / "grades.csv"
    with pytest.raises(NotebookError, match=r"1 student\(s\) of 01_softmax have written answers not graded yet "
                                            r"\(3 points in all; grade them in Formgrader\): canvas-103; or export "
                                            r"the scores so far with --partial"):
        lms.export(course, config, "01_softmax", "canvas", out, column="01 Softmax (1234)")
    assert not out.exists()
    lines = lms.export(course, config, "01_softmax", "canvas", out, column="01 Softmax (1234)", partial=True)
    assert lines[-1].endswith("canvas-103 (--partial: these scores are not final)")
    assert ["", "103", "", "", "", "5"] in [row[:1] and ["", *row[1:]] for row in _read(out)]
