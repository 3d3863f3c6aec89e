"""The learner's self-check command: `python -m autograder check NOTEBOOK [--json]`."""
import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

import helpers

RELEASE = helpers.REPO / "exercises" / "01_softmax" / "softmax.ipynb"


def check(*args):
    return subprocess.run([sys.executable, "-m", "autograder", "check", *map(str, args)],
                          cwd=helpers.REPO, capture_output=True, text=True, timeout=300)


def copied(path, folder):
    """``path`` copied into ``folder``: a self-check records its result beside the notebook, never in the
    repository's folders."""
    import shutil
    return Path(shutil.copy(path, folder / path.name))


def test_solution_earns_full_marks_as_json(tmp_path):
    result = check(copied(helpers.REPO / "solutions" / "01_softmax" / "softmax.ipynb", tmp_path), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)  # one JSON object and nothing else
    assert set(report) == {"assignment", "notebook", "score", "max_score", "tests"}
    assert report["assignment"] == "01_softmax"
    assert report["score"] == report["max_score"] == 7.0
    for test in report["tests"]:
        assert set(test) == {"grade_id", "score", "max_score", "passed", "message"}
        assert test["passed"] and test["score"] == test["max_score"]


def test_untouched_release_earns_zero_and_exits_zero(tmp_path):
    result = check(copied(RELEASE, tmp_path), "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["score"] == 0 and report["max_score"] == 7.0
    assert all(not t["passed"] and t["message"] for t in report["tests"])


def test_human_output_names_the_mistake(tmp_path):
    code = (helpers.SUBMISSIONS / "01_softmax" / "wrong" / "axis_ignored.py").read_text()
    path = helpers.write(helpers.submission("01_softmax", code), tmp_path / "renamed.ipynb")
    result = check(path)
    assert result.returncode == 0
    assert "the `axis` argument is ignored" in result.stdout
    assert "FAIL  test_softmax_axis" in result.stdout and "PASS  test_softmax_visible" in result.stdout


def _not_an_exercise(tmp_path):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("def softmax(x, axis=-1):\n    return x")])
    return helpers.write(notebook, tmp_path / "mine.ipynb")


@pytest.mark.parametrize("make, reason", [
    (lambda tmp: tmp / "missing.ipynb", "no such file"),
    (lambda tmp: tmp, "is a folder"),
    (lambda tmp: helpers.write_text(tmp / "notes.txt", "just text\n"), "not valid JSON"),
    (lambda tmp: helpers.write_text(tmp / "broken.ipynb", '{"cells": [}'), "not valid JSON"),
    (lambda tmp: helpers.write_text(tmp / "empty.ipynb", ""), "empty"),
    (lambda tmp: helpers.write_text(tmp / "list.ipynb", "[1, 2]"), "not a Jupyter notebook"),
    (lambda tmp: helpers.write_text(tmp / "v3.ipynb", '{"nbformat": 3, "cells": [], "metadata": {}}'),
     "format 3 is not supported"),
    (_not_an_exercise, "not one of the course's exercises"),
], ids=["missing", "folder", "text-file", "invalid-json", "empty", "json-list", "nbformat-3", "not-an-exercise"])
def test_bad_input_gives_one_line_and_nonzero_exit(tmp_path, make, reason):
    result = check(make(tmp_path))
    assert result.returncode != 0
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert reason in result.stderr and "Traceback" not in result.stderr


def test_bad_usage_gives_one_line():
    result = subprocess.run([sys.executable, "-m", "autograder", "grade-all"], cwd=helpers.REPO,
                            capture_output=True, text=True)
    assert result.returncode != 0 and len(result.stderr.strip().splitlines()) == 1


def test_the_command_line_needs_no_instructor_package():
    """A learner's wheel has no nbgrader, copydetect or matplotlib's instructor uses: the parser of every
    command (the instructor's included) loads without them, so `check` runs."""
    code = ("import sys\n"
            "for name in ('nbgrader', 'copydetect', 'sqlalchemy'): sys.modules[name] = None\n"
            "from autograder.__main__ import _parser\n"
            "print(_parser().parse_args(['check', 'x.ipynb']).command)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.strip() == "check", result.stderr
