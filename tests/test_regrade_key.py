"""What decides a grade is in the class run's key, and the release check reads the release as nbgrader
writes it (issue 23); bad input to the class run is one line that names no password and makes no folder."""
import json
import shutil
import subprocess
import sys
import types

import helpers
from autograder import classrun, course as courses


def test_a_module_the_catalogue_imports_only_when_a_check_runs_is_in_the_key(tmp_path, monkeypatch):
    package = tmp_path / "forkcat"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "softmax.py").write_text("def check():\n    from forkcat import policy\n    return policy.LENIENT\n")
    (package / "policy.py").write_text("LENIENT = True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    exercise = types.SimpleNamespace(catalogue=__import__("forkcat.softmax").softmax)
    before = classrun.grader_fingerprint(exercise)
    (package / "policy.py").write_text("LENIENT = False\n")
    assert classrun.grader_fingerprint(exercise) != before


def _course_with_release(tmp_path):
    root = helpers.course(tmp_path)
    shutil.copytree(helpers.REPO / "exercises" / "01_softmax", root / "exercises" / "01_softmax")
    return root


def _edit_source(root, edit):
    source = root / "solutions" / "01_softmax" / "softmax.ipynb"
    notebook = json.loads(source.read_text())
    edit(notebook)
    source.write_text(json.dumps(notebook, indent=1))


def test_the_release_check_names_a_removed_test_and_accepts_nbgraders_markers(tmp_path):
    root = _course_with_release(tmp_path)
    exercise = courses.course_at(root).exercise("01_softmax")
    assert classrun.release_changes(exercise) == []
    # nbgrader hides every line that contains the marker, whatever comes before it
    _edit_source(root, lambda nb: [c.update(source=c["source"].replace("### BEGIN HIDDEN TESTS", "# BEGIN HIDDEN TESTS"))
                                   for c in nb["cells"] if isinstance(c["source"], str)])
    assert classrun._visible_part("a\n# BEGIN HIDDEN TESTS\nb\n# END HIDDEN TESTS\nc") == "a\nc"

    def remove(nb):
        nb["cells"] = [c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") != "test_softmax_axis"]
    _edit_source(root, remove)
    exercise = courses.Course(root).exercise("01_softmax")   # a fresh object: the source is read again
    assert classrun.release_changes(exercise) == ["test_softmax_axis was removed from the source"]


def _grade(*args, env=None):
    return subprocess.run([sys.executable, "-m", "autograder", "grade", "01_softmax", *args], cwd=helpers.REPO,
                          capture_output=True, text=True, timeout=120, env=env)


def test_a_wrong_course_root_is_one_line_and_makes_no_folder(tmp_path):
    missing = tmp_path / "a" / "b"
    result = _grade("--course-root", str(missing))
    assert result.returncode != 0 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "no such folder" in result.stderr and not (tmp_path / "a").exists()


def test_the_class_run_never_prints_a_gradebook_password(tmp_path):
    root = helpers.course(tmp_path)
    helpers.write(helpers.submission("01_softmax", "def softmax(x, axis=-1):\n    return x"),
                  helpers.submitted(root, "alice"))
    # A password with an @, which a driver's error quotes in pieces (the other URL forms: test_gradebook_move).
    result = _grade("--course-root", str(root), "--db-url", "postgresql://u:S3C@RET@PW@127.0.0.1:1/db")
    assert result.returncode != 0 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert not any(word in result.stderr for word in ("S3C", "RET", "PW@")), result.stderr
