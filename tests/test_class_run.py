"""The instructor's class run, `python -m autograder grade ASSIGNMENT`: parallel, robust, resumable.

One fake class mixes correct, wrong, adversarial and broken submissions.  Each
broken one is reported with a one-line reason and every other is graded
normally; the grades equal those of serial `nbgrader autograde` (with the
project's engine, and with nbgrader's stock in-kernel execution for honest
submissions); a rerun gives the same grades; a run stopped by SIGTERM resumes.
"""
import json
import signal
import subprocess
import sys
import time

import pytest
from nbgrader.api import Gradebook

import helpers
from autograder import classrun
from autograder import course as courses

pytestmark = pytest.mark.nbgrader

WRONG = helpers.SUBMISSIONS / "01_softmax" / "wrong"
CORRECT = helpers.SUBMISSIONS / "01_softmax" / "correct"
ATTACKS = helpers.REPO / "tests" / "adversarial" / "01_softmax"
LIMITS = {"cell_seconds": 5.0, "call_seconds": 3.0, "total_seconds": 30.0, "cpu_seconds": 30}


def _code(path):
    return helpers.submission("01_softmax", path.read_text())


def _v3():
    return json.dumps({"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": []})


def _deleted_tests():
    notebook = _code(CORRECT / "logsumexp.py")
    notebook.cells = [c for c in notebook.cells if not c.metadata.get("nbgrader", {}).get("grade_id", "").startswith("test_softmax_a")]
    return notebook


def _edited_tests():
    notebook = _code(WRONG / "no_max_subtraction.py")
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id", "").startswith("test_"):
            cell.source = "pass"
    return notebook


HONEST = {  # student: (notebook, score)
    "alice": (lambda: _code(CORRECT / "logsumexp.py"), 7.0),
    "bob": (lambda: helpers.release_notebook("01_softmax"), 0.0),
    "carol": (lambda: _code(WRONG / "axis_ignored.py"), 4.0),
    "dave": (lambda: _code(WRONG / "no_max_subtraction.py"), 5.0),
}
BROKEN = {  # student: (what is written, score, words of the one-line reason)
    "eve": ("{not json", 0.0, "not valid JSON"),
    "fay": ("", 0.0, "the file is empty"),
    "gus": (_v3(), 0.0, "notebook format 3 is not supported"),
    "hal": ("renamed", 0.0, "renamed notebook: found mine.ipynb, expected softmax.ipynb"),
    "ida": (_deleted_tests, 7.0, "test cell test_softmax_axis was deleted"),
    "jon": (_edited_tests, 5.0, "test cell test_softmax_visible was edited"),
    "kim": (lambda: _code(ATTACKS / "kill_the_kernel.py"), 0.0, "crashed"),
    "lee": (lambda: _code(ATTACKS / "endless_loop_swallowing_interrupts.py"), 0.0, "timeout"),
}


def _write_class(root, students):
    for student, spec in students.items():
        folder = helpers.submitted(root, student).parent
        folder.mkdir(parents=True, exist_ok=True)
        content = spec[0]
        if content == "renamed":
            helpers.write(_code(CORRECT / "logsumexp.py"), folder / "mine.ipynb")
        elif isinstance(content, str):
            (folder / "softmax.ipynb").write_text(content)
        else:
            helpers.write(content(), folder / "softmax.ipynb")


def _config(root):
    config = courses.load_config(root, helpers.gradebook_url(root))
    for name, value in LIMITS.items():
        setattr(config.SandboxedExecute, name, value)
    return config


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = helpers.course(tmp_path_factory.mktemp("classrun"))
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    _write_class(root, {**HONEST, **BROKEN})
    return root


@pytest.fixture(scope="module")
def outcomes(course):
    return {o.student: o for o in classrun.grade_class("01_softmax", jobs=2, config=_config(course), progress=False)}


def test_every_submission_is_graded_or_explained_in_one_line(outcomes):
    assert set(outcomes) == set(HONEST) | set(BROKEN)
    for student, (_, score) in HONEST.items():
        assert outcomes[student].score == score and outcomes[student].problems == [], student
    for student, (_, score, words) in BROKEN.items():
        outcome = outcomes[student]
        assert outcome.score == score, student
        assert words in outcome.line and "\n" not in outcome.line, (student, outcome.line)


def test_gradebook_has_every_student_once(course, outcomes):
    scores = helpers.gradebook_scores(course)
    assert scores == {student: outcome.score for student, outcome in outcomes.items()}
    with Gradebook(helpers.gradebook_url(course)) as gradebook:
        assert len(gradebook.assignment_submissions("01_softmax")) == len(outcomes)


def test_rerun_gives_the_same_grades(course, outcomes):
    again = classrun.grade_class("01_softmax", jobs=2, force=True, config=_config(course), progress=False)
    assert {o.student: (o.score, o.problems) for o in again} == {s: (o.score, o.problems) for s, o in outcomes.items()}
    skipped = classrun.grade_class("01_softmax", jobs=2, config=_config(course), progress=False)
    assert {o.student: o.score for o in skipped} == {s: o.score for s, o in outcomes.items()}


def _serial_nbgrader(root, stock):
    """`nbgrader autograde` on the whole class in one process, as nbgrader users run it."""
    config_dir = helpers.nbgrader_config_dir(
        root / ("stock-config" if stock else "project-config"), stock=stock,
        settings=[f"c.SandboxedExecute.{name} = {value!r}" for name, value in LIMITS.items()])
    subprocess.run([sys.executable, "-m", "nbgrader", "autograde", "01_softmax", "--force",
                    f"--CourseDirectory.root={root}", f"--CourseDirectory.db_url={helpers.gradebook_url(root)}"],
                   cwd=config_dir, capture_output=True, text=True, timeout=900)
    return helpers.gradebook_scores(root)


@pytest.mark.parametrize("stock", [False, True], ids=["project-engine", "stock-kernel"])
def test_same_grades_as_serial_nbgrader_autograde(tmp_path, outcomes, stock):
    root = helpers.course(tmp_path)
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    students = dict(HONEST) if stock else {**HONEST, **{s: BROKEN[s] for s in ("ida", "jon", "kim", "lee")}}
    _write_class(root, students)
    serial = _serial_nbgrader(root, stock)
    assert {s: serial[s] for s in students} == {s: outcomes[s].score for s in students}


def test_sigterm_then_resume(tmp_path):
    root = helpers.course(tmp_path)
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    students = {f"s{i:02d}": HONEST["alice" if i % 2 else "dave"] for i in range(12)}
    _write_class(root, students)
    command = [sys.executable, "-m", "autograder", "grade", "01_softmax", "--jobs", "1", "--no-progress",
               "--course-root", str(root), "--db-url", helpers.gradebook_url(root)]
    journal = root / "autograder" / "grading-log" / "01_softmax.jsonl"
    run = subprocess.Popen(command, cwd=helpers.REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not journal.exists() or len(journal.read_text().splitlines()) < 3):
        time.sleep(0.05)
    run.send_signal(signal.SIGTERM)
    out, err = run.communicate(timeout=60)
    assert run.returncode != 0
    assert len(err.strip().splitlines()) == 1 and "interrupted after" in err and "again to resume" in err
    finished = len(journal.read_text().splitlines())
    assert 3 <= finished < len(students)

    resumed = subprocess.run(command, cwd=helpers.REPO, capture_output=True, text=True, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming: {finished} submission(s) already graded" in resumed.stdout
    assert helpers.gradebook_scores(root) == {s: score for s, (_, score) in students.items()}


def test_misconception_report_counts_each_student_once(course, outcomes):
    from autograder import report
    students, counts, _ = report.count_mistakes(courses.course_at(course), "01_softmax")
    assert set(students) == {s for s, o in outcomes.items() if o.graded}
    assert counts["axis_ignored"] == 1                    # carol
    assert counts["no_max_subtraction"] == 2              # dave, and jon who edited the tests
    assert counts["(not attempted)"] == 1                 # bob
    assert counts["(timeout or crash)"] == 2              # kim, and lee whose endless cell timed out
    # lee's endless cell, which defines softmax, is skipped (its timeout is on its cell, named in the
    # summary): its tests fail for lack of softmax, which the report puts down to the timeout
    assert counts["(other wrong answer)"] == 0
    assert counts["whole_array"] == 0


def test_report_command_writes_table_and_chart(course, outcomes):
    result = subprocess.run([sys.executable, "-m", "autograder", "report", "01_softmax", "--course-root", str(course)],
                            cwd=helpers.REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    page = course / "autograder" / "reports" / "01_softmax" / "misconceptions.md"
    text = page.read_text()
    assert "| `no_max_subtraction` | 2 |" in text and "![students per mistake](misconceptions.png)" in text
    assert (page.parent / "misconceptions.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_shards_are_disjoint_and_cover_the_class():
    names = [f"s{i}" for i in range(10)]
    shares = [classrun._shard(names, f"{k}/3") for k in (1, 2, 3)]
    assert sorted(sum(shares, [])) == sorted(names) and sum(map(len, shares)) == len(names)
    with pytest.raises(Exception, match="K/N"):
        classrun._shard(names, "4/3")
