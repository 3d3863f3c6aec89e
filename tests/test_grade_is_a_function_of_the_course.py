"""A grade is a function of the submission and the course, and of nothing else (issue 23).

Not of the machine (two course copies grading into one gradebook draw the same hidden
inputs, or the second refuses and changes nothing), not of the order of commands (a
source changed but not released is refused; after the release the next run regrades
without --force), not of what ran before (a change of the grader's setting regrades),
and not of where the course lives (an outside course's export, feedback, report and
collect read that course's gradebook and folders).
"""
import csv
import io
import json
import shutil
import subprocess
import sys

import pytest
from nbgrader.api import Gradebook

import helpers
from autograder import classrun, course_secret
from autograder import course as courses
from autograder.preprocessors import SandboxedExecute

pytestmark = pytest.mark.nbgrader

SOFTMAX = helpers.SUBMISSIONS / "01_softmax"
# A softmax that raises with a digest of its input: the messages show which hidden inputs were drawn.
DIGEST = ("import hashlib\n\n"
          "def softmax(x, axis=-1):\n"
          "    x = np.asarray(x, dtype=np.float64)\n"
          "    raise ValueError('input ' + hashlib.sha256(x.tobytes()).hexdigest()[:16])\n")
CLASS = {"alice": (SOFTMAX / "correct" / "logsumexp.py").read_text(),
         "carol": (SOFTMAX / "wrong" / "axis_ignored.py").read_text(),
         "dora": DIGEST, "erin": DIGEST}


def _write_class(root):
    for student, code in CLASS.items():
        notebook = helpers.submission("01_softmax", code)
        if student == "alice":   # her written answer awaits the instructor
            for cell in notebook.cells:
                if cell.metadata.get("nbgrader", {}).get("grade_id") == "softmax_written_answer":
                    cell.source = "Subtracting the maximum changes nothing: exp(x - c) cancels."
        helpers.write(notebook, helpers.submitted(root, student))


def _grade(root, *extra, db_url=None, env=None):
    command = [sys.executable, "-m", "autograder", "grade", "01_softmax", "--jobs", "2", "--no-progress",
               "--course-root", str(root), *(["--db-url", db_url] if db_url else []), *extra]
    return subprocess.run(command, cwd=helpers.REPO, capture_output=True, text=True, timeout=600, env=env)


def _test_scores(db_url):
    """{(student, test): score} of every autograded test cell in the gradebook."""
    with Gradebook(db_url) as gradebook:
        return {(student, grade.name): grade.auto_score
                for student in CLASS
                for grade in gradebook.find_submission_notebook("softmax", "01_softmax", student).grades
                if grade.auto_score is not None}


def _messages(root, student):
    """{test: error message} of the test cells of a student's autograded notebook."""
    path = courses.course_at(root).autograded / student / "01_softmax" / "softmax.ipynb"
    notebook = json.loads(path.read_text())
    return {cell["metadata"].get("nbgrader", {}).get("grade_id"): output.get("evalue")
            for cell in notebook["cells"] if cell["cell_type"] == "code"
            for output in cell.get("outputs", []) if output.get("output_type") == "error"}


def test_two_machines_sharing_a_gradebook_draw_the_same_inputs_or_refuse(tmp_path, monkeypatch):
    monkeypatch.delenv(course_secret.SECRET_VARIABLE, raising=False)
    shared = tmp_path / "shared-gradebook.db"
    url = f"sqlite:///{shared}"
    first, second = helpers.course(tmp_path / "machine-a"), helpers.course(tmp_path / "machine-b")
    for root in (first, second):
        _write_class(root)

    graded = _grade(first, db_url=url)
    assert graded.returncode == 0, graded.stderr
    scores = _test_scores(url)
    digests = _messages(first, "dora")
    assert any("input " in (message or "") for message in digests.values()), digests
    # The hidden inputs are the submission's own: what dora's feedback shows fits nobody else's.
    erin = _messages(first, "erin")
    assert digests["test_softmax_random"] != erin["test_softmax_random"]   # its inputs are drawn
    # The summary lists every student, sorted, with their score.
    rows = [line.split() for line in graded.stdout.splitlines() if line.startswith("  ")]
    assert [row[0] for row in rows] == sorted(CLASS) and rows[0][1:] == ["7/8", "(+1", "by", "hand)"]

    before = shared.read_bytes()
    refused = _grade(second, "--force", db_url=url)          # machine B has no secret: it must not make one
    assert refused.returncode != 0 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    assert course_secret.SECRET_FILE in refused.stderr and course_secret.SECRET_VARIABLE in refused.stderr
    assert not (second / course_secret.SECRET_FILE).exists()
    assert shared.read_bytes() == before, "a refusal leaves the gradebook unchanged"

    shutil.copy(first / course_secret.SECRET_FILE, second / course_secret.SECRET_FILE)   # as documented
    again = _grade(second, "--force", db_url=url)
    assert again.returncode == 0, again.stderr
    assert _test_scores(url) == scores
    assert _messages(second, "dora") == digests


def _points(root, grade_id, change):
    source = root / "solutions" / "01_softmax" / "softmax.ipynb"
    notebook = json.loads(source.read_text())
    (cell,) = [c for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == grade_id]
    cell["metadata"]["nbgrader"]["points"] += change
    source.write_text(json.dumps(notebook, indent=1))


def _total(db_url, student):
    with Gradebook(db_url) as gradebook:
        submission = gradebook.find_submission("01_softmax", student)
        return submission.score, submission.max_score


def test_any_order_of_edit_release_and_grade_ends_with_the_current_points(tmp_path):
    root = helpers.course(tmp_path)
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    _write_class(root)
    url = helpers.gradebook_url(root)
    assert _grade(root).returncode == 0
    assert _total(url, "alice") == (7.0, 8.0)    # the written answer awaits its grader

    _points(root, "test_softmax_axis", +1)       # edited, not released
    stale = _grade(root)
    assert stale.returncode != 0 and len(stale.stderr.strip().splitlines()) == 1, stale.stderr
    assert "test_softmax_axis is worth 3 points, released with 2" in stale.stderr
    assert "nbgrader generate_assignment 01_softmax" in stale.stderr
    assert _total(url, "alice") == (7.0, 8.0)    # nothing graded with the old points

    helpers.nbgrader("generate_assignment", "01_softmax", "--force", root=root)
    released = _grade(root)                      # no --force
    assert released.returncode == 0, released.stderr
    assert "resuming" not in released.stdout
    assert _total(url, "alice") == (8.0, 9.0)
    assert "resuming: 4 submission(s) already graded" in _grade(root).stdout


def test_a_journal_entry_under_another_setting_is_never_replayed(tmp_path, monkeypatch):
    """What ran before does not decide a grade: a change of the memory method, the limits or the
    secret grades again."""
    root = helpers.course(tmp_path)
    _write_class(root)

    def run(config=None):
        out = io.StringIO()
        classrun.grade_class("01_softmax", jobs=2, config=config or courses.load_config(root), progress=False,
                             out=out)
        return out.getvalue()

    monkeypatch.setattr(classrun, "memory_method", lambda limits: "VmHWM")   # a laptop without cgroups
    assert "resuming" not in run()
    assert "resuming: 4" in run()
    monkeypatch.undo()
    if classrun.memory_method(SandboxedExecute().limits()) != "VmHWM":
        assert "resuming" not in run()           # a machine with a memory cgroup measures otherwise
    assert "resuming: 4" in run()
    config = courses.load_config(root)
    config.SandboxedExecute.call_seconds = 7.0
    assert "resuming" not in run(config)
    assert "resuming: 4" in run(config)

    # Another writer changed a grade since (nbgrader autograde with other points, say): graded again.
    url = helpers.gradebook_url(root)
    with Gradebook(url) as gradebook:
        grade = gradebook.find_grade("test_softmax_axis", "softmax", "01_softmax", "alice")
        grade.auto_score = 5.0
        gradebook.db.commit()
    assert "resuming: 3" in run(config)
    assert _total(url, "alice") == (7.0, 8.0)

    # A due date and a late penalty decide grades too: the late submission is graded again, with it.
    import datetime
    (helpers.submitted(root, "carol").parent / "timestamp.txt").write_text("2026-01-02 00:00:00 UTC")
    assert "resuming: 3" in run(config)              # its timestamp is part of the submission
    with Gradebook(url) as gradebook:
        gradebook.update_or_create_assignment("01_softmax", duedate=datetime.datetime(2026, 1, 1))
    config.LateSubmissionPlugin.penalty_method = "zero"
    assert "resuming" not in run(config)
    with Gradebook(url) as gradebook:   # nbgrader keeps the penalty beside the raw score
        assert gradebook.find_submission("01_softmax", "carol").late_submission_penalty == 4.0
        assert gradebook.find_submission("01_softmax", "alice").late_submission_penalty == 0.0


def test_a_sandbox_that_cannot_run_python_grades_nobody(tmp_path):
    """A fault of the grading machine (here: limits too small for Python to start) is one line before
    any submission, never a class of zeros kept in the gradebook and the journal."""
    root = helpers.course(tmp_path)
    _write_class(root)
    config = courses.load_config(root)
    config.SandboxedExecute.memory_bytes = 16 << 20
    with pytest.raises(courses.NotebookError, match="the reference solution of 01_softmax scores 0/7 on this machine"):
        classrun.grade_class("01_softmax", jobs=2, config=config, progress=False, out=io.StringIO())
    assert not classrun.journal_path(courses.from_config(config), "01_softmax").exists()
    assert not (root / courses.GRADEBOOK).exists() or _students(helpers.gradebook_url(root)) == set()


def test_a_source_that_differs_from_the_learners_release_is_refused_on_a_new_gradebook(tmp_path):
    """The release in exercises/ is what learners were given: a new gradebook never records an edited,
    unreleased source as the release."""
    root = helpers.course(tmp_path)
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    _write_class(root)
    (root / courses.GRADEBOOK).unlink()          # a new gradebook, the release kept
    _points(root, "test_softmax_axis", +3)
    refused = _grade(root)
    assert refused.returncode != 0 and "is worth 5 points, released with 2" in refused.stderr, refused.stderr
    assert f"--CourseDirectory.root={root}" in refused.stderr
    with Gradebook(helpers.gradebook_url(root)) as gradebook:
        assert gradebook.assignments == []


def test_an_outside_course_is_read_everywhere_with_the_documented_flags(tmp_path):
    """A fork with a changed test: grade, nbgrader export and generate_feedback (run from the
    repository's autograder/ with --CourseDirectory.root), report and collect all use its gradebook
    and folders, never the repository's."""
    root = helpers.course(tmp_path / "fork")
    _points(root, "test_softmax_axis", +3)       # the fork's own points: 5 for the axis test
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    _write_class(root)
    graded = _grade(root)
    assert graded.returncode == 0, graded.stderr
    url = f"sqlite:///{root / courses.GRADEBOOK}"
    assert _total(url, "carol") == (4.0, 11.0)

    env = {key: value for key, value in __import__("os").environ.items() if key != courses.GRADEBOOK_URL_VARIABLE}
    exported = tmp_path / "grades.csv"
    for command in (["export", "--to", str(exported)], ["generate_feedback", "01_softmax"]):
        result = subprocess.run([sys.executable, "-m", "nbgrader", *command, f"--CourseDirectory.root={root}"],
                                cwd=helpers.REPO / "autograder", capture_output=True, text=True, env=env, timeout=300)
        assert result.returncode == 0, result.stderr
    with open(exported) as handle:
        rows = {row["student_id"]: (float(row["raw_score"]), float(row["max_score"])) for row in csv.DictReader(handle)}
    assert rows["carol"] == (4.0, 11.0) and rows["alice"] == (10.0, 11.0)
    feedback = (root / "autograder" / "feedback" / "carol" / "01_softmax" / "softmax.html").read_text()
    assert "0.0 / 5.0" in feedback            # the fork's failed axis test, worth 5 there
    assert (root / "autograder" / "feedback" / "mathjax").is_dir(), "MathJax goes next to that course's feedback"
    assert not (helpers.REPO / "gradebook.db").exists() or "carol" not in _students(f"sqlite:///{helpers.REPO / 'gradebook.db'}")

    # From the course's own root, where its data folder autograder/ would shadow the package, with the
    # nbgrader_config.py the instructors page gives for a course folder.
    (root / "nbgrader_config.py").write_text(
        f"c = get_config()\nload_subconfig({str(helpers.REPO / 'autograder' / 'nbgrader_config.py')!r})\n"
        f"c.CourseDirectory.root = {str(root)!r}\n")
    exported.unlink()
    result = subprocess.run([sys.executable, "-m", "nbgrader", "export", "--to", str(exported)], cwd=root,
                            capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 0 and exported.is_file(), result.stderr
    for command in (["report", "01_softmax", "--course-root", "."], ["grade", "01_softmax", "--course-root", ".",
                                                                     "--no-progress"]):
        done = subprocess.run([sys.executable, "-m", "autograder", *command], cwd=root, capture_output=True,
                              text=True, env=env, timeout=300)
        assert done.returncode == 0, done.stderr
    assert (root / "autograder" / "reports" / "01_softmax").is_dir()


def _students(db_url):
    with Gradebook(db_url) as gradebook:
        return {student.id for student in gradebook.students}
