"""Collecting from nbgrader's exchange cannot be fooled: `python -m autograder collect --exchange`.

The exchange's inbound folder is writable by every student; nbgrader's own collect takes
the student id from the folder's name (it only warns when the owner differs) and copies
following links with the instructor's rights.  Here the student is the folder's owner:
an inbox holding only a link to another student's submission is refused, and so is a
newer folder named after another student.  The students are system accounts
(daemon, nobody, bin, sys), so that the folders have different owners (the tests run as root).

Issue 24: both collectors (``collect --exchange`` and ``nbgrader collect`` with the course's
configuration, which plugs ``autograder.exchange.DescriptorCollect`` into nbgrader) read the
exchange through descriptors: a swapper that races a learner's folder, or a folder inside it,
against a link to the course's ``solutions/`` never gets the instructor's notebook collected;
sizes, counts and depth are bounded; one broken submission is one skipped line; and no name
a learner chose can forge a printed line.
"""
import contextlib
import io
import os
import pwd
import resource
import shutil
import stat
import subprocess
import sys
import time

import pytest

import helpers
from autograder import exchange as collecting
from autograder import course as courses
from autograder.notebooks import NotebookError

pytestmark = pytest.mark.nbgrader

CORRECT = helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py"
WRONG = helpers.SUBMISSIONS / "01_softmax" / "wrong" / "axis_ignored.py"


def _submit(inbound, name, owner, notebook=None, link_to=None):
    """A submission folder as nbgrader's submit leaves it, owned by ``owner``."""
    folder = inbound / name
    folder.mkdir(parents=True)
    uid = pwd.getpwnam(owner).pw_uid
    target = folder / "softmax.ipynb"
    if link_to is not None:
        os.symlink(link_to, target)
    else:
        helpers.write(notebook, target)
    (folder / "timestamp.txt").write_text(name.split("+")[2])
    for path in (folder, *folder.iterdir()):
        os.lchown(path, uid, -1)
    return folder


@pytest.fixture(scope="module")
def blank_gradebook(tmp_path_factory):
    """An empty gradebook, made once (nbgrader takes seconds to make one); each course gets a copy."""
    from nbgrader.api import Gradebook
    path = tmp_path_factory.mktemp("gradebook") / courses.GRADEBOOK
    with Gradebook(f"sqlite:///{path}", "attention-book"):
        pass
    return path


@pytest.fixture
def exchange(tmp_path, blank_gradebook):
    assert os.geteuid() == 0, "these tests give folders to other users, which takes root"
    inbound = tmp_path / "exchange" / "attention-book" / "inbound"
    honest = _submit(inbound, "daemon+01_softmax+2099-11-18 09:00:00.000000 UTC", "daemon",
                     helpers.submission("01_softmax", CORRECT.read_text()))
    root = helpers.course(tmp_path)
    shutil.copy(blank_gradebook, root / courses.GRADEBOOK)
    return root, inbound, honest


def test_an_inbox_holding_a_link_to_another_submission_is_refused(exchange):
    root, inbound, honest = exchange
    _submit(inbound, "nobody+01_softmax+2099-11-18 10:00:00.000000 UTC", "nobody",
            link_to=honest / "softmax.ipynb")
    students, skipped = collecting.collect_exchange(courses.course_at(root), inbound, "01_softmax")
    assert students == ["daemon"]
    assert skipped == [("nobody+01_softmax+2099-11-18 10:00:00.000000 UTC", "holds a symbolic link (softmax.ipynb)")]
    assert not (courses.course_at(root).submitted / "nobody").exists()


def test_a_forged_newer_folder_does_not_replace_the_owners_submission(exchange):
    root, inbound, honest = exchange
    forged = "daemon+01_softmax+2099-11-19 09:00:00.000000 UTC"
    _submit(inbound, forged, "nobody", helpers.submission("01_softmax", WRONG.read_text()))
    students, skipped = collecting.collect_exchange(courses.course_at(root), inbound, "01_softmax")
    assert students == ["daemon"] and skipped == [(forged, "named after daemon but owned by nobody")]
    collected = courses.course_at(root).submitted / "daemon" / "01_softmax" / "softmax.ipynb"
    assert collected.read_bytes() == (honest / "softmax.ipynb").read_bytes()


def test_a_newer_own_submission_replaces_the_older(exchange):
    root, inbound, _ = exchange
    newer = _submit(inbound, "daemon+01_softmax+2099-11-19 09:00:00.000000 UTC", "daemon",
                    helpers.submission("01_softmax", WRONG.read_text()))
    students, skipped = collecting.collect_exchange(courses.course_at(root), inbound, "01_softmax")
    collected = courses.course_at(root).submitted / "daemon" / "01_softmax"
    assert (collected / "softmax.ipynb").read_bytes() == (newer / "softmax.ipynb").read_bytes()
    assert (collected / "timestamp.txt").read_text() == "2099-11-19 09:00:00.000000 UTC"
    assert skipped == [("daemon+01_softmax+2099-11-18 09:00:00.000000 UTC", "an older submission")]


def test_nothing_to_collect_is_an_error(tmp_path):
    with pytest.raises(NotebookError, match="no exchange inbound folder"):
        collecting.collect_exchange(courses.course_at(helpers.course(tmp_path)), tmp_path / "none", "01_softmax")


# --------------------------------------------------------------------------- issue 24
ASSIGNMENT = "01_softmax"
SECRETS = (b"BEGIN SOLUTION", b"BEGIN HIDDEN TESTS")     # in the source notebook, never in a release
ATTACKER = "nobody+01_softmax+2099-11-18 10:00:00.000000 UTC"
COLLECTORS = ["collect --exchange", "nbgrader collect"]
STOCK_COLLECT = {"ExchangeFactory": {"collect": "nbgrader.exchange.default.collect.ExchangeCollect"}}

# The learner's loop (a separate process, so that it runs while the collector does): her folder
# moved aside, a link to the instructor's folder in its place for a millisecond, then her folder
# back for a millisecond (a learner watching with inotify would time it better).
SWAPPER = """
import os, signal, sys, time
real, parked, link_to = sys.argv[1:]
stop = []
signal.signal(signal.SIGTERM, lambda *_: stop.append(True))
print("ready", flush=True)
while not stop:                  # a SIGTERM ends the loop with her folder in place
    os.rename(real, parked)
    os.symlink(link_to, real)
    time.sleep(0.001)
    os.unlink(real)
    os.rename(parked, real)
    time.sleep(0.001)
"""


def _give(path, owner):
    """``path`` and everything below it owned by ``owner``."""
    uid = pwd.getpwnam(owner).pw_uid
    for folder, names, files in os.walk(path):
        for name in [*names, *files]:
            os.lchown(os.path.join(folder, name), uid, -1)
    os.lchown(path, uid, -1)


def _attacker(inbound, name=ATTACKER, owner="nobody"):
    return _submit(inbound, name, owner, helpers.submission(ASSIGNMENT, WRONG.read_text()))


def _leaked(root):
    """Collected files holding the source notebook's text (what grading reads is in there)."""
    return [p for p in courses.course_at(root).submitted.rglob("*")
            if p.is_file() and any(secret in p.read_bytes() for secret in SECRETS)]


def _nbgrader_collect(root, inbound, config=None, **settings):
    """Formgrader's Collect: nbgrader's API in this process, with the course's configuration
    (autograder/nbgrader_config.py) and ``settings``; nbgrader's result (success, log, error)."""
    from nbgrader.apps.api import NbGraderAPI
    from traitlets.config import Config
    config = config or courses.load_config(root)
    config.merge(Config({"Exchange": {"root": str(inbound.parent.parent)}, **settings}))
    return NbGraderAPI(config=config).collect(ASSIGNMENT)


def _collect(collector, root, inbound):
    """Run ``collector`` on the course at ``root``; what it printed (or logged)."""
    if collector == "collect --exchange":
        out = io.StringIO()
        collecting.collect_exchange(courses.course_at(root), inbound, ASSIGNMENT, out=out)
        return out.getvalue()
    result = _nbgrader_collect(root, inbound)
    assert result["success"], result
    return result.get("log", "")


def _by_path_leaks(folder, uid):
    """The control: collect --exchange before issue 24 checked every entry with lstat, then, once it
    had checked every student's folder, opened each file by its path with O_NOFOLLOW, which guards
    the last component only.  True when what it read holds the source notebook, i.e. when the
    swapper won the race against it."""
    try:
        files = []
        for path in [folder, *sorted(folder.rglob("*"))]:
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode) or info.st_uid != uid:
                return False
            if stat.S_ISREG(info.st_mode):
                files.append(path)
    except OSError:
        return False
    time.sleep(0.001)                      # checking the other students' folders
    for path in files:                     # by path: a folder on the way may be a link by now
        with contextlib.suppress(OSError), os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), "rb") as opened:
            if any(secret in opened.read() for secret in SECRETS):
                return True
    return False


@contextlib.contextmanager
def _swapping(real, parked, link_to):
    swapper = subprocess.Popen([sys.executable, "-c", SWAPPER, str(real), str(parked), str(link_to)],
                               stdout=subprocess.PIPE, text=True)
    try:
        assert swapper.stdout.readline().strip() == "ready"
        yield
    finally:
        swapper.terminate()
        swapper.wait(timeout=30)
    assert real.is_dir() and not real.is_symlink()


def _race_target(root, inbound, swapped):
    """(what the swapper swaps, the attacker's folder): her folder itself, or a folder in it holding
    her own softmax.ipynb, swapped for a link to solutions/01_softmax/ (which holds softmax.ipynb)."""
    attacker = _attacker(inbound)
    helpers.write(helpers.submission(ASSIGNMENT, WRONG.read_text()), attacker / "data" / "softmax.ipynb")
    _give(attacker, "nobody")
    return (attacker if swapped == "folder" else attacker / "data"), attacker


@pytest.mark.parametrize("swapped", ["folder", "subfolder"])
def test_a_folder_swapped_for_a_link_to_solutions_races_collect_exchange_in_vain(exchange, swapped):
    root, inbound, honest = exchange
    course = courses.course_at(root)
    real, attacker = _race_target(root, inbound, swapped)
    uid = pwd.getpwnam("nobody").pw_uid
    runs, refused, control_won, deadline = 0, 0, 0, time.monotonic() + 60
    with _swapping(real, inbound / ".parked", course.source / ASSIGNMENT):
        while (runs < 150 or not control_won) and time.monotonic() < deadline:
            students, _ = collecting.collect_exchange(course, inbound, ASSIGNMENT, out=io.StringIO())
            assert "daemon" in students
            assert not _leaked(root), f"run {runs}: the instructor's notebook was collected"
            refused += "nobody" not in students
            control_won += _by_path_leaks(attacker, uid)
            runs += 1
    assert control_won, f"in {runs} runs the swapper never beat a by-path reader: the race proved nothing"
    assert refused, f"in {runs} runs the swapper never got in the way"
    assert (course.submitted / "daemon" / ASSIGNMENT / "softmax.ipynb").read_bytes() == \
        (honest / "softmax.ipynb").read_bytes()


@pytest.mark.parametrize("swapped", ["folder", "subfolder"])
def test_the_same_race_against_nbgrader_collect_with_the_course_configuration(exchange, swapped):
    root, inbound, _ = exchange
    course = courses.course_at(root)
    real, attacker = _race_target(root, inbound, swapped)
    config = courses.load_config(root)
    runs, refused, deadline = 0, 0, time.monotonic() + 60
    with _swapping(real, inbound / ".parked", course.source / ASSIGNMENT):
        while runs < 150 and time.monotonic() < deadline:
            shutil.rmtree(course.submitted / "nobody", ignore_errors=True)   # collected again each run
            result = _nbgrader_collect(root, inbound, config.copy())
            assert result["success"], result
            assert not _leaked(root), f"run {runs}: the instructor's notebook was collected"
            refused += not (course.submitted / "nobody").exists()
            runs += 1
    assert runs >= 20 and refused, f"in {runs} runs the swapper never got in the way"
    # What the configuration's line prevents: nbgrader's own collector, shown the link without
    # any race, collects the instructor's notebook as the learner's.
    shutil.rmtree(course.submitted)
    real.rename(inbound / ".parked")
    real.symlink_to(course.source / ASSIGNMENT)
    assert _nbgrader_collect(root, inbound, **STOCK_COLLECT)["success"]
    assert _leaked(root)


def test_a_sparse_notebook_of_1_5_gb_is_refused_unread(exchange):
    root, inbound, _ = exchange
    course = courses.course_at(root)
    attacker = _attacker(inbound)
    with open(attacker / "softmax.ipynb", "r+b") as notebook:   # still hers: truncate keeps the owner
        notebook.truncate(1_500_000_000)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    students, skipped = collecting.collect_exchange(course, inbound, ASSIGNMENT, out=io.StringIO())
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert students == ["daemon"]
    assert skipped == [(ATTACKER, "softmax.ipynb is larger than 16 MiB")]
    assert grown_kib < 32 * 1024, f"collecting grew the process by {grown_kib} KiB"
    written = [p for p in course.submitted.rglob("*") if p.is_file()]
    assert max(p.stat().st_size for p in written) < 2**20
    assert not (course.submitted / "nobody").exists()
    assert not [p for p in course.submitted.rglob(".*")], "a temporary folder was left behind"


@pytest.mark.parametrize("excess", ["bytes in all", "files", "depth"])
def test_a_submission_over_a_bound_is_refused_and_nothing_of_it_written(exchange, excess):
    root, inbound, _ = exchange
    course = courses.course_at(root)
    attacker = _attacker(inbound)
    if excess == "bytes in all":    # each file under the bound, together over it (counted as read)
        for n in range(5):
            with open(attacker / f"part{n}.bin", "wb") as part:
                part.truncate(15 * 2**20)
        reason = "more than 64 MiB in all"
    elif excess == "files":
        for n in range(300):
            (attacker / f"note{n}.txt").write_text("")
        reason = "more than 256 files and folders"
    else:
        (attacker / "a/a/a/a/a/a/a/a/a/a").mkdir(parents=True)
        reason = "folders nested more than 8 deep ('a/a/a/a/a/a/a/a/a')"
    _give(attacker, "nobody")
    students, skipped = collecting.collect_exchange(course, inbound, ASSIGNMENT, out=io.StringIO())
    assert students == ["daemon"] and skipped == [(ATTACKER, reason)]
    assert not (course.submitted / "nobody").exists()
    assert not [p for p in course.submitted.rglob(".*")], "a temporary folder was left behind"


@pytest.mark.parametrize("collector", COLLECTORS)
def test_names_with_a_newline_and_escapes_cannot_forge_a_printed_line(exchange, collector):
    root, inbound, _ = exchange
    forged = "collected 9 submission(s) of 01_softmax, nothing skipped"
    _attacker(inbound, f"nobody\n{forged}\x1b[2K\r+01_softmax+2099-11-18 10:00:00.000000 UTC")
    inside = _attacker(inbound, "bin+01_softmax+2099-11-18 11:00:00.000000 UTC", owner="bin")
    (inside / f"notes\n{forged}\x1b]0;title\x07.txt").write_text("")
    _give(inside, "bin")
    printed = _collect(collector, root, inbound)
    assert "\x1b" not in printed and "\r" not in printed
    assert all(line.isprintable() for line in printed.splitlines()), printed
    # the forged text is shown (both names), each time inside a quoted name, after its "\n"
    assert printed.count(forged) == printed.count("\\n" + forged) >= 2, printed
    assert helpers.submitted(root, "daemon").is_file()
    assert not (courses.course_at(root).submitted / "bin").exists()


@pytest.mark.parametrize("collector", [*COLLECTORS, "nbgrader collect (command)"])
def test_a_forged_newer_folder_named_after_a_classmate_neither_takes_nor_zeroes_her(exchange, collector):
    root, inbound, honest = exchange
    forged = "daemon+01_softmax+2099-11-19 09:00:00.000000 UTC"
    _attacker(inbound, forged)
    if collector == "nbgrader collect (command)":   # `nbgrader collect` as the instructor types it
        result = helpers.nbgrader("collect", ASSIGNMENT, f"--Exchange.root={inbound.parent.parent}", root=root)
        printed = result.stdout + result.stderr
    else:
        printed = _collect(collector, root, inbound)
    assert helpers.submitted(root, "daemon").read_bytes() == (honest / "softmax.ipynb").read_bytes()
    assert helpers.submitted(root, "daemon", "timestamp.txt").read_text() == "2099-11-18 09:00:00.000000 UTC"
    assert not (courses.course_at(root).submitted / "nobody").exists()
    assert "named after daemon but owned by nobody" in printed


def test_one_broken_submission_is_one_skipped_line_and_the_others_are_collected(exchange, tmp_path):
    """Run as root without the capabilities that bypass file permissions (setpriv), so that a file
    its owner made unreadable is an OSError, as for an instructor who is not root."""
    root, inbound, _ = exchange
    deep = _attacker(inbound)                          # nested past PATH_MAX: ENAMETOOLONG by path
    folder = os.open(deep, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(20):
        os.mkdir("d" * 250, dir_fd=folder)
        os.chown("d" * 250, pwd.getpwnam("nobody").pw_uid, -1, dir_fd=folder)
        inner = os.open("d" * 250, os.O_RDONLY | os.O_DIRECTORY, dir_fd=folder)
        os.close(folder)
        folder = inner
    os.close(folder)
    fifo = _attacker(inbound, "bin+01_softmax+2099-11-18 11:00:00.000000 UTC", owner="bin")
    os.mkfifo(fifo / "pipe.ipynb")
    _give(fifo, "bin")
    unreadable = _attacker(inbound, "sys+01_softmax+2099-11-18 12:00:00.000000 UTC", owner="sys")
    (unreadable / "softmax.ipynb").chmod(0)
    script = ("import json, sys\nfrom autograder import course, exchange\n"
              "students, skipped = exchange.collect_exchange(course.course_at(sys.argv[1]), sys.argv[2], '01_softmax')\n"
              "print(json.dumps([students, skipped]))")
    result = subprocess.run(["setpriv", "--bounding-set=-dac_override,-dac_read_search", sys.executable, "-c",
                             script, str(root), str(inbound)], capture_output=True, text=True, timeout=120,
                            cwd=helpers.REPO)
    assert result.returncode == 0 and not result.stderr, result.stderr
    *printed, returned = result.stdout.splitlines()
    import json
    students, skipped = json.loads(returned)
    assert students == ["daemon"]
    assert [name for name, _ in skipped] == [fifo.name, deep.name, unreadable.name]
    assert skipped[0][1] == "holds pipe.ipynb, which is not a file"
    assert skipped[1][1].startswith("folders nested more than 8 deep ('ddd")
    assert skipped[2][1] == "could not read softmax.ipynb (Permission denied)"
    assert printed[0].startswith("collected 1 submission(s) of 01_softmax") and len(printed) == 4
    assert helpers.submitted(root, "daemon").is_file()


@pytest.mark.parametrize("collector", COLLECTORS)
def test_a_hard_link_to_the_instructors_notebook_is_refused(exchange, collector):
    """Check and use the same object, a variant: the name is the learner's, the file is not
    (a hard link keeps its owner; a learner can make one where fs.protected_hardlinks is 0)."""
    root, inbound, _ = exchange
    attacker = _attacker(inbound)
    (attacker / "softmax.ipynb").unlink()
    os.link(courses.course_at(root).source / ASSIGNMENT / "softmax.ipynb", attacker / "softmax.ipynb")
    printed = _collect(collector, root, inbound)
    assert "holds softmax.ipynb, owned by root" in printed
    assert not _leaked(root) and not (courses.course_at(root).submitted / "nobody").exists()


@pytest.mark.parametrize("collector", COLLECTORS)
def test_the_timestamp_recorded_is_the_one_the_submission_was_chosen_by(exchange, collector):
    """Check and use the same object, another variant: the learner's process wrote timestamp.txt
    too; the one recorded (the late penalty's) is the folder name's, which chose the newest."""
    root, inbound, _ = exchange
    attacker = _attacker(inbound)
    (attacker / "timestamp.txt").write_text("2020-01-01 00:00:00.000000 UTC")   # before any due date
    _collect(collector, root, inbound)
    assert helpers.submitted(root, "nobody", "timestamp.txt").read_text() == "2099-11-18 10:00:00.000000 UTC"
    assert helpers.submitted(root, "nobody").read_bytes() == (attacker / "softmax.ipynb").read_bytes()
    assert helpers.submitted(root, "nobody", "submission_secret.txt").is_file()


@pytest.mark.parametrize("collector", COLLECTORS)
def test_a_back_dated_name_is_overruled_by_the_kernels_time(exchange, collector):
    """Trust nothing a learner can name: the folder's name holds the time nbgrader's submit claims,
    which the learner writes; the kernel's change time of the folder and of what is in it, which no
    user can set, overrules a claim earlier than it (late work cannot pass for work on time)."""
    import datetime
    root, inbound, _ = exchange
    before = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None, microsecond=0)
    _attacker(inbound, "nobody+01_softmax+2026-01-01 00:00:00.000000 UTC")
    after = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None) + datetime.timedelta(seconds=1)
    _collect(collector, root, inbound)
    recorded = helpers.submitted(root, "nobody", "timestamp.txt").read_text()
    assert before <= datetime.datetime.strptime(recorded, "%Y-%m-%d %H:%M:%S.%f %Z") <= after, recorded

    # nbgrader's own submit names the folder, then copies into it: a claim that close stands
    assert collecting.trusted_time(datetime.datetime(2026, 1, 1), datetime.datetime(2026, 1, 1, 0, 0, 59)) == \
        datetime.datetime(2026, 1, 1)
    assert collecting.trusted_time(datetime.datetime(2026, 1, 1), datetime.datetime(2026, 1, 1, 0, 1, 1)) == \
        datetime.datetime(2026, 1, 1, 0, 1, 1)


@pytest.mark.parametrize("collector", COLLECTORS)
def test_a_time_at_the_calendars_end_is_one_skipped_line(exchange, collector):
    """Red team, issue 24: a name claiming 9999-12-31 23:59:30 overflowed the grace and stopped
    collection for everyone."""
    root, inbound, _ = exchange
    _attacker(inbound, "nobody+01_softmax+9999-12-31 23:59:30.000000 UTC")
    printed = _collect(collector, root, inbound)
    assert "'nobody+01_softmax+9999-12-31 23:59:30.000000 UTC': an unreadable timestamp" in printed \
        or "an unreadable timestamp" in printed
    assert helpers.submitted(root, "daemon").is_file() and not (courses.course_at(root).submitted / "nobody").exists()


@pytest.mark.parametrize("collector", COLLECTORS)
def test_folders_named_as_nbgrader_submit_names_them_are_collected(exchange, collector):
    """nbgrader's submit appends a random part to each name (ExchangeSubmit.add_random_string)."""
    root, inbound, _ = exchange
    _attacker(inbound, "nobody+01_softmax+2099-11-17 10:00:00.000000 UTC+AAAAAAAAAAAA")
    _attacker(inbound, "nobody+01_softmax+2099-11-18 10:00:00.000000 UTC+Xy-9_Ab3cD4eF")
    printed = _collect(collector, root, inbound)
    assert helpers.submitted(root, "nobody", "timestamp.txt").read_text() == "2099-11-18 10:00:00.000000 UTC"
    assert "'nobody+01_softmax+2099-11-17 10:00:00.000000 UTC+AAAAAAAAAAAA': an older submission" in printed


def test_a_student_with_too_many_folders_is_one_skipped_line(exchange, monkeypatch):
    root, inbound, _ = exchange
    monkeypatch.setattr(collecting, "MAX_FOLDERS_PER_STUDENT", 3)   # the bound, small enough to reach here
    for day in range(10, 14):
        _attacker(inbound, f"nobody+01_softmax+2026-11-{day} 10:00:00.000000 UTC")
    students, skipped = collecting.collect_exchange(courses.course_at(root), inbound, ASSIGNMENT, out=io.StringIO())
    assert students == ["daemon"]
    assert skipped == [("nobody", "more than 3 folders of 01_softmax owned by nobody: none collected")]
