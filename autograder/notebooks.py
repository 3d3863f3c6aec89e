"""Reading exercise notebooks: which cells are tests, which are the learner's code.

The source notebooks of a course (``solutions/``, see ``course.py``) are
trusted: the tests, their points and the reference solution all come from there
(nbgrader's gradebook holds the same copy).  A submission contributes only its code cells; its test cells,
edited or deleted, are ignored, because the tests that run are the source's.
"""
import ast
import functools
import json
import types
from dataclasses import dataclass
from pathlib import Path

import nbformat

class NotebookError(Exception):
    """A file that cannot be graded; ``str()`` is a one-line reason for the learner."""


@dataclass(frozen=True)
class TestCell:
    grade_id: str
    points: float
    source: str


@dataclass(frozen=True)
class SourceNotebook:
    assignment: str          # e.g. "01_softmax"
    path: Path               # solutions/01_softmax/softmax.ipynb

    @property
    def name(self):
        return self.path.stem

    @functools.cached_property
    def notebook(self):
        return read_notebook(self.path)

    @property
    def tests(self):
        return [TestCell(meta(c)["grade_id"], float(meta(c).get("points", 0)), c.source)
                for c in self.notebook.cells if is_test_cell(c)]

    @property
    def grade_ids(self):
        return grade_ids(self.notebook)

    @property
    def functions(self):
        """Names of the functions the learner implements: those defined in solution cells."""
        names = []
        for cell in self.notebook.cells:
            if cell.cell_type == "code" and meta(cell).get("solution"):
                names += [node.name for node in ast.parse(cell.source).body if isinstance(node, ast.FunctionDef)]
        return names

    @functools.cached_property
    def reference(self):
        """The reference solution: a namespace holding what the notebook's non-test code cells define."""
        namespace = {"__name__": f"reference_{self.assignment}"}
        for cell in self.notebook.cells:
            if cell.cell_type == "code" and not is_test_cell(cell):
                exec(compile(cell.source, f"<{self.path.name} reference>", "exec"), namespace)
        return types.SimpleNamespace(**namespace)


def meta(cell):
    """A cell's nbgrader metadata; {} when a submission put something else than a dict there."""
    metadata = cell.get("metadata", {})
    nbgrader = metadata.get("nbgrader", {}) if isinstance(metadata, dict) else {}
    return nbgrader if isinstance(nbgrader, dict) else {}


def grade_ids(notebook):
    """The nbgrader cell ids of a notebook."""
    return {meta(c)["grade_id"] for c in notebook.cells if "grade_id" in meta(c)}


def is_test_cell(cell):
    """An nbgrader autograder-test cell: graded code that is not a solution."""
    m = meta(cell)
    return cell.get("cell_type") == "code" and bool(m.get("grade")) and not m.get("solution")


def read_notebook(path):
    """Read and validate a notebook file; NotebookError with a one-line reason otherwise."""
    path = Path(path)
    if not path.exists():
        raise NotebookError(f"{path}: no such file")
    if path.is_dir():
        raise NotebookError(f"{path}: is a folder, not a notebook")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise NotebookError(f"{path}: cannot be read ({error.__class__.__name__})") from None
    if not text.strip():
        raise NotebookError(f"{path}: the file is empty")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(f"{path}: not valid JSON (line {error.lineno}, column {error.colno}); "
                            "is it really a .ipynb notebook?") from None
    except RecursionError:
        raise NotebookError(f"{path}: nested too deeply to be a notebook") from None
    if not isinstance(raw, dict) or "nbformat" not in raw:
        raise NotebookError(f"{path}: JSON, but not a Jupyter notebook")
    if raw.get("nbformat") != 4:
        raise NotebookError(f"{path}: notebook format {raw.get('nbformat')} is not supported (need 4)")
    if "cells" not in raw:
        raise NotebookError(f"{path}: JSON, but not a Jupyter notebook (no cells)")
    try:
        notebook = nbformat.reads(text, as_version=4)
        nbformat.validate(notebook)
    except Exception as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise NotebookError(f"{path}: not a valid notebook ({first[:200]})") from None
    return notebook


def test_cell_errors(path):
    """(grade_id, ename, evalue) of each failed test cell of an autograded notebook; nothing if unreadable."""
    try:
        notebook = read_notebook(path)
    except NotebookError:
        return
    for cell in notebook.cells:
        if is_test_cell(cell):
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error":
                    yield meta(cell).get("grade_id", "?"), output.get("ename"), str(output.get("evalue", ""))
                    break


def learner_cells(submission):
    """(index, Python source) for every code cell of the submission that is not a test cell.

    IPython syntax (magics, ``!shell``) is rewritten to plain Python calls, as a
    text transformation; the calls do nothing in the grading worker.
    """
    from IPython.core.inputtransformer2 import TransformerManager
    transform = TransformerManager().transform_cell
    cells = []
    for index, cell in enumerate(submission.cells):
        if cell.cell_type == "code" and not is_test_cell(cell) and cell.source.strip():
            try:
                cells.append((index, transform(cell.source)))
            except Exception:  # leave it to Python to report the syntax error
                cells.append((index, cell.source))
    return cells
