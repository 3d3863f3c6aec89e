"""Peak memory comes only from the kernel's count for the whole sandboxed tree (a memory cgroup).

With the cgroup (this machine: v1) the reference earns full marks, also when the peak counts
from the group's creation (v2 before Linux 6.12), and learner code can neither reset the count
nor leave it.  Without one (``MemoryCgroup.create`` returns None, as on a laptop or in a
container with a read-only /sys/fs/cgroup) nothing is guessed: a memory test is "not measured"
for every submission, the reference included, and the class run refuses the assignment.
"""
import re

import numpy as np
import pytest

import helpers
from autograder import __main__ as cli
from autograder import classrun, engine, notebooks, sandbox, selfcheck
from autograder import course as courses
from autograder.results import Kind
from autograder.sandbox import Limits, MemoryCgroup, MemoryUnmeasurable, Worker

ONLINE = "09_online_softmax"
# The tests of exercise 09 that bound memory: the visible one (its last check) and the hidden one.
MEMORY_TESTS = {"test_online_softmax_visible", "test_online_softmax_memory"}
ATTACKS = sorted((helpers.REPO / "tests" / "adversarial" / ONLINE).glob("*.py"))
FAST = Limits(cell_seconds=3, call_seconds=1.5, total_seconds=10, cpu_seconds=30, require_sandbox=True)


@pytest.fixture
def no_cgroup(monkeypatch):
    """A grader that cannot create a memory cgroup."""
    monkeypatch.setattr(MemoryCgroup, "create", classmethod(lambda cls, limit_bytes: None))


def _grade(assignment, notebook, limits=FAST):
    return engine.run_tests(helpers.exercise(assignment), notebook, limits, draw=helpers.TEST_DRAW)


def _reference(assignment):
    return helpers.exercise(assignment).source.notebook


# --------------------------------------------------------------------------- with the cgroup
def test_this_machine_measures_with_a_cgroup():
    """The adversarial tests of exercise 09 run with the count the class run uses."""
    assert classrun.memory_method(Limits()) in ("cgroup v1", "cgroup v2")


def test_the_reference_earns_full_marks():
    report = _grade(ONLINE, _reference(ONLINE), Limits())
    assert report.score == report.max_score, [(t.grade_id, t.message) for t in report.tests]


def test_the_reference_earns_full_marks_when_the_peak_counts_from_the_groups_creation(monkeypatch):
    """cgroup v2 before Linux 6.12 cannot reset ``memory.peak``: the interpreter's start is then
    counted too (v1 without its reset, here, is the same arithmetic)."""
    monkeypatch.setattr(MemoryCgroup, "reset_peak", lambda self: None)
    report = _grade(ONLINE, _reference(ONLINE), Limits())
    assert report.score == report.max_score, [(t.grade_id, t.message) for t in report.tests]


def test_learner_code_can_neither_reset_nor_leave_the_count():
    """A child holds 64 MiB and exits; then the learner's code tries every way to the group's
    files: the host's path, /sys, and cgroup file systems mounted in a user namespace of its own."""
    with Worker() as worker:
        assert worker.cgroup is not None
        worker.measure_baseline([np.zeros(10)], {})
        group = str(worker.cgroup.path)
        worker.run_cell(0, "import ctypes, os\n"
                           "def attack():\n"
                           "    if os.fork() == 0:\n"
                           "        block = bytearray(64 << 20)\n"
                           "        block[::4096] = b'x' * len(block[::4096])\n"
                           "        os._exit(0)\n"
                           "    os.wait()\n"
                           "    libc = ctypes.CDLL(None, use_errno=True)\n"
                           f"    roots, done = [{group!r}, '/sys/fs/cgroup', '/sys/fs/cgroup/memory'], []\n"
                           "    uid, gid = os.getuid(), os.getgid()\n"
                           "    if libc.unshare(0x10000000 | 0x00020000 | 0x02000000) == 0:   # user, mount, cgroup\n"
                           "        for name, text in (('setgroups', 'deny'), ('uid_map', f'0 {uid} 1'), ('gid_map', f'0 {gid} 1')):\n"
                           "            with open('/proc/self/' + name, 'w') as handle:\n"
                           "                handle.write(text)\n"
                           "        assert libc.mount(b'none', b'/tmp', b'tmpfs', 0, None) == 0\n"
                           "        for name, fstype, options in (('v1', b'cgroup', b'memory'), ('v2', b'cgroup2', None)):\n"
                           "            os.makedirs('/tmp/' + name, exist_ok=True)\n"
                           "            if libc.mount(b'none', ('/tmp/' + name).encode(), fstype, 0, options) == 0:\n"
                           "                roots.append('/tmp/' + name)\n"
                           "    for root in roots:\n"
                           "        for name, value in (('memory.max_usage_in_bytes', '0'), ('memory.peak', 'reset'),\n"
                           "                            ('cgroup.procs', '0')):\n"
                           "            try:\n"
                           "                with open(os.path.join(root, name), 'w') as handle:\n"
                           "                    handle.write(value)\n"
                           "                done.append(os.path.join(root, name))\n"
                           "            except OSError:\n"
                           "                pass\n"
                           "    return len(done)\n")
        assert worker.call("attack", [], {}) == 0
        assert worker.peak_memory() - worker.baseline >= 64 << 20


@pytest.mark.parametrize("path", [p for p in ATTACKS if p.stem in (
    "clear_refs_after_full_matrix", "score_matrix_in_child_process", "score_matrix_in_detached_grandchild",
    "reset_the_cgroup_count")], ids=lambda p: p.stem)
def test_memory_the_tree_held_is_counted(path):
    """The attacks on the count itself fail both memory tests, as the honest full matrix does."""
    report = _grade(ONLINE, helpers.submission(ONLINE, path.read_text()))
    failed = {t.grade_id: t for t in report.tests if t.grade_id in MEMORY_TESTS}
    assert all(t.kind is Kind.FAILED and t.score == 0 for t in failed.values()), failed
    assert "score matrix" in failed["test_online_softmax_memory"].message


# --------------------------------------------------------------------------- v2's arithmetic
class _KernelPeakFile:
    """memory.peak of cgroup v2 on Linux 6.12+, opened once: writing resets the peak that this open
    file reports, to the group's usage now; other readers are not affected."""

    def __init__(self, group):
        self.group, self.local = group, None

    def write(self, text):
        self.local = self.group["current"]

    def flush(self):
        pass

    def seek(self, offset):
        pass

    def read(self):
        return f"{self.group['peak'] if self.local is None else self.local}\n"

    def close(self):
        pass


def test_v2_peak_is_read_through_the_file_it_was_reset_through(tmp_path, monkeypatch):
    group = {"current": 30 << 20, "peak": 90 << 20}
    opened = []

    def kernel_open(path, mode="r", *args, **kwargs):
        if str(path).endswith("memory.peak") and mode == "r+":
            opened.append(_KernelPeakFile(group))
            return opened[-1]
        return open(path, mode, *args, **kwargs)

    monkeypatch.setattr(sandbox, "open", kernel_open, raising=False)
    (tmp_path / "memory.peak").write_text(f"{group['peak']}\n")      # since the group's creation
    (tmp_path / "memory.current").write_text(f"{group['current']}\n")
    cgroup = MemoryCgroup(tmp_path, 2)
    cgroup.reset_peak()
    baseline = cgroup.usage()
    group["current"] = group["peak"] = 0     # what other readers see no longer matters
    opened[0].local = baseline + (12 << 20)  # the tree grew by 12 MiB after the reset
    assert cgroup.peak() - baseline == 12 << 20
    cgroup._peak_file = None                 # as when remove() closes it


def test_v2_without_a_per_file_reset_counts_from_the_groups_creation(tmp_path, monkeypatch):
    """Linux 5.19 to 6.11: memory.peak cannot be written; the peak since creation is never below the truth."""
    def read_only(path, mode="r", *args, **kwargs):
        if str(path).endswith("memory.peak") and mode != "r":
            raise PermissionError(13, "Permission denied")
        return open(path, mode, *args, **kwargs)

    monkeypatch.setattr(sandbox, "open", read_only, raising=False)
    (tmp_path / "memory.peak").write_text(f"{40 << 20}\n")
    (tmp_path / "memory.current").write_text(f"{30 << 20}\n")
    cgroup = MemoryCgroup(tmp_path, 2)
    cgroup.reset_peak()
    assert cgroup.peak() - cgroup.usage() == 10 << 20


def test_no_readable_peak_is_no_figure(tmp_path):
    """Linux before 5.19 has no memory.peak in cgroup v2; no group at all: nothing is guessed."""
    (tmp_path / "memory.current").write_text(f"{30 << 20}\n")
    worker = Worker()
    worker.cgroup, worker.counts_memory = MemoryCgroup(tmp_path, 2), True
    with pytest.raises(MemoryUnmeasurable):
        worker.peak_memory()
    worker.cgroup, worker.counts_memory = None, False
    with pytest.raises(MemoryUnmeasurable, match="not measured on this machine"):
        worker.peak_memory()
    with pytest.raises(MemoryUnmeasurable):
        worker.measure_baseline([], {})    # before any request: the worker was never started


# --------------------------------------------------------------------------- out of the learner's reach
def test_a_count_is_trusted_only_where_learner_code_cannot_reach_it(tmp_path, monkeypatch):
    """Inside the sandbox, v2 for any grader (a reset is per open file), v1 only for a root grader (its
    sandbox then runs as another uid than the owner of the group's files, and v1's reset is global);
    never outside the sandbox, where the learner's code sees /sys as the grader does."""
    v1, v2 = MemoryCgroup(tmp_path, 1), MemoryCgroup(tmp_path, 2)
    assert sandbox.count_out_of_reach(v2, True) and not sandbox.count_out_of_reach(v2, False)
    assert not sandbox.count_out_of_reach(None, True)
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 0)
    assert sandbox.count_out_of_reach(v1, True) and not sandbox.count_out_of_reach(v1, False)
    monkeypatch.setattr(sandbox.os, "geteuid", lambda: 1000)
    assert not sandbox.count_out_of_reach(v1, True) and sandbox.count_out_of_reach(v2, True)


def test_without_the_sandbox_memory_is_not_measured(monkeypatch):
    """A memory cgroup the learner's code could write to (it runs as the grader, with /sys) counts nothing."""
    monkeypatch.setattr(sandbox, "sandbox_available", lambda: False)
    unsandboxed = Limits(require_sandbox=False)
    with Worker(unsandboxed) as worker:
        assert worker.cgroup is not None and not worker.counts_memory
        with pytest.raises(MemoryUnmeasurable):
            worker.measure_baseline([], {})
    report = _grade(ONLINE, _reference(ONLINE), unsandboxed)
    assert {t.grade_id for t in report.tests if t.kind is Kind.NOT_MEASURED} == MEMORY_TESTS
    assert classrun.memory_method(unsandboxed) == "not measured"


# --------------------------------------------------------------------------- without a cgroup
def test_without_a_cgroup_memory_tests_are_not_measured(no_cgroup):
    """The reference and every adversarial submission of exercise 09: each memory test is "not
    measured", 0 points, one line saying why; the other tests are graded as ever; the self-check's
    text report marks them apart and its headline counts their points."""
    reference = _grade(ONLINE, _reference(ONLINE))
    kinds = {t.grade_id: t.kind for t in reference.tests}
    assert kinds == {grade_id: Kind.NOT_MEASURED if grade_id in MEMORY_TESTS else Kind.PASSED for grade_id in kinds}
    unmeasured = [t for t in reference.tests if t.kind is Kind.NOT_MEASURED]
    assert all(t.score == 0 and "not measured on this machine" in t.message and "\n" not in t.message
               and "cgroup" in t.message for t in unmeasured), unmeasured
    assert reference.score == reference.max_score - sum(t.max_score for t in unmeasured)
    for path in ATTACKS:
        report = _grade(ONLINE, helpers.submission(ONLINE, path.read_text()))
        memory = next(t for t in report.tests if t.grade_id == "test_online_softmax_memory")
        assert memory.kind is Kind.NOT_MEASURED and memory.score == 0, (path.stem, memory)
        assert report.score <= reference.score, path.stem

    lines = selfcheck.report_text(helpers.exercise(ONLINE), reference, "online_softmax.ipynb").splitlines()
    assert len(lines) == 1 + len(reference.tests) + 1, lines   # the score, the tests, the language
    assert lines[0].endswith(f"{reference.score:g} / {reference.max_score:g} points (+1 written answer, graded by "
                             f"your instructor); 3 point(s) could not be measured on this machine"), lines[0]
    text = "\n".join(lines)
    assert re.search(r"^  NOT MEASURED  test_online_softmax_memory +0/2  not measured on this machine", text, re.M), text
    assert re.search(r"^  PASS {10}test_online_softmax_random +3/3$", text, re.M), text


@pytest.mark.parametrize("assignment", [exercise.assignment for exercise in helpers.EXERCISES])
def test_without_a_cgroup_no_reference_fails(no_cgroup, assignment):
    """An exercise without a memory bound loses nothing; one with it is "not measured", never failed."""
    report = _grade(assignment, _reference(assignment), Limits())
    assert {t.kind for t in report.tests} <= {Kind.PASSED, Kind.NOT_MEASURED}, [
        (t.grade_id, t.message) for t in report.tests if not t.passed]
    assert (Kind.NOT_MEASURED in {t.kind for t in report.tests}) == (assignment == ONLINE)


def test_without_a_cgroup_the_class_run_refuses(no_cgroup, tmp_path, monkeypatch):
    """One line, non-zero exit, nothing graded: no journal, no student in the gradebook."""
    monkeypatch.delenv(courses.GRADEBOOK_URL_VARIABLE, raising=False)
    root = helpers.course(tmp_path)
    code = (helpers.SUBMISSIONS / ONLINE / "correct" / "log_sum_exp.py").read_text()
    helpers.write(helpers.submission(ONLINE, code), helpers.submitted(root, "alice", "online_softmax.ipynb", ONLINE))
    assert classrun.memory_method(Limits()) == "not measured"
    with pytest.raises(SystemExit) as stopped:
        cli.main(["grade", ONLINE, "--no-progress", "--course-root", str(root)])
    message = stopped.value.code
    assert isinstance(message, str) and "\n" not in message, message     # a string: exit status 1
    assert message.startswith(f"autograder: {ONLINE} bounds memory (test_online_softmax_visible, "
                              "test_online_softmax_memory) and the grader cannot measure memory"), message
    assert "nothing was graded" in message and "cgroup v1" in message
    config = courses.load_config(root)
    assert not classrun.journal_path(courses.from_config(config), ONLINE).exists()
    from nbgrader.api import Gradebook
    with Gradebook(helpers.gradebook_url(root)) as gradebook:
        assert gradebook.students == [] and gradebook.assignments == []


def test_without_a_cgroup_nbgrader_autograde_records_no_score(no_cgroup, tmp_path, monkeypatch):
    """``nbgrader autograde`` run by hand (the course's preprocessor) fails the submission instead."""
    from autograder.preprocessors import SandboxedExecute
    monkeypatch.delenv(courses.GRADEBOOK_URL_VARIABLE, raising=False)
    root = helpers.course(tmp_path)
    classrun.create_schema(courses.from_config(courses.load_config(root)))
    code = (helpers.SUBMISSIONS / ONLINE / "correct" / "log_sum_exp.py").read_text()
    step = SandboxedExecute(config=courses.load_config(root))
    resources = {"nbgrader": {"assignment": ONLINE, "notebook": "online_softmax", "student": "alice"}}
    with pytest.raises(notebooks.NotebookError, match="memory cannot be measured on this machine"):
        step.preprocess(helpers.submission(ONLINE, code), resources)
