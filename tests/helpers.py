"""Shared test helpers: build learner submissions from the release notebooks."""
import ast
import copy
import importlib
from pathlib import Path

import nbformat

from autograder import notebooks

REPO = Path(__file__).resolve().parents[1]
SUBMISSIONS = REPO / "tests" / "submissions"


def release_notebook(assignment):
    source = _source(assignment)
    return nbformat.read(REPO / "exercises" / assignment / source.path.name, as_version=4)


def _source(assignment):
    (source,) = [s for s in notebooks.source_notebooks() if s.assignment == assignment]
    return source


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
                 for c in _source(assignment).notebook.cells
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


def catalogue(assignment):
    """The exercise's misconception catalogue module (named after its notebook)."""
    return importlib.import_module(f"autograder.catalogue.{_source(assignment).name}")


def implementations(kind):
    """(assignment, path) for every tests/submissions/<assignment>/<kind>/*.py."""
    return [(p.parent.parent.name, p) for p in sorted(SUBMISSIONS.glob(f"*/{kind}/*.py"))]


def nbgrader(*args, root, check=True, db_url=None):
    """Run an nbgrader command from autograder/ (where its config lives) on the course at ``root``."""
    import subprocess
    import sys
    command = [sys.executable, "-m", "nbgrader", *args, f"--CourseDirectory.root={root}",
               f"--CourseDirectory.db_url={db_url or f'sqlite:///{root}/gradebook.db'}"]
    result = subprocess.run(command, cwd=REPO / "autograder", capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError(f"nbgrader {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result


def course(tmp_path):
    """A scratch course: a copy of solutions/, so tests never touch the real gradebook or release."""
    import shutil
    root = tmp_path / "course"
    shutil.copytree(REPO / "solutions", root / "solutions",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    return root


def write_text(path, text):
    path.write_text(text)
    return path
