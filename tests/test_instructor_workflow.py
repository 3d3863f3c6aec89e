"""The instructor's commands never fail silently (issue 19).

Grades go where the run says: switching to a new PostgreSQL gradebook grades into it
(the assignment is added there from the source); a failure is never replayed as if
graded, so once its cause is fixed the next run grades that student; an edited hidden
check regrades everybody and keeps the manual grades; the summary is read back from
the gradebook.  A command with nothing to do exits non-zero with one line.
"""
import json
import subprocess
import sys

import pytest
from nbgrader.api import Gradebook

import helpers
import postgres
from autograder import classrun
from autograder import course as courses

pytestmark = pytest.mark.nbgrader

CORRECT = helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py"
WRONG = helpers.SUBMISSIONS / "01_softmax" / "wrong"
CLASS = {"alice": (CORRECT, 7.0), "carol": (WRONG / "axis_ignored.py", 4.0),
         "dave": (WRONG / "no_max_subtraction.py", 5.0)}


@pytest.fixture(scope="module")
def new_postgres_database():
    with postgres.server() as new_database:
        yield new_database


def _class(tmp_path, generate=True):
    root = helpers.course(tmp_path)
    if generate:
        helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    for student, (path, _) in CLASS.items():
        helpers.write(helpers.submission("01_softmax", path.read_text()), helpers.submitted(root, student))
    return root


def _grade(root, db_url=None, *extra, env=None):
    command = [sys.executable, "-m", "autograder", "grade", "01_softmax", "--jobs", "2", "--no-progress",
               "--course-root", str(root), "--db-url", db_url or helpers.gradebook_url(root), *extra]
    return subprocess.run(command, cwd=helpers.REPO, capture_output=True, text=True, timeout=600, env=env)


def _scores(db_url):
    with Gradebook(db_url) as gradebook:
        return {s.student.id: s.score for s in gradebook.assignment_submissions("01_softmax")}


def _journal(root):
    path = root / "autograder" / "grading-log" / "01_softmax.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


EXPECTED = {student: score for student, (_, score) in CLASS.items()}


def test_switching_to_a_new_postgresql_gradebook_carries_the_grades_over(tmp_path, new_postgres_database):
    """Midway to PostgreSQL, as the book says (the environment variable): the run refuses with the
    command that carries every grade over, hand-entered ones included, and then grades into it."""
    import os
    root = _class(tmp_path)
    first = _grade(root)
    assert first.returncode == 0, first.stderr
    assert _scores(helpers.gradebook_url(root)) == EXPECTED
    with Gradebook(helpers.gradebook_url(root)) as gradebook:     # a written answer graded in formgrader
        grade = gradebook.find_grade("softmax_written_answer", "softmax", "01_softmax", "carol")
        grade.manual_score = 1.0
        gradebook.db.commit()

    db_url = new_postgres_database()
    env = {**os.environ, courses.GRADEBOOK_URL_VARIABLE: db_url}
    command = [sys.executable, "-m", "autograder", "grade", "01_softmax", "--jobs", "2", "--no-progress",
               "--course-root", str(root)]
    refused = subprocess.run(command, cwd=helpers.REPO, capture_output=True, text=True, timeout=600, env=env)
    assert refused.returncode != 0 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert "move-gradebook --from" in refused.stderr and "3 graded submissions" in refused.stderr
    assert _scores(db_url) == {}, "nothing graded into the new gradebook from empty"

    move = refused.stderr.split("`")[1]              # the command the line names, run as it reads
    assert move.startswith("python -m autograder move-gradebook")
    moved = subprocess.run([sys.executable, *move.split()[1:]], cwd=helpers.REPO, capture_output=True, text=True,
                           timeout=300, env=env)
    assert moved.returncode == 0, moved.stderr
    assert _scores(db_url) == {**EXPECTED, "carol": EXPECTED["carol"] + 1.0}

    switched = subprocess.run(command, cwd=helpers.REPO, capture_output=True, text=True, timeout=600, env=env)
    assert switched.returncode == 0, switched.stderr
    assert "01_softmax: 3 of 3 submissions graded" in switched.stdout
    assert _scores(db_url) == {**EXPECTED, "carol": EXPECTED["carol"] + 1.0}
    again = subprocess.run(command, cwd=helpers.REPO, capture_output=True, text=True, timeout=600, env=env)
    assert "resuming: 3 submission(s) already graded" in again.stdout and "--force" in again.stdout


def test_a_new_postgresql_gradebook_is_given_the_assignment(tmp_path, new_postgres_database):
    """A course graded into PostgreSQL from the start: the assignment is added there from the source."""
    root = _class(tmp_path, generate=False)
    db_url = new_postgres_database()   # empty: no generate_assignment ran against it
    graded = _grade(root, db_url)
    assert graded.returncode == 0, graded.stderr
    assert "the gradebook had no notebook of 01_softmax: added it from" in graded.stdout
    assert _scores(db_url) == EXPECTED


def test_a_gradebook_emptied_under_the_journal_is_graded_again(tmp_path):
    root = _class(tmp_path)
    assert _grade(root).returncode == 0
    (root / courses.GRADEBOOK).unlink()              # same URL, but the grades are gone
    again = _grade(root)
    assert again.returncode == 0, again.stderr
    assert "resuming" not in again.stdout
    assert _scores(helpers.gradebook_url(root)) == EXPECTED


def test_missing_assignment_is_added_and_nbgraders_own_error_is_shown(tmp_path):
    from nbgrader.apps import NbGraderAPI
    root = _class(tmp_path, generate=False)         # the release is committed: generate_assignment never ran
    config = courses.load_config(root)
    api = NbGraderAPI(coursedir=courses.coursedir(config), config=config)
    result = api.autograde("01_softmax", "alice", force=True, create=True)
    assert not result["success"]
    assert classrun.nbgrader_error(result) == "No assignment with ID '01_softmax' exists in the database"

    outcomes = {o.student: o for o in classrun.grade_class("01_softmax", jobs=2, config=config, progress=False)}
    assert {s: o.score for s, o in outcomes.items()} == EXPECTED
    assert all(o.graded and not o.problems for o in outcomes.values())
    assert not (root / "exercises").exists()       # the release is not rewritten


def test_a_fixed_failure_is_graded_again(tmp_path):
    root = _class(tmp_path)
    blocker = root / "autograder" / "autograded" / "carol"
    blocker.parent.mkdir(parents=True)
    blocker.write_text("in the way")                 # nbgrader cannot write carol's graded copy
    failed = _grade(root)
    assert failed.returncode == 0, failed.stderr
    assert "2 of 3 submissions graded" in failed.stdout
    (line,) = [l for l in failed.stdout.splitlines() if l.strip().startswith("carol")]
    assert "nbgrader could not grade it: NotADirectoryError" in line and "above traceback" not in line

    blocker.unlink()                                 # the cause is fixed; no --force
    fixed = _grade(root)
    assert fixed.returncode == 0, fixed.stderr
    assert "resuming: 2 submission(s) already graded" in fixed.stdout and "1 to go" in fixed.stdout
    assert "3 of 3 submissions graded" in fixed.stdout
    assert _scores(helpers.gradebook_url(root)) == EXPECTED


def test_an_edited_hidden_check_regrades_and_keeps_manual_grades(tmp_path):
    root = _class(tmp_path, generate=False)
    package = tmp_path / "scratch_catalogue"     # the scratch course's own catalogue, imported by its hidden tests
    package.mkdir()
    (package / "__init__.py").write_text("")
    catalogue = package / "softmax.py"
    catalogue.write_text((helpers.REPO / "autograder" / "catalogue" / "softmax.py").read_text()
                         .replace("from ..", "from autograder."))
    registry = root / "solutions" / "exercises.toml"
    registry.write_text(registry.read_text().replace('name = "softmax"\n',
                                                     'name = "softmax"\ncatalogue = "scratch_catalogue.softmax"\n', 1))
    source = root / "solutions" / "01_softmax" / "softmax.ipynb"
    source.write_text(source.read_text().replace("from autograder.catalogue.softmax", "from scratch_catalogue.softmax"))
    env = {**__import__("os").environ, "PYTHONPATH": str(tmp_path)}
    assert _grade(root, env=env).returncode == 0
    with Gradebook(helpers.gradebook_url(root)) as gradebook:     # a written answer graded by hand
        grade = gradebook.find_grade("softmax_written_answer", "softmax", "01_softmax", "carol")
        grade.manual_score, grade.needs_manual_grade = 1.0, False
        gradebook.db.commit()

    unchanged = _grade(root, env=env)
    assert "resuming: 3 submission(s) already graded" in unchanged.stdout
    text = catalogue.read_text()
    assert "the `axis` argument is ignored" in text
    catalogue.write_text(text.replace("the `axis` argument is ignored", "the `axis` argument is never used"))
    edited = _grade(root, env=env)
    assert edited.returncode == 0, edited.stderr
    assert "resuming" not in edited.stdout and "3 of 3 submissions graded" in edited.stdout
    assert _scores(helpers.gradebook_url(root)) == {**EXPECTED, "carol": 4.0 + 1.0}
    graded = (root / "autograder" / "autograded" / "carol" / "01_softmax" / "softmax.ipynb").read_text()
    assert "the `axis` argument is never used" in graded
    assert len(_journal(root)) == 6


def test_the_summary_is_read_back_from_the_gradebook(tmp_path):
    root = _class(tmp_path)
    config = courses.load_config(root)
    outcomes = classrun.grade_class("01_softmax", jobs=2, config=config, progress=False)
    course = courses.from_config(config)
    classrun.verify(course, course.exercise("01_softmax"), outcomes)      # agrees
    liar = [classrun.Outcome("zoe", True, 7.0, 8.0)] + outcomes
    with pytest.raises(classrun.GradebookMismatch, match=r"zoe \(no submission\)"):
        classrun.verify(course, course.exercise("01_softmax"), liar)


def _command(*args):
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=helpers.REPO,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("args, words", [
    (["grade", "01_softmax"], "no submissions of 01_softmax: expected folders"),
    (["grade", "01_sofmax"], "no exercise named '01_sofmax'"),
    (["report", "01_softmax"], "nothing graded for 01_softmax"),
], ids=["grade-before-collecting", "misspelled-assignment", "report-with-nothing-graded"])
def test_a_command_with_nothing_to_do_exits_non_zero_in_one_line(tmp_path, args, words):
    root = helpers.course(tmp_path)
    result = _command(*args, "--course-root", str(root))
    assert result.returncode != 0
    assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_grading_an_unknown_student_exits_non_zero(tmp_path):
    root = _class(tmp_path)
    result = _command("grade", "01_softmax", "--student", "mallory", "--course-root", str(root))
    assert result.returncode != 0 and "no submission of 01_softmax for mallory" in result.stderr


def test_student_data_is_ignored_by_git():
    paths = ["gradebook.db", "autograder/gradebook.db", "grades.csv", "autograder/grades.csv",
             "autograder/exports/grades.csv", "autograder/submitted/alice/01_softmax/softmax.ipynb",
             "autograder/autograded/alice/01_softmax/softmax.ipynb",
             "autograder/feedback/alice/01_softmax/softmax.html", "autograder/downloaded/01_softmax/archive/all.zip",
             "autograder/grading-log/01_softmax.jsonl", "autograder/reports/01_softmax/misconceptions.md",
             "submitted/alice/01_softmax/softmax.ipynb", "feedback/alice/01_softmax/softmax.html"]
    result = subprocess.run(["git", "check-ignore", "--no-index", *paths], cwd=helpers.REPO,
                            capture_output=True, text=True)
    assert sorted(result.stdout.split()) == sorted(paths)


@pytest.mark.parametrize("folder", [".", "autograder"], ids=["repository-root", "autograder"])
def test_nbgrader_export_works_from_the_root_and_from_autograder(tmp_path, folder):
    root = _class(tmp_path)
    assert _grade(root).returncode == 0
    csv_path = tmp_path / "grades.csv"
    env = {**__import__("os").environ, courses.GRADEBOOK_URL_VARIABLE: helpers.gradebook_url(root)}
    result = subprocess.run([sys.executable, "-m", "nbgrader", "export", "--to", str(csv_path),
                             f"--CourseDirectory.root={root}"], cwd=helpers.REPO / folder,
                            capture_output=True, text=True, env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    import csv
    with open(csv_path) as handle:
        rows = {row["student_id"]: float(row["raw_score"]) for row in csv.DictReader(handle)}
    assert rows == EXPECTED
    assert not (helpers.REPO / folder / "gradebook.db").exists()


def test_other_wrong_answer_only_when_no_catalogued_mistake_was_named(tmp_path):
    """A student whose hidden test names a catalogued mistake and whose visible test fails too
    counts for that mistake alone; one whose failures name nothing counts as other."""
    import copy
    from autograder import report
    from autograder.results import Kind
    root = helpers.course(tmp_path)
    exercise = courses.course_at(root).exercise("01_softmax")
    failures = {"carol": {"test_softmax_visible": (Kind.FAILED, ()),
                          "test_softmax_axis": (Kind.FAILED, ("axis_ignored",))},
                "ned": {"test_softmax_visible": (Kind.FAILED, ())}}
    for student, failed in failures.items():
        notebook = helpers.recorded(copy.deepcopy(exercise.source.notebook), exercise, student, failed)
        helpers.write(notebook, courses.course_at(root).autograded / student / "01_softmax" / "softmax.ipynb")
    students, counts, _ = report.count_mistakes(courses.course_at(root), "01_softmax")
    assert students == ["carol", "ned"]
    assert counts["axis_ignored"] == 1 and counts["(other wrong answer)"] == 1
