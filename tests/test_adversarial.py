"""Adversarial submissions: none earns a point it would not earn without its trick.

Each file in tests/adversarial/NN_name/ is an honest (wrong) implementation,
a line `# ---- trick ----`, then an attack on the grader.  The engine grades the
whole file and the honest part alone; the attack may never score more.  Side
effects (processes left behind, files written) are checked on the host.
"""
import json
import os
import subprocess
import sys
import time

import pytest

import helpers
from autograder import engine, notebooks
from autograder.sandbox import Limits

ATTACKS = sorted((helpers.REPO / "tests" / "adversarial").glob("*/*.py"))
# One worker runs them all, in order: the last test checks what they left behind.
pytestmark = pytest.mark.xdist_group("adversarial")
MARKER = "# ---- trick ----"
# Short limits keep the endless loops short; the mechanism is the one used in class runs.
FAST = Limits(cell_seconds=3, call_seconds=1.5, total_seconds=10, cpu_seconds=30, require_sandbox=True)
TRACES = "attention-adversary"


def _source(assignment):
    return helpers.exercise(assignment)


def grade(assignment, code):
    return engine.run_tests(_source(assignment), helpers.submission(assignment, code), FAST,
                            draw=helpers.TEST_DRAW)


@pytest.fixture(scope="module")
def honest_scores():
    return {}


@pytest.mark.parametrize("path", ATTACKS, ids=[f"{p.parent.name}/{p.stem}" for p in ATTACKS])
def test_attack_earns_nothing_extra(path, honest_scores):
    assignment, code = path.parent.name, path.read_text()
    honest = code.split(MARKER)[0]
    if honest not in honest_scores:
        honest_scores[honest] = grade(assignment, honest).score
    report = grade(assignment, code)
    assert report.max_score == sum(t.points for t in _source(assignment).source.tests)
    assert report.score <= honest_scores[honest], [t.message for t in report.tests]
    _assert_text_report_is_clean(report, assignment)


def _assert_text_report_is_clean(report, assignment):
    """The self-check's text report of any submission: one line per test (and per broken cell, a
    first cause folding the NameErrors it explains), the language line last, nothing a terminal
    would interpret, every character encodable."""
    from autograder import selfcheck
    lines = selfcheck.report_text(_source(assignment), report, "submission.ipynb").splitlines()
    broken = sum(1 for run in report.cells if run.error)
    assert 2 + len(report.tests) <= len(lines) <= 2 + len(report.tests) + broken, lines
    assert lines[-1].startswith("Language: English"), lines
    assert f"{report.score:g} / {report.max_score:g} points" in lines[0]
    assert all(line.isprintable() for line in lines), [line for line in lines if not line.isprintable()]
    "\n".join(lines).encode("utf-8")


def test_no_process_or_file_is_left_behind():
    """Runs after the attacks above (pytest keeps file order)."""
    time.sleep(0.5)
    from autograder import sandbox
    sandbox_uid = sandbox.sandbox_uid()  # the unprivileged user this process's sandboxes run as
    leftovers = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
            state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
            uid = os.stat(f"/proc/{pid}").st_uid
        except OSError:
            continue
        if state != "Z" and (TRACES in cmdline or uid == sandbox_uid):
            leftovers.append((pid, uid, cmdline))
    assert leftovers == []
    for folder in ("/tmp", os.path.expanduser("~"), str(helpers.REPO), str(helpers.REPO / "autograder")):
        assert not os.path.exists(os.path.join(folder, f"{TRACES}-was-here")), folder


def test_self_check_json_cannot_be_spoofed(tmp_path):
    code = (helpers.REPO / "tests" / "adversarial" / "01_softmax" / "fake_json_on_stdout.py").read_text()
    path = helpers.write(helpers.submission("01_softmax", code), tmp_path / "softmax.ipynb")
    result = subprocess.run([sys.executable, "-m", "autograder", "check", str(path), "--json"],
                            cwd=helpers.REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0
    assert len(result.stdout.strip().splitlines()) == 1
    assert json.loads(result.stdout)["score"] == 5.0


def _with_tests_rewritten(notebook, source, points):
    for cell in notebook.cells:
        if notebooks.is_test_cell(cell):
            cell.source = source
            cell.metadata["nbgrader"]["points"] = points
    return notebook


def test_edited_test_cells_change_nothing():
    honest = (helpers.SUBMISSIONS / "01_softmax" / "wrong" / "no_max_subtraction.py").read_text()
    notebook = _with_tests_rewritten(helpers.submission("01_softmax", honest), "pass", 100)
    report = engine.run_tests(_source("01_softmax"), notebook, FAST, draw=helpers.TEST_DRAW)
    assert (report.score, report.max_score) == (5.0, 7.0)


def test_forged_test_cell_runs_only_as_learner_code(tmp_path):
    """A new cell that claims to be a test cell is the learner's code: sandboxed, worth nothing."""
    from nbformat.v4 import new_code_cell
    notebook = helpers.submission("01_softmax", "def softmax(x, axis=-1):\n    return x")
    evil = new_code_cell(f"open('{tmp_path}/forged', 'w').write('ran on the host')")
    evil.metadata["nbgrader"] = {"grade": True, "solution": False, "grade_id": "bonus", "points": 100,
                                 "locked": True, "schema_version": 3, "task": False}
    notebook.cells.append(evil)
    report = engine.run_tests(_source("01_softmax"), notebook, FAST, draw=helpers.TEST_DRAW)
    assert report.score == 0 and report.max_score == 7.0
    assert "bonus" not in {t.grade_id for t in report.tests}
    assert not (tmp_path / "forged").exists()


@pytest.mark.parametrize("attack", ["04_dot_product/zero_the_inputs", "06_scaled/zero_the_queries"])
def test_inputs_written_in_place_are_named(attack):
    """A function that writes into its inputs earns nothing by it, and is told so: the grader's arrays,
    from which every expected value is computed, are never touched."""
    assignment, name = attack.split("/")
    code = (helpers.REPO / "tests" / "adversarial" / assignment / f"{name}.py").read_text()
    report = grade(assignment, code)
    assert report.score == grade(assignment, code.split("# ---- trick ----")[0]).score
    failed = [t.message for t in report.tests if not t.passed]
    assert failed and all("changed its input" in message for message in failed), failed
