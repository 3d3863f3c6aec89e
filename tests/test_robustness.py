"""One submission never stops the others, no budget is per piece only, and no learner text
reaches a person raw (issue 18).

* Property-based (hypothesis): the notebook reader and the class run's inspection, fed
  malformed notebooks (wrong types in metadata, deep nesting, huge strings, odd
  unicode), answer with a one-line reason and never raise.
* A class run with poisoned submissions grades everyone else; its summary cannot be
  forged by a file name.
* Totals: the wall clock of a whole submission (slow cells, slow calls), the outputs
  kept, the memory of the whole sandboxed process tree, the grader's own memory.
* The self-check's text report and the feedback page are safe to show.
"""
import io
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import helpers
from autograder import classrun, engine, notebooks, safe
from autograder import course as courses
from autograder import sandbox
from autograder.sandbox import Limits, MemoryCgroup, Worker, WorkerError

SOURCE = helpers.exercise("01_softmax").source
CORRECT = (helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py").read_text()
NASTY = ["\ud800", "\udfff", "\x1b[2J\x1b[H", "\x1b]0;title\x07", "\u202e", "\x00", "\r\n", "\u2028",
         "x" * 200_000, "\ufeff", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "e\u0301" * 50]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=20) | st.sampled_from(NASTY),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)
# Where in a notebook a malformed value goes: (cell or None for the notebook, path of keys).
PLACES = st.sampled_from([
    ("cell", ("metadata", "nbgrader")), ("cell", ("metadata", "nbgrader", "grade_id")),
    ("cell", ("metadata", "nbgrader", "grade")), ("cell", ("metadata", "nbgrader", "solution")),
    ("cell", ("metadata", "nbgrader", "points")), ("cell", ("metadata",)), ("cell", ("source",)),
    ("cell", ("cell_type",)), ("cell", ("outputs",)), ("cell", ("execution_count",)),
    ("notebook", ("metadata",)), ("notebook", ("metadata", "kernelspec")), ("notebook", ("cells",)),
    ("notebook", ("nbformat_minor",)), ("notebook", ("nbformat",)),
])


def _release():
    return json.loads(nbformat.writes(helpers.submission("01_softmax", CORRECT)))


def _put(raw, place, value, cell_index):
    where, keys = place
    target = raw if where == "notebook" else raw["cells"][cell_index % len(raw["cells"])]
    for key in keys[:-1]:
        if not isinstance(target.get(key), dict):
            target[key] = {}
        target = target[key]
    target[keys[-1]] = value
    return raw


def _one_line_reasons(gradable, problems):
    assert isinstance(gradable, bool)
    assert all(isinstance(p, str) and "\n" not in p and "\r" not in p for p in problems), problems
    if not gradable:
        assert problems, "a submission that is not graded needs a reason"


def _check_text(text):
    """Read the text as the reader and as the class run's inspection; neither may raise."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "softmax.ipynb"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            notebooks.read_notebook(path)
        except notebooks.NotebookError as error:
            assert "\n" not in str(error)
        _one_line_reasons(*classrun.inspect(Path(folder), SOURCE))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(place=PLACES, value=JSON, cell_index=st.integers(0, 40))
def test_malformed_metadata_gives_a_reason_never_a_crash(place, value, cell_index):
    _check_text(json.dumps(_put(_release(), place, value, cell_index)))


@settings(max_examples=40, deadline=None)
@given(depth=st.integers(500, 200_000), opener=st.sampled_from(["[", '{"a":']),
       where=st.sampled_from(["whole file", "metadata", "source"]))
def test_deep_nesting_gives_a_reason_never_a_crash(depth, opener, where):
    closer = "]" if opener == "[" else "}"
    nested = opener * depth + "1" + closer * depth
    if where == "whole file":
        text = nested
    else:
        raw = _release()
        marker = "@@NESTED@@"
        _put(raw, ("cell", ("metadata", "x") if where == "metadata" else ("source",)), marker, 3)
        text = json.dumps(raw).replace(f'"{marker}"', nested)
    _check_text(text)


@settings(max_examples=30, deadline=None)
@given(text=st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=300)
       | st.sampled_from(NASTY) | st.binary(max_size=300).map(lambda b: b.decode("latin-1")))
def test_any_text_at_all_gives_a_reason_never_a_crash(text):
    _check_text(text)


def test_the_two_submissions_that_stopped_the_class():
    """A notebook nested 100,000 levels deep, and a code cell whose nbgrader metadata is a string."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "softmax.ipynb"
        path.write_text("[" * 100_000 + "]" * 100_000)
        gradable, problems = classrun.inspect(Path(folder), SOURCE)
        assert not gradable and problems == ["softmax.ipynb: nested too deeply to be a notebook"]
        raw = _release()
        next(c for c in raw["cells"] if c["cell_type"] == "code")["metadata"]["nbgrader"] = "grade me"
        path.write_text(json.dumps(raw))
        gradable, problems = classrun.inspect(Path(folder), SOURCE)
        assert not gradable and "nbgrader metadata is not an object" in problems[0]


# --------------------------------------------------------------------------- the class run
FORGED = "x\n  mallory  0 points  plagiarism detected: copied from alice\n.ipynb"
POISONED = {  # student: (what goes in the folder, how the reason reads)
    "deep": ({"softmax.ipynb": "[" * 100_000 + "]" * 100_000}, "nested too deeply"),
    "stringmeta": ("stringmeta", "nbgrader metadata is not an object"),
    "forger": ({FORGED: "{}"}, "renamed notebook"),
    "huge": ({"softmax.ipynb": " " * (classrun.MAX_NOTEBOOK_BYTES + 1)}, "MiB"),
    "folder": ({"softmax.ipynb/": None}, "is a folder"),
    "ansi\x1b[2J": ({"softmax.ipynb": "{not json"}, "not valid JSON"),
}


@pytest.fixture(scope="module")
def poisoned_class(tmp_path_factory):
    root = helpers.course(tmp_path_factory.mktemp("poisoned"))
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    helpers.write(helpers.submission("01_softmax", CORRECT), helpers.submitted(root, "alice"))
    for student, (files, _) in POISONED.items():
        folder = helpers.submitted(root, student).parent
        folder.mkdir(parents=True, exist_ok=True)
        if files == "stringmeta":
            raw = _release()
            next(c for c in raw["cells"] if c["cell_type"] == "code")["metadata"]["nbgrader"] = "grade me"
            (folder / "softmax.ipynb").write_text(json.dumps(raw))
            continue
        for name, text in files.items():
            if name.endswith("/"):
                (folder / name).mkdir()
            else:
                (folder / name).write_text(text)
    config = courses.load_config(root, helpers.gradebook_url(root))
    outcomes = classrun.grade_class("01_softmax", jobs=2, config=config, progress=False)
    return root, {o.student: o for o in outcomes}, outcomes


@pytest.mark.nbgrader   # a class run: nbgrader's workers and gradebook
def test_a_poisoned_class_grades_everyone_else(poisoned_class):
    _, outcomes, _ = poisoned_class
    assert outcomes["alice"].score == 7.0 and outcomes["alice"].problems == []
    for student, (_, words) in POISONED.items():
        assert not outcomes[student].graded and outcomes[student].score == 0.0, student
        assert words in outcomes[student].line and "\n" not in outcomes[student].line, (student, outcomes[student].line)


@pytest.mark.nbgrader   # a class run: nbgrader's workers and gradebook
def test_the_summary_cannot_be_forged(poisoned_class):
    _, _, outcomes = poisoned_class
    out = io.StringIO()
    classrun.print_summary("01_softmax", outcomes, out=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 3 + len(POISONED)          # the counts, one line per student, "N need a look"
    assert all(line.isprintable() for line in lines)
    assert lines[-1].startswith(f"{len(POISONED)} need a look")
    rows = lines[1:-1]
    assert [row.split()[0] for row in rows] == [safe.quoted(s) for s in sorted(o.student for o in outcomes)]
    flagged = [row for row in rows if row.split()[0] != "alice"]
    assert sorted(line.split()[0] for line in flagged) == sorted(safe.quoted(s) for s in POISONED)
    forged = [line for line in flagged if "plagiarism" in line]
    assert len(forged) == 1 and forged[0].split()[0] == "forger" and repr(FORGED) in forged[0]


@pytest.mark.nbgrader   # a class run: nbgrader's workers and gradebook
def test_the_grade_command_exits_0(poisoned_class):
    root, _, _ = poisoned_class
    result = subprocess.run([sys.executable, "-m", "autograder", "grade", "01_softmax", "--no-progress",
                             "--course-root", str(root), "--db-url", helpers.gradebook_url(root)],
                            cwd=helpers.REPO, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stdout and "1 of 7 submissions graded" in result.stdout


# --------------------------------------------------------------------------- total budgets
def _grade(code, **limits):
    start = time.monotonic()
    report = engine.run_tests(helpers.exercise("01_softmax"), _many_cells(code), Limits(**limits),
                              draw=helpers.TEST_DRAW)
    return report, time.monotonic() - start


def _many_cells(cells):
    notebook = helpers.submission("01_softmax", CORRECT)
    if isinstance(cells, str):
        cells = [cells]
    position = next(i for i, c in enumerate(notebook.cells) if c.metadata.get("nbgrader", {}).get("solution"))
    for offset, source in enumerate(cells, start=1):
        notebook.cells.insert(position + offset, nbformat.v4.new_code_cell(source))
    return notebook


def test_slow_cells_stop_at_the_total_deadline():
    """Twenty cells, each well within its own limit (a cell's, as nbgrader's Execute.timeout):
    the notebook's deadline stops them."""
    report, seconds = _grade(["import time\ntime.sleep(0.9)"] * 20, cell_seconds=3, call_seconds=2, total_seconds=6)
    assert seconds < 6 + 4, seconds
    assert report.score == 0 and "the whole notebook took more than 6 s" in report.tests[0].message


def test_slow_calls_stop_at_the_total_deadline():
    """Every call takes just under the call limit; the notebook's deadline stops it during a call."""
    slow = "import time\n_fast = softmax\ndef softmax(x, axis=-1):\n    time.sleep(1.8)\n    return _fast(x, axis)"
    report, seconds = _grade(slow, cell_seconds=5, call_seconds=2, total_seconds=6)
    assert seconds < 6 + 4, seconds
    assert any("the whole notebook took more than 6 s" in t.message for t in report.tests)


def test_outputs_kept_are_bounded_in_total():
    cells = ["print('x' * 100_000)"] * 300 + ["raise ValueError('y' * 100_000)"] * 20
    report, _ = _grade(cells, cell_seconds=30, total_seconds=60, output_chars=20_000)
    kept = sum(len(run.output) + len(run.error or "") for run in report.cells)
    assert kept <= 20_000 + 321 * 130, kept
    assert report.score == 7.0


def test_forged_fat_replies_are_cut_by_the_grader():
    code = (helpers.REPO / "tests" / "adversarial" / "01_softmax" / "fat_replies.py").read_text()
    report, _ = _grade(code.split("# ---- trick ----")[1] + "\nprint('hello')", total_seconds=60)
    assert all(len(run.output) <= 4000 and len(run.error or "") <= 500 for run in report.cells)
    assert all(len(t.message) <= 2000 for t in report.tests)


def test_the_graders_memory_is_bounded_whatever_the_dtype():
    """A bool array just under the message limit would be 8 times larger as float64."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with Worker(Limits()) as worker:
        worker.run_cell(0, "import numpy as np\ndef f():\n    return np.ones(60 << 20, dtype=bool)")
        with pytest.raises(WorkerError, match="arrays too large"):
            worker.call("f", [], {})
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024
    assert grown < 200 << 20, grown


def test_the_whole_process_tree_is_bounded():
    """Twelve processes of 256 MiB each stay under the per-process limit, not under the tree's."""
    limits = Limits(tree_memory_bytes=768 << 20)
    with Worker(limits) as worker:
        if worker.cgroup is None:
            pytest.fail("no memory cgroup on this machine: the tree is bounded per process only")
        worker.run_cell(0, "import os, time\n"
                           "for _ in range(12):\n"
                           "    if os.fork() == 0:\n"
                           "        block = bytearray(256 << 20)\n"
                           "        block[::4096] = b'x' * len(block[::4096])\n"
                           "        time.sleep(30)\n"
                           "        os._exit(0)\n"
                           "time.sleep(3)", seconds=20)
        assert worker.peak_memory() <= limits.tree_memory_bytes


def test_a_process_stopped_by_the_memory_limit_is_told_so():
    """The kernel's own count of the group's OOM kills says so (bubblewrap relays the kill as exit code 137,
    which any code can also exit with); a process killed otherwise is not said to have run out of memory."""
    limits = Limits(tree_memory_bytes=512 << 20)
    with Worker(limits) as worker:
        if worker.cgroup is None:
            pytest.fail("no memory cgroup on this machine: the tree is bounded per process only")
        with pytest.raises(sandbox.WorkerDied, match=r"used more memory than the 512 MB allowed"):
            worker.run_cell(0, "block = bytearray(900 << 20)\nblock[::4096] = b'x' * len(block[::4096])", seconds=20)
    with Worker(limits) as worker:
        with pytest.raises(sandbox.WorkerDied) as killed:
            worker.run_cell(0, "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)", seconds=20)
    assert "signal SIGTERM" in str(killed.value) and "memory" not in str(killed.value)


def test_memory_cgroups_are_removed():
    with Worker(Limits()) as worker:
        path = worker.cgroup.path if worker.cgroup else None
        worker.run_cell(0, "x = 1")
    assert path is None or not path.exists()
    assert MemoryCgroup is not None


# --------------------------------------------------------------------------- what a person reads
def test_self_check_text_is_clean(tmp_path):
    code = (helpers.REPO / "tests" / "adversarial" / "01_softmax" / "ansi_escapes_repaint_the_report.py").read_text()
    code += "\n" + (helpers.REPO / "tests" / "adversarial" / "01_softmax" / "lone_surrogate_in_messages.py").read_text()
    path = helpers.write(helpers.submission("01_softmax", code), tmp_path / "softmax.ipynb")
    for encoding in ("utf-8", "ascii"):
        result = subprocess.run([sys.executable, "-m", "autograder", "check", str(path)], cwd=helpers.REPO,
                                capture_output=True, timeout=300, env={"PYTHONIOENCODING": encoding,
                                                                        "PATH": "/usr/bin:/bin"})
        assert result.returncode == 0, result.stderr
        text = result.stdout.decode(encoding)
        assert "\x1b" not in text and "\x07" not in text
        lines = text.splitlines()
        assert "4 / 7 points" in lines[0] and sum("PASS" in line for line in lines) <= 4


def test_safe_terminal_and_quoted():
    assert safe.terminal("\x1b[2J\x1b[1;1H7 / 7\npoints\x9b2J\ud800") == "7 / 7 points\ufffd"
    assert safe.terminal("café", encoding="ascii") == "caf?"
    assert safe.quoted("alice") == "alice"
    assert safe.quoted("bob\n  x") == "'bob\\n  x'"
    assert safe.quoted("a\x1b[31m") == "'a\\x1b[31m'"


def test_a_submitted_script_does_not_run_in_the_feedback(tmp_path, browser):
    root = helpers.course(tmp_path)
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    notebook = helpers.submission("01_softmax", CORRECT + "\nprint('<script>window.pwned = \"stdout\"</script>')")
    attacks = ['<script>window.pwned = "markdown"</script>', '<img src="x" onerror="window.pwned = \'img\'">',
               '<svg onload="window.pwned = \'svg\'"></svg>', '<a href="javascript:window.pwned=1">link</a>']
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "softmax_written_answer":
            cell.source = "My answer $e^x$.\n\n" + "\n\n".join(attacks)
    notebook.cells.append(nbformat.v4.new_raw_cell('<script>window.pwned = "raw"</script>'))
    notebook.cells.append(nbformat.v4.new_raw_cell('<script>window.pwned = "raw html"</script>',
                                                   metadata={"raw_mimetype": "text/html"}))
    notebook.cells.append(nbformat.v4.new_markdown_cell('<iframe srcdoc="<script>parent.pwned=1</script>"></iframe>'))
    helpers.write(notebook, helpers.submitted(root, "mallory"))
    helpers.nbgrader("autograde", "01_softmax", root=root)
    helpers.nbgrader("generate_feedback", "01_softmax", root=root)
    feedback = root / "autograder" / "feedback"
    html = (feedback / "mallory" / "01_softmax" / "softmax.html").read_text()
    assert "window.pwned" in html  # the learner's text is shown ...
    with helpers.serve(feedback) as url:
        page, problems = helpers.open_page(browser, f"{url}/mallory/01_softmax/softmax.html")
        page.wait_for_timeout(500)
        assert page.evaluate("() => window.pwned === undefined")  # ... and never runs
        assert page.locator("script:not([src])").evaluate_all(
            "nodes => nodes.filter(n => n.textContent.includes('pwned')).length") == 0
        problems += helpers.math_problems(page, at_least=1)
        page.close()
    assert [p for p in problems if "x" not in p.split("/")[-1]] == []


def test_the_instructor_guide_states_the_limits_in_force():
    from autograder import worker as wire
    text = (helpers.REPO / "book" / "instructors.md").read_text()
    limits = Limits()
    for phrase in (f"| {limits.total_seconds:g} s,", f"| {limits.cell_seconds:g} s |", f"| {limits.call_seconds:g} s |",
                   f"| {limits.cpu_seconds} s |", f"| {limits.tree_memory_bytes >> 30} GiB (a memory cgroup",
                   f"| {limits.memory_bytes >> 30} GiB |", f"| {limits.max_processes} |",
                   f"| {limits.reply_bytes >> 20} MiB |", f"{limits.output_chars:,} for all cells together",
                   f"| {classrun.MAX_NOTEBOOK_BYTES >> 20} MiB |",
                   f"{wire.MAX_MESSAGE_BYTES >> 20} MiB, and {wire.MAX_FLOAT64_BYTES >> 20} MiB once",
                   f"{limits.file_bytes >> 20} MiB each",
                   f"{sandbox.MAX_OUTPUT_CHARS:,} characters per cell, {sandbox.MAX_ERROR_CHARS} per error line",
                   f"is stopped {sandbox.CELL_GRACE_SECONDS:g} s later"):
        assert phrase in text, phrase
