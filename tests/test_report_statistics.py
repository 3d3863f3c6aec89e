"""The report's statistics (issue 31, part 5): per test, per mistake, per cause, late, missing.

One scratch class is graded once by the class run, with short limits: a correct
and a wrong solution, a syntax error, ``import torch``, an import of the book's
library (which the grader hides), an endless loop, a late submission, and a
roster student who submitted nothing.  The gradebook then gets a hand grade, a
changed score and a written answer left to grade.  The report's numbers must be
those computed here from the gradebook by other means; the errors that stopped a
notebook are split by cause; the class's page and CSVs name nobody, the
instructor's files name everyone concerned, with the roster's names; every CSV
reads back with ``csv.reader`` without a formula cell; the Japanese report is
Japanese.
"""
import collections
import csv
import datetime
import io
import json
import math
import os
import shutil
import statistics
import subprocess
import sys

import nbformat
import pytest

import helpers
import translation
from autograder import classrun, i18n, late, lms, notebooks, report
from autograder import course as courses
from autograder.course import course_at
from autograder.results import Kind

ASSIGNMENT = "01_softmax"
CORRECT = (helpers.SUBMISSIONS / ASSIGNMENT / "correct" / "logsumexp.py").read_text()
AXIS_IGNORED = (helpers.SUBMISSIONS / ASSIGNMENT / "wrong" / "axis_ignored.py").read_text()
LIMITS = {"cell_seconds": 1.5, "call_seconds": 2.0, "total_seconds": 30.0, "cpu_seconds": 30}
DUE, SUBMITTED_LATE = "2030-01-01 00:00:00 UTC", "2030-01-02 12:00:00 UTC"   # 36 hours late


def _syntax_error():
    notebook = helpers.submission(ASSIGNMENT, CORRECT)
    [cell] = [c for c in notebook.cells if notebooks.meta(c).get("grade_id") == "softmax_solution"]
    cell.source = "def softmax(x, axis=-1)\n    return x\n"
    return notebook


SUBMISSIONS = {
    "amy-correct": lambda: helpers.submission(ASSIGNMENT, CORRECT),
    "cal-axis": lambda: helpers.submission(ASSIGNMENT, AXIS_IGNORED),
    "sid-syntax": _syntax_error,
    "tor-import": lambda: helpers.submission(ASSIGNMENT, "import torch\n\n" + CORRECT),
    "ada-library": lambda: helpers.submission(ASSIGNMENT, "from attention.softmax import softmax as _s\n\n" + CORRECT),
    "lou-loop": lambda: helpers.submission(ASSIGNMENT, "while True:\n    pass\n\n" + CORRECT),
    "lia-late": lambda: helpers.submission(ASSIGNMENT, CORRECT),
}
# The roster: every student above, and one who submitted nothing.  Names a spreadsheet would run as a
# formula, or that would break a Markdown table, must reach the instructor's files as text.
NAMES = {"amy-correct": "Amy Adams", "cal-axis": "=HYPERLINK(\"http://x\",\"Cal\")", "sid-syntax": "Sid | Vicious",
         "tor-import": "Tor Nørretranders", "ada-library": "Ada Lovelace", "lou-loop": "Lou Reed",
         "lia-late": "Lia 山田", "zed-absent": "Zed Nobody"}
STOPPED = {"sid-syntax": "syntax_error", "tor-import": "package_outside_course", "ada-library": "missing_course_module",
           "lou-loop": "timeout"}


def _roster(root):
    students = [{"student": student, "name": name, "first_name": "", "last_name": "", "email": f"{student}@uni.example",
                 "lms_id": "", "sis_id": "", "login": "", "section": "", "participants": {}}
                for student, name in NAMES.items()]
    (root / "autograder" / "roster.json").write_text(
        json.dumps({"lms": "canvas", "imported_from": "grades.csv", "students": students}), encoding="utf-8")


def _hand_grades(root):
    """A hand grade of Amy's written answer, a changed score of Cal's axis test (with extra credit), and Lia's
    written answer left waiting for its hand grade."""
    from nbgrader.api import Gradebook
    with Gradebook(helpers.gradebook_url(root)) as gradebook:
        written = gradebook.find_grade("softmax_written_answer", "softmax", ASSIGNMENT, "amy-correct")
        written.manual_score = 1.0
        axis = gradebook.find_grade("test_softmax_axis", "softmax", ASSIGNMENT, "cal-axis")
        axis.manual_score, axis.extra_credit = 1.0, 0.5
        waiting = gradebook.find_grade("softmax_written_answer", "softmax", ASSIGNMENT, "lia-late")
        waiting.needs_manual_grade, waiting.manual_score, waiting.auto_score = True, None, None
        gradebook.db.commit()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The class, graded once by the class run; the gradebook's due date, a late timestamp, the roster, the
    LMS's late mark of one collected submission, and the hand grades."""
    from nbgrader.api import Gradebook
    root = helpers.course(tmp_path_factory.mktemp("statistics"))
    helpers.nbgrader("generate_assignment", ASSIGNMENT, root=root)
    with Gradebook(helpers.gradebook_url(root)) as gradebook:
        gradebook.update_or_create_assignment(ASSIGNMENT, duedate=DUE)
    for student, notebook in SUBMISSIONS.items():
        helpers.write(notebook(), helpers.submitted(root, student))
    (helpers.submitted(root, "lia-late").parent / "timestamp.txt").write_text(SUBMITTED_LATE)
    config = courses.load_config(root, helpers.gradebook_url(root))
    for name, value in LIMITS.items():
        setattr(config.SandboxedExecute, name, value)
    outcomes = classrun.grade_class(ASSIGNMENT, jobs=2, config=config, progress=False)
    assert sorted(o.student for o in outcomes) == sorted(SUBMISSIONS)
    # the class run's one-line reason names the error that stopped a learner's definitions
    reasons = {o.student: o.line for o in outcomes}
    assert "softmax.ipynb: cell" in reasons["sid-syntax"]
    assert "stopped with an error, SyntaxError" in reasons["sid-syntax"]
    assert "stopped with an error, ModuleNotFoundError" in reasons["tor-import"]
    _hand_grades(root)
    _roster(root)
    collected = root / "autograder" / "collected"
    collected.mkdir(parents=True, exist_ok=True)
    (collected / f"{ASSIGNMENT}.json").write_text(json.dumps(
        {"tor-import": {"lms": "canvas", "folder": "", "files": ["tor_LATE_1_2_softmax.ipynb"], "display": "Tor",
                        "late": True}}), encoding="utf-8")
    course = course_at(root)
    path = report.write_report(course, ASSIGNMENT)
    return course, path.parent


def _csv(path):
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


def _independent_scores(course):
    """{(grade id): {student: score}} of every graded cell, read one grade at a time from the gradebook, hand
    grades and extra credit applied here; and the grades waiting for a hand grade."""
    from nbgrader.api import Gradebook
    scores, waiting = collections.defaultdict(dict), collections.Counter()
    with Gradebook(course.gradebook_url) as gradebook:
        for cell in gradebook.find_notebook("softmax", ASSIGNMENT).grade_cells:
            for student in SUBMISSIONS:
                grade = gradebook.find_grade(cell.name, "softmax", ASSIGNMENT, student)
                if grade.needs_manual_grade and grade.manual_score is None:
                    waiting[cell.name] += 1
                    continue
                given = grade.manual_score if grade.manual_score is not None else grade.auto_score or 0.0
                scores[cell.name][student] = given + (grade.extra_credit or 0.0)
            scores[cell.name]["max"] = cell.max_score
    return scores, waiting


@pytest.mark.nbgrader
def test_the_numbers_per_test_are_the_gradebooks(graded):
    course, folder = graded
    scores, waiting = _independent_scores(course)
    assert scores["test_softmax_axis"]["cal-axis"] == 1.5 and scores["softmax_written_answer"]["amy-correct"] == 1.0
    assert waiting == {"softmax_written_answer": 1}
    header, *rows = _csv(folder / "tests.csv")
    assert header == ["notebook", "test", "points", "graded", "mean", "median", "full marks", "points lost",
                      "to grade by hand"]
    assert sorted(row[1] for row in rows) == sorted(scores)   # every graded cell
    for row in rows:
        mine = scores[row[1]]
        maximum = mine.pop("max")
        values = list(mine.values())
        assert float(row[2]) == maximum and int(row[3]) == len(values) == len(SUBMISSIONS) - waiting[row[1]]
        assert float(row[4]) == pytest.approx(sum(values) / len(values)), row
        assert float(row[5]) == pytest.approx(statistics.median(values)), row
        assert float(row[6]) == pytest.approx(sum(v >= maximum for v in values) / len(values)), row
        assert float(row[7]) == pytest.approx(sum(max(0, maximum - v) for v in values)), row
        assert int(row[8]) == waiting[row[1]]
        histogram = {(float(low), float(high)): int(count) for _notebook, test, low, high, count
                     in _csv(folder / "scores.csv")[1:] if test == row[1]}
        assert sum(histogram.values()) == len(values)
        for (low, high), count in histogram.items():
            assert count == sum(low <= v <= high for v in values), (row[1], low, high)
    # the full marks of the axis test: Amy and Lia only (Cal's 1 + 0.5 is not 2)
    axis = next(row for row in rows if row[1] == "test_softmax_axis")
    assert float(axis[6]) == pytest.approx(2 / len(SUBMISSIONS))
    page = (folder / "misconceptions.md").read_text(encoding="utf-8")
    assert "![histogram of the scores of each test](statistics.png)" in page
    assert (folder / "statistics.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.nbgrader
def test_the_errors_that_stopped_a_notebook_are_split_by_cause(graded):
    course, folder = graded
    found = report.class_findings(course, ASSIGNMENT)
    assert {s: set(c) for s, c in found.causes.items() if c} == {s: {cause} for s, cause in STOPPED.items()}
    assert found.causes["tor-import"]["package_outside_course"] == {"torch"}
    assert found.causes["ada-library"]["missing_course_module"] == {"attention"}   # the grader hides the library
    stops = {row[0]: int(row[1]) for row in _csv(folder / "stops.csv")[1:]}
    assert stops == {"syntax_error": 1, "missing_course_module": 1, "package_outside_course": 1, "timeout": 1,
                     "crash": 0, "other_error": 0}
    # no longer lumped as wrong answers: the cell's timeout is a timeout, the rest stopped the code
    mistakes = {row[0]: int(row[1]) for row in _csv(folder / "mistakes.csv")[1:]}
    assert mistakes[report.STOPPED] == 3 and mistakes[report.TIMEOUT_OR_CRASH] == 1, mistakes
    assert mistakes[report.OTHER] == 0 and mistakes["axis_ignored"] == 1
    mine = [row for row in _csv(folder / "instructor-only" / "students.csv")[1:] if row[2] == "stopped"]
    assert sorted((row[0], row[3], row[4]) for row in mine) == [
        ("ada-library", "missing_course_module", "attention"), ("lou-loop", "timeout", ""),
        ("sid-syntax", "syntax_error", ""), ("tor-import", "package_outside_course", "torch")]


@pytest.mark.nbgrader
def test_late_submissions_and_who_submitted_nothing(graded):
    from nbgrader.api import Gradebook
    course, folder = graded
    with Gradebook(course.gradebook_url) as gradebook:
        submission = gradebook.find_submission(ASSIGNMENT, "lia-late")
        seconds, penalty = submission.total_seconds_late, submission.late_submission_penalty
    assert seconds == 36 * 3600
    page = (folder / "misconceptions.md").read_text(encoding="utf-8")
    # only Lia's submission has a time (timestamp.txt); the others' lateness is not known, and said so
    assert "Late: 1 of 1 submissions" in page and "Marked late by the LMS when collected: 1." in page
    assert f"The lateness of {len(SUBMISSIONS) - 1} submission(s) is not known here" in page
    assert f"1 of the {len(NAMES)} students on the roster have no submission of {ASSIGNMENT}." in page
    rows = _csv(folder / "instructor-only" / "students.csv")
    late = {(row[0], row[3]): row[4] for row in rows[1:] if row[2] == "late"}
    assert late == {("lia-late", "seconds_late"): "129600", ("lia-late", "time_late"): "1 d 12 h",
                    ("lia-late", "late_penalty"): str(float(penalty)), ("tor-import", "marked_late_by_lms"): "1"}
    assert [row[:3] for row in rows[1:] if row[2] == "nothing_submitted"] == [["zed-absent", "Zed Nobody",
                                                                               "nothing_submitted"]]
    instructor = (folder / "instructor-only" / "students.md").read_text(encoding="utf-8")
    assert "- Zed Nobody (zed-absent)" in instructor
    assert f"| Lia 山田 (lia-late) | 1 d 12 h | {float(penalty):g} |" in instructor
    assert "out of date" not in page and "out of date" not in instructor   # the penalties are current


@pytest.mark.nbgrader
def test_names_are_only_in_the_instructors_files(graded):
    course, folder = graded
    shared = [folder / name for name in ("misconceptions.md", "mistakes.csv", "tests.csv", "scores.csv", "stops.csv")]
    for path in shared:
        text = path.read_text(encoding="utf-8")
        for student, name in NAMES.items():
            assert student not in text and name not in text, (path.name, student)
        assert "`torch`" not in text and "`attention`" not in text, path.name   # modules: the instructor's page
    page = shared[0].read_text(encoding="utf-8")
    assert "`instructor-only/students.md`" in page and "for the instructor only" in page
    instructor = (folder / "instructor-only" / "students.md").read_text(encoding="utf-8")
    assert "| `axis_ignored` | 1 | =HYPERLINK(\"http://x\",\"Cal\") (cal-axis) |" in instructor
    assert "| `syntax_error` | Sid \\| Vicious (sid-syntax) |" in instructor
    assert "| `package_outside_course` | Tor Nørretranders (tor-import) | `torch` |" in instructor


@pytest.mark.nbgrader
def test_every_csv_reads_back_as_text_and_numbers_without_formulas(graded):
    _course, folder = graded
    paths = sorted(folder.glob("*.csv")) + sorted((folder / "instructor-only").glob("*.csv"))
    assert [p.name for p in paths] == ["mistakes.csv", "scores.csv", "stops.csv", "tests.csv", "students.csv"]
    for path in paths:
        rows = _csv(path)
        assert len({len(row) for row in rows}) == 1, path.name   # no cell broke a row
        for row in rows:
            assert not any(cell.startswith(report_formula) for cell in row for report_formula in "=+@\t\r"), row
            assert not any(cell.startswith("-") and not helpers.is_number(cell) for cell in row), row
    students = {row[0]: row[1] for row in _csv(folder / "instructor-only" / "students.csv")[1:]}
    assert students["cal-axis"] == "'=HYPERLINK(\"http://x\",\"Cal\")" and students["lia-late"] == "Lia 山田"
    mistakes = _csv(folder / "mistakes.csv")
    axis = next(row for row in mistakes if row[0] == "axis_ignored")
    assert float(axis[2]) == pytest.approx(1 / len(SUBMISSIONS)) and "`axis`" in axis[3]


@pytest.mark.nbgrader
def test_the_japanese_report_from_the_command_line(graded, tmp_path):
    """``report --lang ja`` on a copy of the graded course (the other tests read the English one)."""
    root = shutil.copytree(graded[0].root, tmp_path / "course")
    course = course_at(root)
    result = subprocess.run([sys.executable, "-m", "autograder", "report", ASSIGNMENT, "--lang", "ja",
                             "--course-root", str(root)], cwd=helpers.REPO, capture_output=True, text=True,
                            timeout=120, env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    assert result.returncode == 0, result.stderr
    folder = course.reports / ASSIGNMENT
    page = (folder / "misconceptions.md").read_text(encoding="utf-8")
    instructor = (folder / "instructor-only" / "students.md").read_text(encoding="utf-8")
    english = ["Scores per test", "Errors that stopped the code, by cause", "Late submissions", "Submitted nothing",
               "Catalogued mistakes", "test", "points lost", "what it means"]
    with i18n.language("ja"):
        japanese = {text: i18n._(text) for text in english}
        causes = {cause: i18n._(text) for cause, text in report.CAUSES.items()}
    assert all(translation.KANA_OR_KANJI.search(text) for text in [*japanese.values(), *causes.values()]), japanese
    for heading in english[:4]:
        assert f"## {japanese[heading]}\n" in page and f"## {heading}\n" not in page, heading
    assert f"## {japanese['Catalogued mistakes']}\n" in instructor
    assert all(f"| {text} |" in page for text in causes.values())
    assert page in result.stdout
    header = _csv(folder / "tests.csv")[0]
    assert japanese["test"] in header and japanese["points lost"] in header
    assert _csv(folder / "stops.csv")[0][3] == japanese["what it means"]
    assert (folder / "statistics.png").stat().st_size > 0


# --------------------------------------------------------------------------- causes without grading
def _error(ename, evalue):
    return {"output_type": "error", "ename": ename, "evalue": evalue, "traceback": [evalue]}


def test_causes_come_from_the_records_and_the_error_names_never_from_messages(tmp_path):
    """Hand-made autograded notebooks (records sealed as the grader seals them): a crash and a timeout come
    from the records; a learner's exception the grader renamed, a sentence instead of a name, or a
    message that quotes a syntax error are no cause; a ModuleNotFoundError whose message names no module
    is another error, one naming a module the cell imports a failed import; an error in a cell that only
    tries the function is the function's wrong answer."""
    root = helpers.course(tmp_path)
    course = course_at(root)
    exercise = course.exercise(ASSIGNMENT)
    tests = [t.grade_id for t in exercise.source.tests]
    failed = {grade_id: (Kind.FAILED, ()) for grade_id in tests}
    sources = {"numpy": "import numpy.linalg2\n", "malformed": "import torch\n",   # the solution cells' code
               "passed": "def softmax(x, axis=-1)\n"}
    cases = {  # student: (failed tests, {cell grade id or "try": [error outputs]}, expected causes, expected row)
        "crashed": ({tests[0]: (Kind.CRASHED, ())}, {}, {"crash": set()}, report.TIMEOUT_OR_CRASH),
        "slow": ({tests[0]: (Kind.TIMEOUT, ())}, {}, {"timeout": set()}, report.TIMEOUT_OR_CRASH),
        "renamed": (failed, {"softmax_solution": [_error("Timeout (your exception)", "Timeout (your exception): x")]},
                    {}, report.OTHER),
        "sentence": (failed, {"softmax_solution": [_error("the process died", "the process died")]}, {}, report.OTHER),
        "quoting": (failed, {"try": [_error("ValueError", "ValueError: SyntaxError: No module named 'torch'")]},
                    {}, report.OTHER),
        "malformed": (failed, {"softmax_solution": [_error("ModuleNotFoundError", "ModuleNotFoundError: x\nnot")]},
                      {"other_error": set()}, report.STOPPED),   # no module named: no import shown
        "numpy": (failed, {"softmax_solution": [_error("ModuleNotFoundError",
                                                       "ModuleNotFoundError: No module named 'numpy.linalg2'")]},
                  {"missing_course_module": {"numpy.linalg2"}}, report.STOPPED),
        # every test passed: the syntax error stopped nothing that is graded (a cell the learner ran before)
        "passed": ({}, {"softmax_solution": [_error("SyntaxError", "SyntaxError: invalid syntax")]}, {}, None),
        "other": (failed, {"softmax_solution": [_error("AttributeError", "AttributeError: no")]},
                  {"other_error": set()}, report.STOPPED),
    }
    for student, (results, errors, _causes, _row) in cases.items():
        notebook = helpers.recorded(helpers.release_notebook(ASSIGNMENT), exercise, student, results)
        for index, cell in enumerate(notebook.cells):
            grade_id = notebooks.meta(cell).get("grade_id")
            is_try = cell.cell_type == "code" and not grade_id and index and "try" in errors
            outputs = errors.get(grade_id, []) if grade_id else errors.get("try", []) if is_try else []
            if outputs:
                cell.outputs = [nbformat.from_dict(o) for o in outputs]
            if grade_id == "softmax_solution" and student in sources:
                cell.source = sources[student]
        helpers.write(notebook, course.autograded / student / ASSIGNMENT / "softmax.ipynb")
    found = report.class_findings(course, ASSIGNMENT)
    for student, (_results, _errors, causes, row) in cases.items():
        assert found.causes[student] == causes, student
        assert (row in found.rows[student]) if row else found.rows[student] == set(), (student, found.rows[student])
    path = report.write_report(course, ASSIGNMENT)   # no gradebook: said in one line, none made
    page = path.read_text(encoding="utf-8")
    assert f"The gradebook holds no grades of {ASSIGNMENT} yet" in page and "No roster:" in page
    assert not (root / "gradebook.db").exists() and not (path.parent / "tests.csv").exists()
    assert {row[0]: int(row[1]) for row in _csv(path.parent / "stops.csv")[1:]} == {
        "syntax_error": 0, "missing_course_module": 1, "package_outside_course": 0, "timeout": 1, "crash": 1,
        "other_error": 2}


# --------------------------------------------------------------------------- lateness, and penalties out of date
def _copy(graded, tmp_path):
    """A copy of the graded course, for a test that changes its gradebook."""
    return course_at(shutil.copytree(graded[0].root, tmp_path / "course"))


def _late_rows(folder):
    return {(row[0], row[3]): row[4] for row in _csv(folder / "instructor-only" / "students.csv")[1:]
            if row[2] == "late"}


def test_a_duration_is_rounded_up_and_never_reads_0():
    assert [report._duration(seconds) for seconds in (0.2, 1, 59, 60, 7500, 86400, 86401, 129600, 864000.5)] == [
        "1 s", "1 s", "59 s", "1 min", "2 h 5 min", "1 d", "1 d 0 h 0 min 1 s", "1 d 12 h", "10 d 0 h 0 min 1 s"]
    assert report._duration(0) == "0 s" and report._duration(None) == "–" and report._duration(math.inf) == "–"
    with i18n.language("ja"):
        assert report._duration(86401) == "1 日 0 時間 0 分 1 秒" and report._duration(7500) == "2 時間 5 分"


@pytest.mark.nbgrader
def test_the_lateness_is_shown_as_the_policy_counts_it(graded, tmp_path):
    """One second late is late (and penalised); a day and a second is charged two days, and reads so."""
    from nbgrader.api import Gradebook
    course = _copy(graded, tmp_path)
    due = datetime.datetime(2030, 1, 1)
    with Gradebook(course.gradebook_url) as gradebook:
        for student, seconds in (("lia-late", 1), ("amy-correct", 86401)):
            gradebook.find_submission(ASSIGNMENT, student).timestamp = due + datetime.timedelta(seconds=seconds)
        gradebook.db.commit()
    late.refresh(course, courses.load_config(course.root), ASSIGNMENT, out=io.StringIO())   # as grade does
    with Gradebook(course.gradebook_url) as gradebook:
        scores = {s: gradebook.find_submission(ASSIGNMENT, s).score for s in ("lia-late", "amy-correct")}
    folder = report.write_report(course, ASSIGNMENT).parent
    rows = _late_rows(folder)
    assert rows[("lia-late", "seconds_late")] == "1" and rows[("lia-late", "time_late")] == "1 s"
    assert scores["lia-late"] > 0
    assert float(rows[("lia-late", "late_penalty")]) == pytest.approx(0.1 * scores["lia-late"])   # one day
    assert rows[("amy-correct", "seconds_late")] == "86401"
    assert rows[("amy-correct", "time_late")] == "1 d 0 h 0 min 1 s"
    assert float(rows[("amy-correct", "late_penalty")]) == pytest.approx(0.2 * scores["amy-correct"])   # two days
    instructor = (folder / "instructor-only" / "students.md").read_text(encoding="utf-8")
    assert "| Lia 山田 (lia-late) | 1 s |" in instructor
    assert "| Amy Adams (amy-correct) | 1 d 0 h 0 min 1 s |" in instructor
    page = (folder / "misconceptions.md").read_text(encoding="utf-8")
    assert "Late: 2 of 2 submissions" in page and "out of date" not in page   # the two with a time
    report.write_report(course, ASSIGNMENT, language="ja")
    instructor = (folder / "instructor-only" / "students.md").read_text(encoding="utf-8")
    assert "| Amy Adams (amy-correct) | 1 日 0 時間 0 分 1 秒 |" in instructor
    assert "| Lia 山田 (lia-late) | 1 秒 |" in instructor


@pytest.mark.nbgrader
def test_penalties_out_of_date_are_said_as_the_export_refuses_them(graded, tmp_path):
    """A manual grade changes Lia's score after her penalty was computed: the export refuses, and the report
    says so in one line on both pages (names on the instructor's only); once graded again, it says nothing."""
    from nbgrader.api import Gradebook
    course = _copy(graded, tmp_path)
    config = courses.load_config(course.root)
    with Gradebook(course.gradebook_url) as gradebook:
        gradebook.find_grade("test_softmax_axis", "softmax", ASSIGNMENT, "lia-late").manual_score = 0.0
        gradebook.db.commit()
    assert late.stale(course, config, ASSIGNMENT) == ["lia-late"]
    with pytest.raises(notebooks.NotebookError, match="late penalty of 1 submission.* out of date"):
        lms.export(course, config, ASSIGNMENT, "moodle", tmp_path / "grades.csv")
    folder = report.write_report(course, ASSIGNMENT).parent
    page = (folder / "misconceptions.md").read_text(encoding="utf-8")
    instructor = (folder / "instructor-only" / "students.md").read_text(encoding="utf-8")
    [line] = [line for line in page.splitlines() if "out of date" in line]
    assert line.startswith("The late penalty of 1 submission in the gradebook is out of date") and \
        f"`python -m autograder grade {ASSIGNMENT}` brings it up to date" in line
    assert "lia" not in line.lower()
    [line] = [line for line in instructor.splitlines() if "is out of date" in line]
    assert line.endswith("Out of date: Lia 山田 (lia-late).")
    assert "| Lia 山田 (lia-late) | 1 d 12 h |" in instructor and "(out of date) |" in instructor
    assert _late_rows(folder)[("lia-late", "late_penalty_out_of_date")] == "1"
    report.write_report(course, ASSIGNMENT, language="ja")
    with i18n.language("ja"):
        japanese = report._stale_lines(ASSIGNMENT, report.Stale(("lia-late",), None))[1]
    assert translation.KANA_OR_KANJI.search(japanese)
    assert japanese in (folder / "misconceptions.md").read_text(encoding="utf-8")

    late.refresh(course, config, ASSIGNMENT, out=io.StringIO())   # what `grade` does first
    folder = report.write_report(course, ASSIGNMENT).parent
    assert "out of date" not in (folder / "misconceptions.md").read_text(encoding="utf-8")
    assert "out of date" not in (folder / "instructor-only" / "students.md").read_text(encoding="utf-8")


@pytest.mark.nbgrader
def test_penalties_that_cannot_be_checked_are_said_so(graded, tmp_path):
    """A broken extensions.csv: the report is still written, and says in one line that the penalties could
    not be checked (the reason, which may name a student, on the instructor's page only)."""
    course = _copy(graded, tmp_path)
    (course.root / late.EXTENSIONS).write_text("student,assignment,due\nlia-late,01_softmax,tomorrow\n")
    folder = report.write_report(course, ASSIGNMENT).parent
    page = (folder / "misconceptions.md").read_text(encoding="utf-8")
    [line] = [line for line in page.splitlines() if "could not be checked" in line]
    assert f"`python -m autograder grade {ASSIGNMENT}` says why" in line and "lia" not in line
    instructor = (folder / "instructor-only" / "students.md").read_text(encoding="utf-8")
    [line] = [line for line in instructor.splitlines() if "could not be checked" in line]
    assert "extensions.csv, row 2" in line
