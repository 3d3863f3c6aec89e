"""The worker that runs learner code: separate process, sandbox, limits, plain data only."""
import os
import time

import numpy as np
import pytest

import helpers
from autograder import sandbox
from autograder.sandbox import Limits, RemoteError, Worker, WorkerError


def test_bubblewrap_is_installed():
    """The test command installs it; without it the class run refuses to grade."""
    assert sandbox.sandbox_available()


def test_worker_sees_no_repository_and_no_network():
    with Worker() as worker:
        worker.run_cell(0, "import os, socket\n"
                           "def probe():\n"
                           f"    seen = [os.path.exists(p) for p in ({str(helpers.REPO / 'README.md')!r}, {str(helpers.REPO / 'solutions')!r})]\n"
                           "    try:\n"
                           "        socket.create_connection(('127.0.0.1', 22), timeout=1); net = 1\n"
                           "    except OSError:\n"
                           "        net = 0\n"
                           "    return seen + [net, os.getuid() == 0]")
        assert list(worker.call("probe", [], {})) == [0, 0, 0, 0]


def test_answers_cross_as_plain_arrays_and_lies_are_rejected():
    with Worker() as worker:
        worker.run_cell(0, "import numpy as np\n"
                           "class Liar(np.ndarray):\n"
                           "    def __eq__(self, other): return True\n"
                           "def f(x): return (x * 2).view(Liar)\n"
                           "def g(x): return {'not': 'an array'}\n")
        value = worker.call("f", [np.arange(3.0)], {})
        assert type(value) is np.ndarray and list(value) == [0.0, 2.0, 4.0]
        with pytest.raises(RemoteError, match="not a numeric array"):
            worker.call("g", [np.arange(3.0)], {})


def test_endless_loop_is_stopped_at_the_wall_clock_limit():
    worker = Worker(Limits(call_seconds=1.0)).start()
    worker.run_cell(0, "def spin():\n    while True:\n        try:\n            pass\n        except BaseException:\n            pass")
    start = time.monotonic()
    with pytest.raises(WorkerError, match="did not finish within 1 s"):
        worker.call("spin", [], {})
    assert time.monotonic() - start < 5 and not worker.alive


def test_memory_hog_fails_alone():
    with Worker() as worker:
        worker.run_cell(0, "def hog():\n    return bytearray(8 << 30)")
        with pytest.raises((RemoteError, WorkerError), match="MemoryError|memory"):
            worker.call("hog", [], {})


def test_processes_left_behind_are_killed():
    marker = f"attention-sleeper-{os.getpid()}"
    with Worker() as worker:
        error, _ = worker.run_cell(0, "import subprocess, sys, time\n"
                                      "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)', "
                                      f"'{marker}'], start_new_session=True)\n"
                                      "time.sleep(0.5)")
        assert error is None
        assert [p for p in os.listdir("/proc") if p.isdigit() and marker in _cmdline(p)], "the sleeper never started"
    time.sleep(0.5)
    alive = [p for p in os.listdir("/proc") if p.isdigit() and marker in _cmdline(p)]
    assert alive == []


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def test_fork_bomb_hits_the_process_limit():
    with Worker(Limits(max_processes=16)) as worker:
        error, output = worker.run_cell(0, "import os\nn = 0\ntry:\n    for _ in range(200):\n"
                                           "        if os.fork() == 0:\n            import time; time.sleep(30); os._exit(0)\n"
                                           "        n += 1\nexcept OSError:\n    print('stopped at', n)")
        assert "stopped at" in output


def test_inputs_changed_in_place_are_named_never_copied_back():
    x = np.arange(4.0)
    with Worker() as worker:
        worker.run_cell(0, "def f(x, y):\n    x[:] = 0\n    return y")
        assert list(worker.call("f", [x, np.ones(2)], {})) == [1.0, 1.0]
        assert worker.last_changed == [0]
    assert list(x) == [0.0, 1.0, 2.0, 3.0]


def test_peak_memory_is_counted_by_the_kernel_for_the_whole_tree():
    """What the learner's process says about itself does not matter; a child's memory counts."""
    with Worker() as worker:
        assert worker.counts_memory, "no memory cgroup out of the learner's reach: memory tests are not measured here"
        worker.measure_baseline([np.zeros(10)], {})
        worker.run_cell(0, "import os, tracemalloc\n"
                           "tracemalloc.get_traced_memory = lambda: (0, 0)\n"
                           "def f():\n"
                           "    if os.fork() == 0:\n"
                           "        block = bytearray(96 << 20)\n"
                           "        block[::4096] = b'x' * len(block[::4096])\n"
                           "        os._exit(0)\n"
                           "    os.wait()\n"
                           "    return 1.0")
        worker.call("f", [], {})
        assert worker.peak_memory() - worker.baseline >= 96 << 20


# A learner cell that writes a forged "cell done" reply to its own reply pipe (the worker's second
# argument), then sleeps for ever, ignoring signals and swallowing every exception: the grader
# reads the forgery and sends the next request, which the worker never reads.
FORGED_REPLY_THEN_SLEEP = (
    "import json, os, signal, struct, sys, time\n"
    "for number in (signal.SIGALRM, signal.SIGINT, signal.SIGTERM):\n"
    "    signal.signal(number, signal.SIG_IGN)\n"
    "header = json.dumps({'__dict__': {'ok': True, 'output': ''}}).encode()   # as worker.send encodes a dict\n"
    "os.write(int(sys.argv[2]), struct.pack('!II', len(header), 0) + header)\n"
    "while True:\n"
    "    try:\n"
    "        time.sleep(3600)\n"
    "    except BaseException:\n"
    "        pass\n")


def test_a_worker_that_stops_reading_its_requests_is_killed_at_the_deadline():
    """Writing a request is bounded by the request's deadline, as reading its reply is: a next cell
    larger than the pipe's buffer (~200 KB) must not block the grader for ever."""
    import threading

    import nbformat

    from autograder import checks, engine

    code = (helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py").read_text()
    notebook = helpers.submission("01_softmax", code)
    position = next(i for i, c in enumerate(notebook.cells) if c.metadata.get("nbgrader", {}).get("solution"))
    big = "# " + "x" * 98 + "\n"
    notebook.cells.insert(position + 1, nbformat.v4.new_code_cell(FORGED_REPLY_THEN_SLEEP))
    notebook.cells.insert(position + 2, nbformat.v4.new_code_cell(big * 2000))   # 200 KB of source
    limits = Limits(cell_seconds=2, call_seconds=2, total_seconds=5)
    outcome = {}

    def grade():
        outcome["report"] = engine.run_tests(helpers.exercise("01_softmax"), notebook, limits,
                                             draw=checks.self_check_draw())

    start = time.monotonic()
    grading = threading.Thread(target=grade, daemon=True)   # a hang fails the test instead of hanging it
    grading.start()
    grading.join(limits.total_seconds + 30)
    elapsed = time.monotonic() - start
    assert not grading.is_alive(), "grading hung: writing a request to a worker that never reads it never returned"
    assert elapsed < limits.total_seconds + 5, elapsed
    report = outcome["report"]
    forged = next(run for run in report.cells if run.first_line.startswith("import json, os, signal"))
    assert forged.error is None, forged   # the grader took the forgery for the cell's reply
    assert report.tests and all(not t.passed and t.score == 0 for t in report.tests), report.tests
    assert any(t.kind.value in ("timeout", "crashed") for t in report.tests), report.tests


# ------------------------------------------------------------------ nothing of the instructor's side to read
# A walk of the whole file system reads ~2 GB: limits for it, not for a notebook.
WALK_LIMITS = Limits(require_sandbox=True, cell_seconds=400, total_seconds=500, cpu_seconds=450)


def test_learner_code_reads_no_solution_model_answer_secret_or_gradebook(tmp_path):
    """Issue 24, from the repository's editable install: the file system the worker sees holds no
    source notebook's solution, no model answer, no library module, not the course's secret nor its
    gradebook.  A sentinel placed in the bound venv is found: the walk reads what the sandbox binds."""
    import secrets
    import sysconfig
    from pathlib import Path

    import filesystem_walker as walker
    from autograder import engine
    from autograder.course import course_at

    root = helpers.course(tmp_path)
    walker.secret_and_gradebook(root)
    search = {**walker.needles(root), "sentinel": secrets.token_hex(24)}
    sentinel = Path(sysconfig.get_paths()["purelib"]) / f"attention-walker-sentinel-{os.getpid()}.txt"
    sentinel.write_text(search["sentinel"])
    try:
        report = engine.run_tests(course_at(root).exercise("01_softmax"), walker.submission(search), WALK_LIMITS,
                                  draw=helpers.TEST_DRAW)
    finally:
        sentinel.unlink()
    assert walker.found((run.first_line, run.output) for run in report.cells) == {"sentinel"}
    assert report.score == report.max_score, report.tests


def test_a_course_inside_a_bound_folder_is_covered_and_a_venv_inside_it_kept(tmp_path):
    """A course under a folder the sandbox binds (/usr, a venv), with the worker's venv made inside the
    course: bwrap shows the venv and an empty, read-only course folder, never the course's files."""
    import subprocess

    outer = tmp_path / "outer"
    course, venv = outer / "course", outer / "course" / "venv"
    (course / "solutions").mkdir(parents=True)
    (course / "solutions" / "source.txt").write_text("the instructor's solution")
    (venv / "lib").mkdir(parents=True)
    (venv / "lib" / "python.txt").write_text("the worker's Python")
    (outer / "beside.txt").write_text("bound, not hidden")
    hide = sandbox._hide([course], ["/usr", str(outer)], [venv])
    command = ["bwrap", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
               "--symlink", "usr/lib64", "/lib64", "--proc", "/proc", "--dev", "/dev",
               "--ro-bind", str(outer), str(outer), *hide, "--", "/bin/sh", "-c",
               f"find {outer} -type f | sort; touch {course}/planted 2>/dev/null && echo WRITABLE || echo READ-ONLY"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [str(outer / "beside.txt"), str(venv / "lib" / "python.txt"), "READ-ONLY"]
    with pytest.raises(WorkerError, match="is also the Python installation"):   # `python -m venv .` in a course
        sandbox._hide([venv], ["/usr", str(outer)], [venv])


def test_the_sandbox_never_runs_as_an_account_of_this_machine(monkeypatch):
    """Red team, issue 24: 60000 + pid % 5000 could be a real account's uid, whose files the learner's
    code would then own (an exchange under /usr/local/share, say)."""
    import pwd

    from autograder import sandbox
    taken = {60000 + 4242, 65000 + 4242}
    real = pwd.getpwuid

    def getpwuid(uid):
        if uid in taken:
            return real(0)
        return real(uid)
    monkeypatch.setattr(pwd, "getpwuid", getpwuid)
    assert sandbox.sandbox_uid(4242) == 70000 + 4242
    assert sandbox.sandbox_uid(4243) == 60000 + 4243


def test_a_relative_interpreter_path_still_runs_the_worker(tmp_path, monkeypatch):
    """Red team, issue 24: `../venv/bin/python -m autograder check` failed every test with exit 127."""
    import os
    import sys

    from autograder.sandbox import Limits, Worker
    monkeypatch.chdir(os.path.dirname(sys.executable))
    monkeypatch.setattr(sys, "executable", os.path.join("..", "bin", "..", "bin", os.path.basename(sys.executable)))
    with Worker(Limits(require_sandbox=True)) as worker:
        worker.run_cell(0, "import numpy as np\ndef answer():\n    return np.array([6.0 * 7])")
        assert list(worker.call("answer", [], {})) == [42.0]
