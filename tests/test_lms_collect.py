"""Importing an LMS's zip loses no one: `python -m autograder collect ASSIGNMENT`.

Real-shaped archives, built by Python's zipfile (the UTF-8 flag set, as Canvas
writes them) and by Info-ZIP's `zip` (no UTF-8 flag, names as bytes), in Canvas's
and Moodle's layouts: unicode and underscores in ids survive, the late marker and
the time the zip records become nbgrader's timestamp (the gradebook then knows the
submission is late), a resubmission replaces the earlier file, links and files
no layout explains are listed with the reason, and release_feedback works after.
"""
import datetime
import os
import subprocess
import sys
import zipfile

import nbformat
import pytest
from nbgrader.api import Gradebook

import helpers
from autograder import collect as lms

pytestmark = pytest.mark.nbgrader

CORRECT = helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py"
WRONG = helpers.SUBMISSIONS / "01_softmax" / "wrong" / "axis_ignored.py"
ON_TIME = (2026, 11, 18, 9, 30, 0)
LATE = (2026, 11, 20, 12, 0, 0)
DUE = datetime.datetime(2026, 11, 19, 0, 0, 0)


def _notebook(path=CORRECT):
    return nbformat.writes(helpers.submission("01_softmax", path.read_text()))


class _Cp437Info(zipfile.ZipInfo):
    """An entry named in code page 437 without the UTF-8 flag, as DOS-era zip tools write it."""
    def _encodeFilenameFlags(self):
        return self.filename.encode("cp437"), self.flag_bits


def _canvas_zip_by_python(path):
    with zipfile.ZipFile(path, "w") as archive:
        for name, text, when in [
            ("alice_1001_5001_softmax.ipynb", _notebook(), ON_TIME),
            ("jean_luc_1005_5005_softmax.ipynb", _notebook(WRONG), ON_TIME),
            ("dave_late_1004_5004_softmax.ipynb", _notebook(WRONG), ON_TIME),     # replaced by -1
            ("dave_late_1004_5004_softmax-1.ipynb", _notebook(), LATE),
            ("zoë_1006_5006_softmax.ipynb", _notebook(), ON_TIME),               # UTF-8 flag
            ("readme.txt", "not a submission", ON_TIME),
            ("softmax.ipynb", _notebook(), ON_TIME),                              # whose?
        ]:
            archive.writestr(zipfile.ZipInfo(name, date_time=when), text)
        archive.writestr(_Cp437Info("müller_1008_5008_softmax.ipynb", date_time=ON_TIME), _notebook())
    return path


def _info_zip(path, files, links=()):
    """Write ``files`` ({relative name: text}) to disk and zip them with Info-ZIP's `zip`."""
    folder = path.with_suffix("")
    for name, text in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        os.utime(target, (datetime.datetime(*ON_TIME).timestamp(),) * 2)
    for name, points_to in links:
        os.symlink(points_to, folder / name)
    subprocess.run(["zip", "-q", "-r", "-y", str(path), "."], cwd=folder, check=True,
                   env={**os.environ, "LC_ALL": "C.UTF-8"})
    return path


def _canvas_zip_by_info_zip(path):
    return _info_zip(path, {"李华_1007_5007_softmax.ipynb": _notebook(WRONG)},
                     links=[("mallory_1009_5009_softmax.ipynb", "/etc/passwd")])


def _moodle_zip_by_info_zip(path):
    return _info_zip(path, {
        "Zoë Martin_2001_assignsubmission_file_/softmax.ipynb": _notebook(),
        "Li Hua_2002_assignsubmission_file_/softmax.ipynb": _notebook(WRONG),
        "Li Hua_2002_assignsubmission_file_/softmax-Copy1.ipynb": _notebook(),
    })


def test_info_zip_writes_no_utf8_flag_and_the_names_still_decode(tmp_path):
    path = _canvas_zip_by_info_zip(tmp_path / "canvas.zip")
    with zipfile.ZipFile(path) as archive:
        (info,) = [i for i in archive.infolist() if "5007" in i.orig_filename]
    assert not info.flag_bits & 0x800 and info.filename != "李华_1007_5007_softmax.ipynb"  # zipfile's cp437
    assert lms.entry_name(info) == "李华_1007_5007_softmax.ipynb"


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lms")
    root = helpers.course(tmp)
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    with Gradebook(helpers.gradebook_url(root)) as gradebook:
        gradebook.update_or_create_assignment("01_softmax", duedate=DUE)
    archive = root / "autograder" / "downloaded" / "01_softmax" / "archive"
    archive.mkdir(parents=True)
    _canvas_zip_by_python(archive / "canvas-python.zip")
    _canvas_zip_by_info_zip(tmp / "canvas-infozip.zip").rename(archive / "canvas-infozip.zip")
    moodle = _moodle_zip_by_info_zip(tmp / "moodle.zip")
    run = subprocess.run([sys.executable, "-m", "autograder", "collect", "01_softmax", "--course-root", str(root)],
                         cwd=helpers.REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    moodle_run = subprocess.run([sys.executable, "-m", "autograder", "collect", "01_softmax", str(moodle),
                                 "--course-root", str(root)], cwd=helpers.REPO, capture_output=True, text=True)
    assert moodle_run.returncode == 0, moodle_run.stderr
    return root, run.stdout, moodle_run.stdout


STUDENTS = {"alice", "jean_luc", "dave", "zoë", "müller", "李华", "zoëmartin", "lihua"}


def test_everyone_is_collected_under_the_lms_id(collected):
    root, _, _ = collected
    submitted = root / "autograder" / "submitted"
    assert {p.name for p in submitted.iterdir()} == STUDENTS
    for student in STUDENTS - {"lihua"}:
        assert sorted(p.name for p in (submitted / student / "01_softmax").iterdir()) == \
            ["softmax.ipynb", "submission_secret.txt", "timestamp.txt"], student
    assert (submitted / "lihua" / "01_softmax" / "softmax-Copy1.ipynb").exists()


def test_every_skipped_file_is_listed_with_its_reason(collected):
    _, out, moodle_out = collected
    (skipped,) = [line for line in out.splitlines() if line.startswith("skipped")]
    assert "skipped 4 file(s)" in skipped
    assert "readme.txt (not a notebook)" in skipped
    assert "softmax.ipynb (a name neither the Canvas nor the Moodle layout explains)" in skipped
    assert "mallory_1009_5009_softmax.ipynb (a symbolic link)" in skipped
    assert "dave_late_1004_5004_softmax.ipynb (superseded by resubmission 1)" in skipped
    assert "marked late by the LMS: dave" in out
    assert "lihua/softmax-Copy1.ipynb" in moodle_out


@pytest.fixture(scope="module")
def graded(collected):
    root, _, _ = collected
    grade = subprocess.run([sys.executable, "-m", "autograder", "grade", "01_softmax", "--no-progress",
                            "--course-root", str(root)], cwd=helpers.REPO, capture_output=True, text=True,
                           timeout=900)
    assert grade.returncode == 0, grade.stderr
    return root, grade.stdout


def test_late_marker_becomes_a_timestamp_nbgrader_counts_late(graded):
    root, out = graded
    stamp = (root / "autograder" / "submitted" / "dave" / "01_softmax" / "timestamp.txt").read_text()
    assert stamp == "2026-11-20 12:00:00.000000 UTC"
    assert f"01_softmax: {len(STUDENTS)} of {len(STUDENTS)} submissions graded" in out
    with Gradebook(helpers.gradebook_url(root)) as gradebook:
        dave = gradebook.find_submission("01_softmax", "dave")
        alice = gradebook.find_submission("01_softmax", "alice")
        assert dave.total_seconds_late == 36 * 3600 and alice.total_seconds_late == 0
        assert dave.score == 7.0                       # the resubmission, not the first file


def test_grade_reports_the_extra_notebook(graded):
    _, out = graded
    (line,) = [l for l in out.splitlines() if l.strip().startswith("lihua")]
    assert "extra notebook softmax-Copy1.ipynb is not graded" in line


def test_release_feedback_works_after_collect(graded, tmp_path):
    root, _ = graded
    helpers.nbgrader("generate_feedback", "01_softmax", root=root)
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    result = helpers.nbgrader("release_feedback", "01_softmax", f"--Exchange.root={exchange}", root=root, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    released = list((exchange / "attention-book" / "feedback").rglob("*.html"))
    assert len(released) == len(STUDENTS)


@pytest.mark.parametrize("args, words", [
    (["01_sofmax"], "no exercise named '01_sofmax'"),
    (["01_softmax"], "no zip to collect: expected the LMS's export in"),
])
def test_collect_with_nothing_to_do_exits_non_zero(tmp_path, args, words):
    root = helpers.course(tmp_path)
    result = subprocess.run([sys.executable, "-m", "autograder", "collect", *args, "--course-root", str(root)],
                            cwd=helpers.REPO, capture_output=True, text=True)
    assert result.returncode != 0 and words in result.stderr and len(result.stderr.splitlines()) == 1


def test_a_zip_with_no_submission_exits_non_zero(tmp_path):
    root = helpers.course(tmp_path)
    archive = tmp_path / "wrong.zip"
    with zipfile.ZipFile(archive, "w") as opened:
        opened.writestr("notes.txt", "hello")
    result = subprocess.run([sys.executable, "-m", "autograder", "collect", "01_softmax", str(archive),
                             "--course-root", str(root)], cwd=helpers.REPO, capture_output=True, text=True)
    assert result.returncode != 0 and "collected nothing for 01_softmax" in result.stderr
    assert "notes.txt (not a notebook)" in result.stderr
