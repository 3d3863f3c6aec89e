"""Reading exercise notebooks: which cells are tests, which are the learner's code.

The source notebooks in ``solutions/`` are trusted: the tests, their points and
the reference solution all come from there (nbgrader's gradebook holds the
same copy).  A submission contributes only its code cells; its test cells,
edited or deleted, are ignored, because the tests that run are the source's.
"""
import ast
import functools
import json
from dataclasses import dataclass
from pathlib import Path

import nbformat

REPO_ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = REPO_ROOT / "solutions"


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
        return {meta(c)["grade_id"] for c in self.notebook.cells if "grade_id" in meta(c)}

    @property
    def functions(self):
        """Names of the functions the learner implements: those defined in solution cells."""
        names = []
        for cell in self.notebook.cells:
            if cell.cell_type == "code" and meta(cell).get("solution"):
                names += [node.name for node in ast.parse(cell.source).body if isinstance(node, ast.FunctionDef)]
        return names


def meta(cell):
    return cell.get("metadata", {}).get("nbgrader", {})


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


def source_notebooks():
    """Every exercise source notebook: solutions/<assignment>/<name>.ipynb."""
    return [SourceNotebook(p.parent.name, p) for p in sorted(SOLUTIONS.glob("*/*.ipynb"))
            if ".ipynb_checkpoints" not in p.parts]


def source_for(assignment, notebook_name):
    path = SOLUTIONS / assignment / f"{notebook_name}.ipynb"
    if not path.exists():
        raise NotebookError(f"no exercise {assignment}/{notebook_name}.ipynb in {SOLUTIONS}")
    return SourceNotebook(assignment, path)


def identify(submission):
    """The source notebook a submission was released from, found by its nbgrader cell ids.

    A renamed file is still recognised; a notebook without the exercise's cells is not.
    """
    ids = {meta(c)["grade_id"] for c in submission.cells if "grade_id" in meta(c)}
    best, overlap = None, 0
    for source in source_notebooks():
        shared = len(ids & source.grade_ids)
        if shared > overlap:
            best, overlap = source, shared
    if best is None:
        raise NotebookError("this notebook is not one of the book's exercises "
                            "(it has none of their graded cells); open the one under exercises/")
    return best


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


@functools.lru_cache(maxsize=None)
def reference(assignment):
    """The reference solution of an assignment, executed from its source notebook's solution cells."""
    (source,) = [s for s in source_notebooks() if s.assignment == assignment] or [None]
    if source is None:
        raise NotebookError(f"no source notebook for {assignment}")
    namespace = {"__name__": f"reference_{assignment}"}
    for cell in source.notebook.cells:
        if cell.cell_type == "code" and not is_test_cell(cell):
            exec(compile(cell.source, f"<{source.path.name} reference>", "exec"), namespace)
    return _Namespace(namespace)


class _Namespace:
    def __init__(self, names):
        self.__dict__.update(names)
