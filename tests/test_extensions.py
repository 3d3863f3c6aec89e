"""Per-student due dates (autograder/extensions.csv) and the course's late policy (autograder/late.py).

A late submission inside its extension has no penalty, one outside it has the policy's; the
gradebook, the feedback page and the LMS export all show the same penalty.  The penalty follows
the file: a row changed after grading changes it at the next class run.  Bad rows are one line
naming the row.
"""
import datetime
import io
import json
import subprocess
import sys
import warnings
import zipfile

import pytest
from nbgrader.api import Gradebook

import helpers
from autograder import course as courses
from autograder import late, lms
from autograder.notebooks import NotebookError

CORRECT = helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py"
DUE = datetime.datetime(2026, 1, 10, 15, 0)          # 2026-01-11 00:00 in Tokyo, as nbgrader keeps it: naive UTC


def _extensions(root, text):
    path = root / late.EXTENSIONS
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


# --------------------------------------------------------------------------- the policy
@pytest.mark.parametrize("seconds, percent", [(0, 0), (1, 10), (86400, 10), (86401, 20), (3 * 86400, 30),
                                              (30 * 86400, 50)])
def test_ten_percent_per_started_day_at_most_half(seconds, percent):
    policy = late.LatePenalty()
    assert policy.late_submission_penalty("s", 8.0, seconds) == pytest.approx(8.0 * percent / 100)


def test_the_policy_is_configurable_and_nbgraders_methods_remain():
    from traitlets.config import Config
    config = Config({"LatePenalty": {"percent_per_day": 25.0, "max_percent": 100.0, "grace_minutes": 10.0}})
    policy = late.LatePenalty(config=config)
    assert policy.late_submission_penalty("s", 4.0, 9 * 60) == 0          # inside the grace period
    assert policy.late_submission_penalty("s", 4.0, 11 * 60) == 1.0
    assert policy.late_submission_penalty("s", 4.0, 10 * 86400) == 4.0
    zero = late.LatePenalty(config=Config({"LateSubmissionPlugin": {"penalty_method": "zero"}}))
    assert zero.late_submission_penalty("s", 4.0, 60) == 4.0            # nbgrader's section still applies
    assert late.LatePenalty(penalty_method="none").late_submission_penalty("s", 4.0, 60) is None


def test_the_course_configures_it():
    config = courses.load_config()
    from nbgrader.preprocessors import AssignLatePenalties
    step = AssignLatePenalties(config=config)
    step.init_plugin()
    assert isinstance(step.plugin_inst, late.LatePenalty)
    steps = [getattr(s, "__name__", s) for s in config.Autograde.autograde_preprocessors]
    assert steps.index("ApplyExtensions") == steps.index("AssignLatePenalties") - 1


# --------------------------------------------------------------------------- extensions.csv
def test_extensions_are_read_as_utc(tmp_path):
    root = helpers.course(tmp_path)
    _extensions(root, "\ufeffStudent,Assignment,Due,Note\n"
                      "canvas-1,01_softmax,2026-01-12T09:00:00+09:00,flu\n\n"
                      "moodle-id-7,01_softmax,2026-01-12T00:00:00Z\n")
    assert late.read(courses.course_at(root)) == {("canvas-1", "01_softmax"): datetime.datetime(2026, 1, 12, 0, 0),
                                                  ("moodle-id-7", "01_softmax"): datetime.datetime(2026, 1, 12, 0, 0)}


@pytest.mark.parametrize("rows, message", [
    ("alice,01_softmax,2026-01-12 23:59\n", r"row 2: the due date '2026-01-12 23:59' .* \(no time zone"),
    ("alice,01_softmax,next friday\n", r"row 2: the due date 'next friday' is not an ISO 8601"),
    ("alice,01_softmax,2026-01-12T00:00Z\nbob,1_softmax,2026-01-12T00:00Z\n",
     r"row 3: no assignment 1_softmax in the course \(it has: 01_softmax"),
    ("alice,01_softmax,2026-01-12T00:00Z\nalice,01_softmax,2026-01-13T00:00Z\n",
     r"row 3: alice already has a due date for 01_softmax \(row 2\)"),
    (",01_softmax,2026-01-12T00:00Z\n", r"row 2: the student must be a student id"),
    # no such instant in UTC (datetime's years end at 9999 and start at 1): out of range, not a crash
    ("alice,01_softmax,2026-01-12T00:00Z\nbob,01_softmax,9999-12-31T23:59:59-14:00\n",
     r"row 3: the due date '9999-12-31T23:59:59-14:00' is out of range: a year from 1970 to 9999 in UTC$"),
    ("alice,01_softmax,0001-01-01T00:00:00+01:00\n", r"row 2: the due date '0001-01-01T00:00:00\+01:00' is out of "
                                                      r"range"),
    ("alice,01_softmax,1969-12-31T23:59:59Z\n", r"row 2: the due date '1969-12-31T23:59:59Z' is out of range"),
])
def test_a_bad_row_is_one_line_naming_it(tmp_path, rows, message):
    root = helpers.course(tmp_path)
    _extensions(root, "student,assignment,due\n" + rows)
    with pytest.raises(NotebookError, match=message) as raised:
        late.read(courses.course_at(root))
    assert str(raised.value).startswith(late.EXTENSIONS) and "\n" not in str(raised.value)


def test_a_file_without_the_columns_or_too_large_is_refused(tmp_path, monkeypatch):
    root = helpers.course(tmp_path)
    _extensions(root, "name,when\nalice,tomorrow\n")
    with pytest.raises(NotebookError, match="row 1: the header must name the columns student, assignment, due"):
        late.read(courses.course_at(root))
    _extensions(root, "student,assignment,due\n" + "alice,01_softmax,2026-01-12T00:00Z\n" * 3)
    monkeypatch.setattr(late, "MAX_BYTES", 64)
    with pytest.raises(NotebookError, match="larger than 0 kB"):
        late.read(courses.course_at(root))


# --------------------------------------------------------------------------- a class, late
def _submit(root, student, when):
    helpers.write(helpers.submission("01_softmax", CORRECT.read_text()), helpers.submitted(root, student))
    helpers.submitted(root, student, "timestamp.txt").write_text(when)   # as nbgrader's exchange writes it


def _penalties(root):
    with Gradebook(courses.course_at(root).gradebook_url) as gradebook:
        return {s.student.id: (s.score, s.late_submission_penalty, s.extension)
                for s in gradebook.assignment_submissions("01_softmax")}


@pytest.mark.nbgrader
def test_a_late_submission_inside_its_extension_has_no_penalty_outside_it_has_one(tmp_path):
    root = helpers.course(tmp_path)
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    with Gradebook(courses.course_at(root).gradebook_url) as gradebook:
        gradebook.update_or_create_assignment("01_softmax", duedate=DUE)
    _submit(root, "canvas-101", "2026-01-10 14:00:00.000000 UTC")     # on time
    _submit(root, "canvas-102", "2026-01-11 10:00:00.000000 UTC")     # 19 h late, inside her extension
    _submit(root, "canvas-103", "2026-01-11 20:00:00.000000 UTC")     # 29 h late, 8 h after his extension
    _extensions(root, "student,assignment,due\n"
                      "canvas-102,01_softmax,2026-01-12T09:00:00+09:00\n"    # 2026-01-12 00:00 UTC
                      "canvas-103,01_softmax,2026-01-11T12:00:00+00:00\n")
    helpers.nbgrader("autograde", "01_softmax", root=root)   # nbgrader's own command: ApplyExtensions is in it

    graded = _penalties(root)
    assert graded["canvas-101"] == (7.0, 0.0, None)
    assert graded["canvas-102"] == (7.0, 0.0, datetime.timedelta(days=1, hours=9))
    assert graded["canvas-103"][:2] == (7.0, pytest.approx(0.7))      # one started day late: 10 %

    # His extension withdrawn after grading: the class run's refresh gives him the policy's two days
    course = courses.course_at(root)
    config = courses.load_config(root)
    _extensions(root, "student,assignment,due\ncanvas-102,01_softmax,2026-01-12T09:00:00+09:00\n")
    assert late.stale(course, config, "01_softmax") == ["canvas-103"]
    assert late.refresh(course, config, "01_softmax") == ["canvas-103"]
    graded = _penalties(root)
    assert graded["canvas-103"] == (7.0, pytest.approx(1.4), None) and graded["canvas-102"][1] == 0.0

    # The feedback and the LMS's files show it
    helpers.nbgrader("generate_feedback", "01_softmax", root=root)
    page = (root / "autograder" / "feedback" / "canvas-103" / "01_softmax" / "softmax.html").read_text()
    assert "Late submission penalty (Score: -1.4)" in page
    for student in ("canvas-101", "canvas-102"):
        page = (root / "autograder" / "feedback" / student / "01_softmax" / "softmax.html").read_text()
        assert "Late submission penalty" not in page
    lms.export(course, config, "01_softmax", "canvas", tmp_path / "grades.csv", column="01 Softmax (77)")
    rows = (tmp_path / "grades.csv").read_text(encoding="utf-8-sig").splitlines()
    assert rows[1:] == ["canvas-101,101,,,,7", "canvas-102,102,,,,7", "canvas-103,103,,,,5.6"]

    # The real pages, packaged for Canvas's re-upload under the names collect recorded
    origins = {f"canvas-{n}": {"lms": "canvas", "folder": "", "files": [f"student{n}_{n}_{9000 + n}_softmax.ipynb"],
                               "display": f"student{n}", "late": n != 101, "participant": str(n)}
               for n in (101, 102, 103)}
    (root / "autograder" / "collected").mkdir()
    (root / "autograder" / "collected" / "01_softmax.json").write_text(json.dumps(origins))
    lms.release_feedback(course, "01_softmax", "canvas", tmp_path / "feedback.zip")
    with zipfile.ZipFile(tmp_path / "feedback.zip") as archive:
        assert sorted(archive.namelist()) == [f"student{n}_{n}_{9000 + n}_softmax.html" for n in (101, 102, 103)]
        assert b"Late submission penalty (Score: -1.4)" in archive.read("student103_103_9103_softmax.html")


# --------------------------------------------------------------------------- rows that name no submission
def _graded(root, *students):
    """01_softmax in the gradebook with one code test (5 points) and an on-time submission of each student."""
    with warnings.catch_warnings(), Gradebook(courses.course_at(root).gradebook_url) as gradebook:
        warnings.simplefilter("ignore")              # nbgrader 0.9 on SQLAlchemy 2: autoflush
        gradebook.add_assignment("01_softmax", duedate=DUE)
        gradebook.add_notebook("softmax", "01_softmax")
        gradebook.add_grade_cell("test_softmax", "softmax", "01_softmax", max_score=5, cell_type="code")
        for student in students:
            gradebook.add_student(student)
            gradebook.add_submission("01_softmax", student, timestamp=DUE - datetime.timedelta(hours=1))
            gradebook.find_grade("test_softmax", "softmax", "01_softmax", student).auto_score = 5
        gradebook.db.commit()


def test_a_row_naming_no_submission_is_said_in_one_line(tmp_path):
    """A typo, an id in the wrong case, a name for an id: the extension would silently apply to no one.
    The class run's refresh and the export say which rows, and go on; a student collected and not
    graded yet, and a row of another assignment, are not listed."""
    root = helpers.course(tmp_path)
    _graded(root, "canvas-101", "canvas-102", "moodle-alice-at-uni-example")
    helpers.write(helpers.submission("01_softmax", CORRECT.read_text()), helpers.submitted(root, "canvas-104"))
    (helpers.submitted(root, "canvas-104").parent / "timestamp.txt").write_text("2026-01-11 10:00:00.000000 UTC")
    _extensions(root, "student,assignment,due\n"
                      "canvas-101,01_softmax,2026-01-12T00:00Z\n"
                      "CANVAS-102,01_softmax,2026-01-12T00:00Z\n"
                      "Alice Able,01_softmax,2026-01-12T00:00Z\n"
                      "canvas-104,01_softmax,2026-01-12T00:00Z\n"
                      "canvas-105,02_seq2seq,2026-01-12T00:00Z\n"
                      "canvas-1O1,01_softmax,2026-01-12T00:00Z\n")
    expected = ("autograder/extensions.csv: row 3 CANVAS-102 (did you mean canvas-102?), row 4 'Alice Able', "
                "row 7 canvas-1O1: each names no student with a submission of 01_softmax, so it extends no one's due "
                "date (a student id, as in autograder/submitted/, in its case; or a student who has not submitted yet)")
    course, config = courses.course_at(root), courses.load_config(root)
    out = io.StringIO()
    assert late.refresh(course, config, "01_softmax", out=out) == []
    assert out.getvalue() == expected + "\n"
    assert _penalties(root)["canvas-101"][2] == datetime.timedelta(days=1, hours=9)   # the right row applies
    assert _penalties(root)["canvas-102"][2] is None
    lines = lms.export(course, config, "01_softmax", "canvas", tmp_path / "grades.csv", column="01 Softmax (77)")
    assert lines[-1] == expected

    _extensions(root, "student,assignment,due\nCanvas-101,01_softmax,2026-01-12T00:00Z\n")
    out = io.StringIO()
    late.refresh(course, config, "01_softmax", out=out)
    assert out.getvalue() == ("autograder/extensions.csv: row 2 Canvas-101 (did you mean canvas-101?): names no "
                              "student with a submission of 01_softmax, so it extends no one's due date (a student "
                              "id, as in autograder/submitted/, in its case; or a student who has not submitted "
                              "yet)\n")
    assert _penalties(root)["canvas-101"][2] is None                              # withdrawn: no row names her

    _extensions(root, "student,assignment,due\ncanvas-101,01_softmax,2026-01-12T00:00Z\n")
    out = io.StringIO()
    late.refresh(course, config, "01_softmax", out=out)
    assert out.getvalue() == ""
    lines = lms.export(course, config, "01_softmax", "canvas", tmp_path / "grades.csv", column="01 Softmax (77)")
    assert not [line for line in lines if late.EXTENSIONS in line]


def test_the_earliest_and_latest_due_dates_fit_the_gradebook(tmp_path):
    """The gradebook keeps an extension as 1970 plus it (SQLite has no interval type): the range's ends go
    in and come back."""
    root = helpers.course(tmp_path)
    _graded(root, "canvas-101", "canvas-102")
    _extensions(root, "student,assignment,due\ncanvas-101,01_softmax,1970-01-01T00:00:00Z\n"
                      "canvas-102,01_softmax,9999-12-31T23:59:59Z\n")
    late.refresh(courses.course_at(root), courses.load_config(root), "01_softmax", out=io.StringIO())
    graded = _penalties(root)
    assert DUE + graded["canvas-101"][2] == datetime.datetime(1970, 1, 1)
    assert DUE + graded["canvas-102"][2] == datetime.datetime(9999, 12, 31, 23, 59, 59)


def test_a_due_date_out_of_range_stops_the_export_in_one_line(tmp_path):
    root = helpers.course(tmp_path)
    _graded(root, "canvas-101")
    _extensions(root, "student,assignment,due\ncanvas-101,01_softmax,9999-12-31T23:59:59-14:00\n")
    done = subprocess.run([sys.executable, "-m", "autograder", "export", "01_softmax", "--to", "canvas",
                           str(tmp_path / "grades.csv"), "--column", "01 Softmax (77)", "--course-root", str(root)],
                          capture_output=True, text=True, cwd=helpers.REPO)
    assert done.returncode != 0 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr == ("autograder: autograder/extensions.csv, row 2: the due date '9999-12-31T23:59:59-14:00' "
                           "is out of range: a year from 1970 to 9999 in UTC\n")
    assert not (tmp_path / "grades.csv").exists()


def test_an_extension_for_a_submission_without_its_time_is_said_to_change_nothing(tmp_path):
    """An LMS's zip gives no submission time: the extension of a student collected from one changes no
    penalty here, and one line says so (an exchange submission, with its timestamp.txt, is not named)."""
    root = helpers.course(tmp_path)
    course = courses.course_at(root)
    for student, stamped in (("canvas-7", False), ("exchange-8", True)):
        folder = course.submitted / student / "01_softmax"
        folder.mkdir(parents=True)
        if stamped:
            (folder / "timestamp.txt").write_text("2026-05-11 10:00:00.000000 UTC")
    (root / "autograder" / "extensions.csv").write_text(
        "student,assignment,due\ncanvas-7,01_softmax,2026-05-12T23:59:00+09:00\n"
        "exchange-8,01_softmax,2026-05-12T23:59:00+09:00\n")
    assert late.untimed(course, "01_softmax") == (
        "autograder/extensions.csv: 1 student(s) of 01_softmax have no submission time (collected from an LMS's "
        "zip), so no late penalty is computed for them here and their extension changes nothing: give it in the "
        "LMS (canvas-7)")


def test_the_class_runs_summary_shows_the_late_penalty_the_export_takes_off():
    from autograder import classrun
    summary = io.StringIO()
    classrun.print_summary("01_softmax", [classrun.Outcome("late-1", True, 7, 8, late_penalty=0.7),
                                          classrun.Outcome("on-time", True, 8, 8)], out=summary)
    assert summary.getvalue().splitlines()[1:] == ["  late-1   7/8 (-0.7 late)", "  on-time              8/8"]
