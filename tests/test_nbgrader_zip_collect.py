"""`nbgrader zip_collect`, with the course's configuration, is as safe as `python -m autograder collect`.

The course plugs autograder/zip_plugins.py into nbgrader's ZipCollectApp: the extractor reads the
zips with collect.py's own code, the collector takes the student id from what it wrote.  On the same
Canvas and Moodle zips both give the same ids, files, timestamps and names; the attacks of issue 24
(a learner renamed like a classmate, a zip bomb, a `../` path, a link) fail against both; nbgrader's
stock plug-ins, as the course configured them before, fail the rename attack.
"""
import os
import subprocess
import sys
import zipfile

import pytest
from nbgrader.api import Gradebook
from nbgrader.utils import parse_utc

import helpers
from test_roster import HUA, S001
import test_lms_collect as lms_zips   # the Canvas and Moodle zips, as the LMSs write them
from autograder import collect as lms
from autograder import course as courses
from autograder import roster, zip_plugins

pytestmark = pytest.mark.nbgrader

HONEST, WRONG, ON_TIME = lms_zips.HONEST, lms_zips.WRONG, lms_zips.ON_TIME
ALICE = HONEST["alice_1001_5001_softmax.ipynb"]
STOCK = ["--ZipCollectApp.extractor_plugin=nbgrader.plugins.ExtractorPlugin",   # the course's configuration
         "--ZipCollectApp.collector_plugin=nbgrader.plugins.FileNameCollectorPlugin",   # before issue 24
         r"--FileNameCollectorPlugin.named_regexp=.*/(?P<student_id>[^/]+?)_(?:late_)?\d+_\d+_"
         r"(?P<file_id>[^/]+?)(?:-\d+)?\.ipynb$"]


def _course(tmp_path, *archives):
    """A scratch course with the release of 01_softmax and ``archives`` in its LMS archive folder."""
    root = helpers.course(tmp_path)
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    folder = root / courses.DOWNLOADED / "01_softmax" / "archive"
    folder.mkdir(parents=True)
    for archive in archives:
        os.link(archive, folder / archive.name)
    return root


def _zip_collect(root, *options):
    return helpers.nbgrader("zip_collect", "01_softmax", *options, root=root, check=False)


def _collect(root):
    return subprocess.run([sys.executable, "-m", "autograder", "collect", "01_softmax", "--course-root", str(root)],
                          cwd=helpers.REPO, capture_output=True, text=True, timeout=300)


def _collected(root):
    """{student: {file: bytes}} of every notebook in autograder/submitted/, and {student: timestamp}."""
    submitted = courses.course_at(root).submitted
    files = {folder.name: {p.name: p.read_bytes() for p in (folder / "01_softmax").glob("*.ipynb")}
             for folder in submitted.iterdir()}
    stamps = {folder.name: parse_utc((folder / "01_softmax" / "timestamp.txt").read_text())
              for folder in submitted.iterdir() if (folder / "01_softmax" / "timestamp.txt").exists()}
    return files, stamps


def _names(root):
    with Gradebook(helpers.gradebook_url(root)) as gradebook:
        return {student.id: student.last_name for student in gradebook.students}


def _skipped(stderr):
    """The entries the extractor skipped: {line after "Skipped "}."""
    return {line.split("] Skipped ", 1)[1] for line in stderr.splitlines() if "] Skipped " in line}


def test_same_ids_files_timestamps_and_names_as_collect(tmp_path):
    """Canvas zips by Python (UTF-8 flag, a resubmission, a late marker) and by Info-ZIP (no flag, a
    link), and a Moodle zip (a formula for a name, two notebooks from one participant)."""
    made = tmp_path / "zips"
    made.mkdir()
    archives = [lms_zips._canvas_zip_by_python(made / "canvas-python.zip"),
                lms_zips._canvas_zip_by_info_zip(made / "canvas-infozip.zip"),
                lms_zips._moodle_zip_by_info_zip(made / "moodle.zip")]
    by_collect = _course(tmp_path / "collect", *archives)
    by_nbgrader = _course(tmp_path / "nbgrader", *archives)
    assert _collect(by_collect).returncode == 0
    run = _zip_collect(by_nbgrader)
    assert run.returncode == 0, run.stderr
    files, stamps = _collected(by_nbgrader)
    assert set(files) == set(lms_zips.STUDENTS)
    assert (files, stamps) == _collected(by_collect)
    assert stamps == {}            # neither writes the zip's time: it is the download's
    assert sorted(files["moodle-2002"]) == ["softmax-Copy1.ipynb", "softmax.ipynb"]
    assert _names(by_nbgrader) == _names(by_collect) == lms_zips.STUDENTS
    assert _skipped(run.stderr) == {
        "readme.txt (not a notebook)",
        "softmax.ipynb (a name neither the Canvas nor the Moodle layout explains)",
        "mallory_1009_5009_softmax.ipynb (a symbolic link)",
        "dave_late_1004_5004_softmax.ipynb (superseded by resubmission 1)"}


@pytest.mark.parametrize("layout", ["canvas", "moodle"])
def test_a_learner_renamed_like_a_classmate_takes_nothing_from_her(tmp_path, layout):
    """Mallory renames herself after Alice: with the stock plug-ins both got Alice's id, and Alice lost
    her submission; with the course's, each is her LMS id, and Alice is collected with her own notebook."""
    if layout == "canvas":
        alice, mallory = "canvas-1001", "canvas-1666"
        entries = {**HONEST, "alice_1666_7666_softmax.ipynb": lms_zips._notebook(WRONG),
                   "alice_1001_5001_1667_7667_softmax.ipynb": lms_zips._notebook(WRONG)}
    else:
        alice, mallory, folder = "moodle-2020", "moodle-2021", "_assignsubmission_file_/softmax.ipynb"
        entries = {f"Alice Smith_2020{folder}": ALICE, f"ALICE  SMITH_2021{folder}": lms_zips._notebook(WRONG)}
    archive = lms_zips._zip(tmp_path / f"{layout}.zip", entries)
    root = _course(tmp_path / "course", archive)
    run = _zip_collect(root)
    assert run.returncode == 0, run.stderr
    assert helpers.submitted(root, alice).read_text() == ALICE
    assert helpers.submitted(root, mallory).read_text() == lms_zips._notebook(WRONG)
    if layout == "canvas":   # her name holding Alice's ids: her own entry is refused, never Alice's
        assert any(line.startswith("alice_1001_5001_1667_7667_softmax.ipynb (a name that reads as ")
                   and "canvas-1001" in line
                   for line in _skipped(run.stderr))

    stock = _course(tmp_path / "stock", archive)   # Canvas: both are "alice", nbgrader stops; Moodle: no one
    _zip_collect(stock, *STOCK)
    submitted = courses.course_at(stock).submitted
    assert ALICE not in [p.read_text() for p in submitted.glob("*/01_softmax/softmax.ipynb")]


def _extractor(root):
    """The course's extractor, as ZipCollectApp makes it, in this process (to measure its memory)."""
    from nbgrader.apps import ZipCollectApp
    from nbgrader.coursedir import CourseDirectory
    config = courses.load_config(root)
    app = ZipCollectApp(config=config)
    app.coursedir = CourseDirectory(config=config, parent=app)
    app.coursedir.assignment_id = "01_softmax"
    return zip_plugins.BoundedExtractor(parent=app)


def test_a_zip_bomb_is_refused_without_inflating_it(tmp_path, caplog):
    """An entry of 200 KiB inflating to 200 MiB is refused by its declared size; one declaring 1000
    bytes is stopped past 16 MiB; an honest 12 MiB notebook is streamed to disk: memory stays small."""
    archive, large = lms_zips.bomb_archive(tmp_path / "canvas.zip")
    root = _course(tmp_path / "course", archive)
    extracted = tmp_path / "extracted"
    extracted.mkdir()
    extractor = _extractor(root)
    with Gradebook(helpers.gradebook_url(root)):   # nbgrader loaded and its gradebook made before measuring
        pass
    _, peak = lms_zips._peak(lambda: extractor.extract(str(archive.parent), str(extracted)))
    assert peak < 4 << 20, f"{peak / 2**20:.1f} MiB"
    assert sorted(p.name for p in extracted.iterdir()) == ["canvas-1001", "canvas-1002", "canvas-1003"]
    assert (extracted / "canvas-1003" / "softmax.ipynb").read_text() == large

    run = _zip_collect(root)   # the same archive, by nbgrader's own command
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in courses.course_at(root).submitted.iterdir()) == \
        ["canvas-1001", "canvas-1002", "canvas-1003"]
    skipped = sorted(_skipped(run.stderr))
    assert skipped[0] == (f"mallory_1009_5009_softmax.ipynb ({200 << 20} bytes once inflated, more than the "
                          "16 MiB a notebook may have)")
    assert skipped[1].startswith("trudy_1010_5010_softmax.ipynb (cannot be read from the archive (BadZipFile")
    extracted = root / courses.DOWNLOADED / "01_softmax" / "extracted"
    assert not (extracted / "canvas-1009").exists() and not (extracted / "canvas-1010").exists()


def test_links_and_paths_out_of_the_archive_are_not_extracted(tmp_path):
    """`../` entries (Canvas- and Moodle-shaped) and links (Info-ZIP's, and one made by hand) write nothing."""
    archive = tmp_path / "canvas.zip"
    with zipfile.ZipFile(archive, "w") as opened:
        for name, text in {**HONEST, "../../eve_1011_5011_softmax.ipynb": ALICE,
                           "Eve_2012_assignsubmission_file_/../../../softmax.ipynb": ALICE}.items():
            opened.writestr(zipfile.ZipInfo(name, date_time=ON_TIME), text)
        link = zipfile.ZipInfo("eve_1013_5013_softmax.ipynb", date_time=ON_TIME)
        link.external_attr = (0o120777 << 16)
        opened.writestr(link, "../../../../solutions/01_softmax/softmax.ipynb")
    (tmp_path / "made").mkdir()   # Info-ZIP zips a folder of real links: kept apart from the course
    links = lms_zips._info_zip(tmp_path / "made" / "infozip.zip", {"bob_1002_5002_x.ipynb": ""},
                               links=[("eve_1014_5014_softmax.ipynb", "/etc/passwd")])
    root = _course(tmp_path / "course", archive, links)
    run = _zip_collect(root)
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in courses.course_at(root).submitted.iterdir()) == ["canvas-1001", "canvas-1002"]
    assert _skipped(run.stderr) >= {
        "'../../eve_1011_5011_softmax.ipynb' (a path that leaves the archive)",
        "'Eve_2012_assignsubmission_file_/../../../softmax.ipynb' (a path that leaves the archive)",
        "eve_1013_5013_softmax.ipynb (a symbolic link)", "eve_1014_5014_softmax.ipynb (a symbolic link)"}
    everything = list((tmp_path / "course").rglob("*"))
    assert not [p for p in everything if p.is_symlink()]
    assert not [p for p in everything if "eve_" in p.name or "Eve_" in p.name]
    assert not (tmp_path / "eve_1011_5011_softmax.ipynb").exists() and not (tmp_path / "softmax.ipynb").exists()


def test_a_name_that_is_not_printable_is_not_extracted_and_cannot_forge_a_line(tmp_path):
    forged = "[ZipCollectApp | INFO] 30 files collected"
    archive = lms_zips._zip(tmp_path / "canvas.zip", {**HONEST, f"mallory_1009_5009_x\n{forged}\x1b[2K.ipynb": ALICE})
    root = _course(tmp_path / "course", archive)
    run = _zip_collect(root)
    assert run.returncode == 0, run.stderr
    assert forged not in run.stderr.splitlines() and "\x1b" not in run.stderr
    assert f"'mallory_1009_5009_x\\n{forged}\\x1b[2K.ipynb' (a file name that is not printable text)" \
        in _skipped(run.stderr)
    assert sorted(p.name for p in courses.course_at(root).submitted.iterdir()) == ["canvas-1001", "canvas-1002"]


@pytest.mark.parametrize("entries, words", [
    ({"notes.txt": "hello"}, "collected nothing for 01_softmax from canvas.zip: notes.txt (not a notebook)"),
    ({"Alice Smith_2030_assignsubmission_file_/softmax.ipynb": ALICE,
      "Eve Jones_2030_assignsubmission_file_/softmax.ipynb": ALICE},
     "moodle-2030: 'Alice Smith' ('Alice Smith_2030_assignsubmission_file_/softmax.ipynb' in canvas.zip) and "
     "'Eve Jones' ("),
], ids=["nothing-to-collect", "one-id-two-names"])
def test_an_archive_no_lms_writes_is_one_error_line_and_exit_1(tmp_path, entries, words):
    root = _course(tmp_path / "course", lms_zips._zip(tmp_path / "canvas.zip", entries))
    run = _zip_collect(root)
    assert run.returncode == 1
    (error,) = [line for line in run.stderr.splitlines() if "| ERROR]" in line]
    assert words in error
    assert not courses.course_at(root).submitted.exists()


def test_the_collector_takes_only_what_the_extractor_wrote(tmp_path):
    extracted = tmp_path / "extracted"
    (extracted / "canvas-1001").mkdir(parents=True)
    (extracted / "alice").mkdir()
    ours, by_hand = extracted / "canvas-1001" / "softmax.ipynb", extracted / "alice" / "alice_1001_5001_softmax.ipynb"
    for path in (ours, by_hand):
        path.write_text(ALICE)
    collector = zip_plugins.LmsIdCollector()
    assert collector.collect(str(ours)) == {"student_id": "canvas-1001", "file_id": "softmax.ipynb", "timestamp": None}
    assert collector.collect(str(by_hand)) is None
    assert lms.STUDENT_ID.fullmatch("canvas-1001") and not lms.STUDENT_ID.fullmatch("alice")


def test_with_a_roster_both_collects_give_the_rosters_ids(tmp_path):
    """The roster maps Moodle's per-assignment participants to its own ids in `nbgrader zip_collect`
    as in `collect`: by the participant numbers of the assignment's grading worksheet (Zoë Martin;
    Hua Li, written "Li Hua" by the zip); the third, unknown to the roster, keeps her participant
    id and is named in a line."""
    import test_roster
    made = tmp_path / "zips"
    made.mkdir()
    archive = lms_zips._moodle_zip_by_info_zip(made / "moodle.zip")
    participants = tmp_path / "participants.csv"
    participants.write_text(test_roster.moodle_participants(), encoding="utf-8")
    by_plugin = _course(tmp_path / "plugin", archive)
    by_collect = _course(tmp_path / "collect", archive)
    worksheet = tmp_path / "worksheet.csv"
    worksheet.write_text(test_roster.moodle_worksheet(rows=[
        ["Participant 2001", "Zoë Martin", "zoe@uni.example", "", "", "7.00", "Yes", "-", "-", ""],
        ["Participant 2002", "Hua Li", "hua.li@uni.example", "", "", "7.00", "Yes", "-", "-", ""]]), encoding="utf-8")
    for root in (by_plugin, by_collect):
        for file, assignment in ((participants, None), (worksheet, "01_softmax")):
            summary, failed = roster.import_file(courses.course_at(root), file, assignment, gradebook=False)
            assert failed is None, failed
    plugin = _zip_collect(by_plugin)
    assert plugin.returncode == 0, plugin.stderr
    assert "could not map to the roster: moodle-2003" in plugin.stderr
    assert _collect(by_collect).returncode == 0
    assert _collected(by_plugin) == _collected(by_collect)
    assert set(_collected(by_plugin)[0]) == {S001, HUA, "moodle-2003"}
    assert _names(by_plugin)[S001] == "Martin"
