"""Reading exercise notebooks: which cells are tests, which are the learner's code.

The source notebooks of a course (``solutions/``, see ``course.py``) are
trusted: the tests, their points and the reference solution all come from there
(nbgrader's gradebook holds the same copy).  A submission contributes only its code cells; its test cells,
edited or deleted, are ignored, because the tests that run are the source's.
"""
import ast
import functools
import importlib
import json
import re
import types
from dataclasses import dataclass
from pathlib import Path

from .i18n import _

# The nbgrader cell of every exercise that runs the self-check from inside the
# notebook (``autograder.selfcheck``): never one of the learner's cells.
SELF_CHECK_ID = "self_check"


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
    # The module holding the reference solution ("attention.softmax") when the notebook holds none:
    # the public course the wheel ships (``public_course``); None: the notebook's own solution cells.
    library: str | None = None

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

    @property
    def manual_points(self):
        """Points of the cells graded by hand (written answers): not the self-check's."""
        return sum(float(meta(c).get("points", 0)) for c in self.notebook.cells
                   if meta(c).get("grade") and not is_test_cell(c))

    @property
    def model_answers(self):
        """{grade_id: text} of the written answers' model answers, as the source holds them."""
        return {meta(c)["grade_id"]: c.source.strip() for c in self.notebook.cells
                if meta(c).get("grade") and meta(c).get("solution") and c.cell_type == "markdown"}

    @functools.cached_property
    def reference(self):
        """The reference solution: a namespace holding what the notebook's non-test code cells define,
        or the library module ``library``."""
        if self.library is not None:
            return importlib.import_module(self.library)
        namespace = {"__name__": f"reference_{self.assignment}"}
        for cell in self.notebook.cells:
            if cell.cell_type == "code" and not is_test_cell(cell) and not is_self_check(cell):
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


def is_self_check(cell):
    """The exercise's last cell, which grades the notebook: never run while grading."""
    return meta(cell).get("grade_id") == SELF_CHECK_ID


def normalised_code(source):
    """A cell's code without what does not count: line endings, trailing blanks, blank ends."""
    return "\n".join(line.rstrip() for line in source.splitlines()).strip()


def only_checks_itself(source):
    """Is the code ``source`` nothing but the self-check's calls (``check_this_notebook(...)`` with
    constant arguments, and its import)?  A learner adds such a cell to choose a language; like the
    self-check cell it never runs while grading, and skipping it skips nothing else."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False

    def call(node):
        return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Name) and node.value.func.id == "check_this_notebook"
                and all(isinstance(a, ast.Constant) for a in node.value.args)
                and all(isinstance(k.value, ast.Constant) and k.arg for k in node.value.keywords))

    def import_(node):
        return (isinstance(node, ast.ImportFrom) and node.module == "autograder.selfcheck"
                and [a.name for a in node.names] == ["check_this_notebook"] and node.names[0].asname is None)

    return bool(tree.body) and any(call(n) for n in tree.body) and all(call(n) or import_(n) for n in tree.body)


def is_test_cell(cell):
    """An nbgrader autograder-test cell: graded code that is not a solution."""
    m = meta(cell)
    return cell.get("cell_type") == "code" and bool(m.get("grade")) and not m.get("solution")


def read_notebook(path):
    """Read a notebook file and check what grading reads of it; NotebookError with a
    one-line reason otherwise (in the current language, ``i18n``)."""
    path = Path(path)
    if not path.exists():
        raise NotebookError(_("{path}: no such file").format(path=path))
    if path.is_dir():
        raise NotebookError(_("{path}: is a folder, not a notebook").format(path=path))
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise NotebookError(_("{path}: cannot be read ({error})").format(path=path, error=error.__class__.__name__)) \
            from None
    if not text.strip():
        raise NotebookError(_("{path}: the file is empty").format(path=path))
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(_("{path}: not valid JSON (line {line}, column {column}); "
                              "is it really a .ipynb notebook?").format(path=path, line=error.lineno,
                                                                        column=error.colno)) from None
    except RecursionError:
        raise NotebookError(_("{path}: nested too deeply to be a notebook").format(path=path)) from None
    if not isinstance(raw, dict) or "nbformat" not in raw:
        raise NotebookError(_("{path}: JSON, but not a Jupyter notebook").format(path=path))
    if raw.get("nbformat") != 4:
        raise NotebookError(_("{path}: notebook format {version} is not supported (need 4)").format(
            path=path, version=raw.get('nbformat')))
    if "cells" not in raw:
        raise NotebookError(_("{path}: JSON, but not a Jupyter notebook (no cells)").format(path=path))
    cells = raw["cells"]
    if not isinstance(cells, list):
        raise NotebookError(_("{path}: not a valid notebook (its cells are not a list)").format(path=path))
    for index, cell in enumerate(cells):
        problem = _cell_problem(cell)
        if problem:
            raise NotebookError(_("{path}: not a valid notebook (cell {index}: {problem})").format(
                path=path, index=index, problem=problem))
    try:
        return _node(raw)
    except RecursionError:  # metadata nested deeper than any notebook needs
        raise NotebookError(_("{path}: nested too deeply to be a notebook").format(path=path)) from None


class Node(dict):
    """A notebook, a cell or a piece of metadata: a dict with attribute access,
    as nbformat's NotebookNode (so code written for either reads both)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        self[name] = value


def _node(value):
    if isinstance(value, dict):
        return Node((without_surrogates(key), _node(item)) for key, item in value.items())
    if isinstance(value, list):
        return [_node(item) for item in value]
    return without_surrogates(value) if isinstance(value, str) else value


_SURROGATES = re.compile("[\ud800-\udfff]")   # in a str, only ever lone ones (json.loads joins pairs)


def without_surrogates(value):
    """``value`` (a string, or JSON: dicts and lists) with each lone surrogate replaced by U+FFFD, keys
    included.  A notebook's JSON may hold one as an escape ("\\ud800"), which no editor writes and no
    UTF-8 file can hold: left in, compiling the cell, writing the notebook or printing a message fails."""
    if isinstance(value, str):
        return _SURROGATES.sub("\ufffd", value)
    if isinstance(value, dict):
        return type(value)((without_surrogates(key), without_surrogates(item)) for key, item in value.items())
    if isinstance(value, list):
        return [without_surrogates(item) for item in value]
    return value


def _cell_problem(cell):
    """What keeps ``cell`` (raw JSON) from being graded, or None.

    Only what the grader reads is checked, not nbformat's whole JSON schema,
    whose validator costs more than grading a notebook; a multi-line
    ``source`` stored as a list of lines is joined, as nbformat does.
    """
    if not isinstance(cell, dict):
        return _("not an object")
    if cell.get("cell_type") not in ("code", "markdown", "raw"):
        return _("unknown cell_type {cell_type}").format(cell_type=repr(cell.get('cell_type')))
    source = cell.get("source", "")
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        source = "".join(source)
    if not isinstance(source, str):
        return _("its source is not text")
    cell["source"] = source
    if not isinstance(cell.get("metadata", {}), dict):
        return _("its metadata is not an object")
    if not isinstance(cell.get("metadata", {}).get("nbgrader", {}), dict):
        return _("its nbgrader metadata is not an object")
    if cell["cell_type"] == "code":
        cell.setdefault("outputs", [])
        if not isinstance(cell["outputs"], list):
            return _("its outputs are not a list")
    return None


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
    text transformation; the calls do nothing in the grading worker.  The
    self-check cell, and a cell that only calls the self-check, are left out.
    """
    cells = []
    for index, cell in enumerate(submission.cells):
        if cell.cell_type == "code" and not is_test_cell(cell) and cell.source.strip():
            if is_self_check(cell) or only_checks_itself(cell.source):
                continue  # the self-check grades the notebook: it never runs while grading
            cells.append((index, _as_python(cell.source)))
    return cells


def _as_python(source):
    """``source`` as plain Python: unchanged when it already is (most cells, and no
    IPython import), else with IPython's syntax rewritten."""
    try:
        ast.parse(source)
        return source
    except SyntaxError:
        pass
    try:
        from IPython.core.inputtransformer2 import TransformerManager
        return TransformerManager().transform_cell(source)
    except Exception:  # no IPython, or not IPython syntax either: Python reports the error
        return source
