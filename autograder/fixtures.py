"""Fake learners and scratch courses: what the tests and the benchmarks build classes from.

A submission is the release notebook filled in with some code (``submission``);
a scratch course is a copy of this repository's source (``course``); nbgrader
runs on it from autograder/, where its configuration lives (``nbgrader``).
"""
import ast
import copy

import nbformat

from . import notebooks
from .course import GRADEBOOK, REPO_ROOT, course_at, default_course


def exercise(assignment, course=None):
    """The registered exercise ``assignment`` of ``course`` (default: this repository's)."""
    return (course or default_course()).exercise(assignment)


def release_notebook(assignment, course=None):
    """The released notebook of an exercise, as a learner downloads it."""
    return nbformat.read(exercise(assignment, course).release_path, as_version=4)


def _defined(code):
    return {node.name for node in ast.parse(code).body if isinstance(node, ast.FunctionDef)}


def _strip_markers(code):
    return "\n".join(line for line in code.splitlines()
                     if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION"))


def submission(assignment, code):
    """The release notebook as a learner would fill it in with ``code``.

    ``code`` goes into the solution cell(s) whose functions it defines; every
    other solution cell gets the reference solution, so that a wrong
    implementation of one function is graded next to correct others.
    """
    notebook = copy.deepcopy(release_notebook(assignment))
    reference = {notebooks.meta(c)["grade_id"]: _strip_markers(c.source)
                 for c in exercise(assignment).source.notebook.cells
                 if c.cell_type == "code" and notebooks.meta(c).get("solution")}
    mine = _defined(code)
    placed = False
    for cell in notebook.cells:
        grade_id = notebooks.meta(cell).get("grade_id")
        if grade_id in reference:
            if _defined(reference[grade_id]) & mine:
                cell.source, placed = ("" if placed else code), True
            else:
                cell.source = reference[grade_id]
    assert placed, f"{code[:40]!r} defines none of the exercise's functions"
    return notebook


def write(notebook, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)
    return path


def nbgrader(*args, root, check=True, db_url=None, env=None):
    """Run an nbgrader command from autograder/ (where its config lives) on the course at ``root``."""
    import subprocess
    import sys
    command = [sys.executable, "-m", "nbgrader", *args, f"--CourseDirectory.root={root}",
               f"--CourseDirectory.db_url={db_url or course_at(root).gradebook_url}"]
    result = subprocess.run(command, cwd=REPO_ROOT / "autograder", capture_output=True, text=True, env=env)
    if check and result.returncode != 0:
        raise AssertionError(f"nbgrader {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result


def submitted(root, student, name="softmax.ipynb", assignment="01_softmax"):
    """Where a collected submission lives in the course at ``root``."""
    return course_at(root).submitted / student / assignment / name


def gradebook_url(root):
    """The SQLite gradebook of the scratch course at ``root``."""
    return course_at(root).gradebook_url


def gradebook_scores(root, assignment="01_softmax"):
    """{student: score} from the SQLite gradebook of the course at ``root``."""
    from nbgrader.api import Gradebook
    with Gradebook(course_at(root).gradebook_url) as gradebook:
        return {s.student.id: s.score for s in gradebook.assignment_submissions(assignment)}


def nbgrader_config_dir(folder, *, stock=False, settings=()):
    """A folder whose nbgrader_config.py loads the course's configuration, then ``settings``
    (lines such as "c.SandboxedExecute.call_seconds = 3.0").  With ``stock``, nbgrader's own
    autograde pipeline: each notebook runs in a Jupyter kernel, as stock nbgrader does."""
    lines = ["c = get_config()", f"load_subconfig({str(REPO_ROOT / 'autograder' / 'nbgrader_config.py')!r})", *settings]
    if stock:
        lines += ["from nbgrader.converters import Autograde",
                  "c.Autograde.autograde_preprocessors = Autograde.autograde_preprocessors.make_dynamic_default()"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nbgrader_config.py").write_text("\n".join(lines) + "\n")
    return folder


def release_differences(exercise, scratch, env=None):
    """How the committed release of ``exercise`` differs from one nbgrader generates now (empty: none).

    The course's source is copied to ``scratch`` and released there, so the course is not touched.
    """
    import json
    import shutil
    course = exercise.course
    shutil.copytree(course.source, scratch / course.source_directory,
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    (scratch / GRADEBOOK).parent.mkdir(parents=True, exist_ok=True)
    nbgrader("generate_assignment", exercise.assignment, root=scratch, env=env)
    fresh = scratch / course.release_directory / exercise.assignment
    committed = exercise.release_path.parent
    names = sorted(p.name for p in fresh.iterdir()), sorted(p.name for p in committed.iterdir())
    if names[0] != names[1]:
        return [f"files {names[1]} instead of {names[0]}"]
    return [f"{exercise.assignment}/{path.name}" for path in sorted(fresh.glob("*.ipynb"))
            if json.loads(path.read_text()) != json.loads((committed / path.name).read_text())]


def course(tmp_path):
    """A scratch course: a copy of this repository's solutions/ (registry included), so tests
    never touch the real gradebook or release."""
    import shutil
    root = tmp_path / "course"
    shutil.copytree(REPO_ROOT / "solutions", root / "solutions",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    (root / "autograder").mkdir(parents=True, exist_ok=True)   # the course's data folder (course.py)
    return root
