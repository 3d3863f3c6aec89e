"""Every command the instructors page shows for the term runs, as shown, on a Canvas class and a
Moodle class (issue 31): the class list, grades and feedback back to the LMS, the report and the
similarity check.

The commands are read from the page's code blocks (sections *The class list*, *Grades and feedback
back into the LMS*, *The class report*, *Similar solutions*), never retyped here.  Each class is
collected from a zip made as its LMS makes it, graded, and given feedback in between, as the page's
workflow says; each shown command must exit 0 and leave what the page says it writes.
"""
import csv
import re
import shlex
import subprocess
import sys
import zipfile

import pytest

import helpers
from test_roster import S001
import test_lms_collect as lms_zips   # zips as Canvas and Moodle write them
import test_roster as exports         # class lists as Canvas and Moodle export them

pytestmark = pytest.mark.nbgrader

PAGE = helpers.REPO / "book" / "instructors.md"
SECTIONS = ("The class list (roster)", "Grades and feedback back into the LMS", "The class report",
            "Similar solutions")
MOODLE_FILES = ("participants", "Softmax-42", "moodle")
CANVAS_FILES = ("Grades-ATT101.csv", "canvas")


def shown_commands():
    """The `python -m autograder ...` lines of the term's sections, in the page's order, comments cut."""
    text = PAGE.read_text(encoding="utf-8")
    commands = []
    for section in SECTIONS:
        body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
        for block in re.findall(r"```bash\n(.*?)```", body, flags=re.S):
            for line in block.splitlines():
                line = line.split("  #", 1)[0].strip()
                if line.startswith("python -m autograder "):
                    commands.append(line)
    return commands


def _for(lms, command):
    """Does ``command`` belong to the ``lms`` class (a command naming neither runs on both)?"""
    canvas = any(word in command for word in CANVAS_FILES)
    moodle = any(word in command for word in MOODLE_FILES)
    return (canvas if lms == "canvas" else moodle) or not (canvas or moodle)


def _run(root, command):
    words = shlex.split(command)
    assert words[:3] == ["python", "-m", "autograder"]
    return subprocess.run([sys.executable, *words[1:], "--course-root", str(root)], cwd=root, capture_output=True,
                          text=True, timeout=600)


def _canvas_class(root):
    students = [["Alice, A.", "1001", "S-1", "alice", "A", *[""] * 8],
                ["Luc, Jean", "1005", "S-5", "jean", "A", *[""] * 8],
                ["Dave, D.", "1004", "S-4", "dave", "A", *[""] * 8],
                ["Martin, Zoë", "1006", "S-6", "zoe", "A", *[""] * 8],
                ["Müller, Jan", "1008", "S-8", "jan", "A", *[""] * 8],
                ["Nobody, Ann", "1010", "S-10", "ann", "A", *[""] * 8]]          # submitted nothing
    (root / "2026-11-20T0930_Grades-ATT101.csv").write_text(exports.canvas_export(students=students),
                                                            encoding="utf-8")
    archive = root / "autograder" / "downloaded" / "01_softmax" / "archive"
    archive.mkdir(parents=True)
    lms_zips._canvas_zip_by_python(archive / "submissions.zip")


def _moodle_class(root):
    (root / "courseid_7_participants.csv").write_text(exports.moodle_participants(), encoding="utf-8")
    (root / "Grades-ATT101-Softmax-42.csv").write_text(exports.moodle_worksheet(rows=[
        ["Participant 2001", "Zoë Martin", "zoe@uni.example", "Submitted for grading", "", "7.00", "Yes", "-", "-", ""],
        ["Participant 2002", "Hua Li", "hua.li@uni.example", "Submitted for grading", "", "7.00", "Yes", "-", "-", ""],
    ]), encoding="utf-8")
    archive = root / "autograder" / "downloaded" / "01_softmax" / "archive"
    archive.mkdir(parents=True)
    lms_zips._info_zip(archive / "submissions.zip", {   # Moodle 4.x: a folder per participant
        "Zoë Martin_2001_assignsubmission_file/softmax.ipynb": lms_zips._notebook(),
        "Li Hua_2002_assignsubmission_file/softmax.ipynb": lms_zips._notebook(lms_zips.WRONG)})


def _grade_written_answers(root):
    """Score every written answer, as the instructor does in Formgrader (its save sets the manual score)."""
    import warnings

    from nbgrader.api import Gradebook
    with warnings.catch_warnings(), Gradebook(helpers.gradebook_url(root)) as gradebook:
        warnings.simplefilter("ignore")   # nbgrader 0.9 on SQLAlchemy 2 warns about its own autoflush
        for submission in gradebook.assignment_submissions("01_softmax"):
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    if grade.manual_score is None and grade.auto_score is None:
                        grade.manual_score = 1.0
        gradebook.db.commit()


@pytest.mark.parametrize("lms", ["canvas", "moodle"])
def test_every_term_command_on_the_page_runs(tmp_path, lms):
    commands = [c for c in shown_commands() if _for(lms, c)]
    assert any(" roster import " in c for c in commands) and any(" export " in c for c in commands)
    assert any(" release_feedback " in c for c in commands) and any(" similarity " in c for c in commands)
    root = helpers.course(tmp_path)
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    (_canvas_class if lms == "canvas" else _moodle_class)(root)
    rosters = [c for c in commands if " roster import " in c]
    for command in rosters:                      # first the class list, as the page says: once a term
        result = _run(root, command)
        assert result.returncode == 0, (command, result.stderr)
    collected = _run(root, "python -m autograder collect 01_softmax")
    assert collected.returncode == 0, collected.stderr
    assert "could not map" not in collected.stdout, collected.stdout
    assert "also holds folders" not in collected.stdout, collected.stdout   # the roster's id is Canvas's
    graded = _run(root, "python -m autograder grade 01_softmax --no-progress")
    assert graded.returncode == 0, graded.stderr
    assert "named otherwise" not in collected.stdout, collected.stdout   # Canvas's "lastfirst" is no rename
    _grade_written_answers(root)
    helpers.nbgrader("generate_feedback", "01_softmax", root=root)
    if lms == "canvas":
        assert "Ann Nobody (canvas-1010)" in collected.stdout          # submitted nothing, by her name
        assert "Zoë Martin (canvas-1006)" in graded.stdout             # the summary by the roster's names
    else:
        assert f"Zoë Martin ({S001})" in graded.stdout
    for command in commands[len(rosters):]:
        result = _run(root, command)
        assert result.returncode == 0, (command, result.stdout, result.stderr)
        target = shlex.split(command)
        if target[3] == "export":
            rows = list(csv.reader(open(root / target[7], encoding="utf-8-sig", newline="")))
            graded_ids = {row[1] for row in rows[1:]} if lms == "canvas" else {row[3] for row in rows[1:]}
            assert graded_ids == ({"1001", "1004", "1005", "1006", "1008"} if lms == "canvas"
                                  else {"zoe@uni.example", "hua.li@uni.example"}), rows
            assert len(rows) > 2
        if target[3] == "release_feedback":
            with zipfile.ZipFile(root / target[7]) as archive:
                names = archive.namelist()
            assert names and all(name.endswith((".html", ".ipynb")) for name in names), names
            if lms == "moodle":
                assert any(name.startswith("Zoë Martin_2001_assignsubmission_file") for name in names), names
    reports = root / "autograder" / "reports" / "01_softmax"
    assert {"misconceptions.md", "tests.csv", "statistics.png"} <= {p.name for p in reports.iterdir()}
    page = (reports / "misconceptions.md").read_text(encoding="utf-8")   # the page's last report: --lang ja
    assert f"{5 if lms == 'canvas' else 2} 件の提出物は、ここでは遅延の有無がわからない" in page   # no time in a zip
    assert (root / "autograder" / "similarity" / "01_softmax" / "index.html").is_file()
