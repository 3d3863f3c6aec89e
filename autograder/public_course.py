"""The public course: what the book's wheel ships of the course, made when the wheel is built.

A learner who installs the wheel gets the self-check of every exercise of the
book, and nothing the public book does not already show: for each exercise the
source notebook with every solution replaced by nbgrader's stubs (as its
``ClearSolutions`` writes the release), the hidden test cells (calls of the
public catalogue, checked here: anything else fails the build), and the
registry.  The reference solutions are the book's library modules
(``attention.<name>``, the registry's ``reference = "library"``).  The model
answers of the written questions are shipped, in ``model_answers.json``, only
when the course offers them (``[course] model_answers = "after-grading"``).
Only the book's exercises are shipped (those with a ``chapter`` and the
catalogue of the book): an instructor's own exercises never are.

setuptools runs this through pyproject.toml's ``cmdclass`` (``build_py``
below), loading this file by its path, in a build environment that may have
nothing but setuptools: so this module uses the standard library only and no
other module of the package.  ``course.py`` reads the registry's ``[course]``
table with ``course_settings``.
"""
import ast
import json
import shutil
import textwrap
import tomllib
from pathlib import Path

REGISTRY = "exercises.toml"
MODEL_ANSWERS_FILE = "model_answers.json"
PACKAGE_DATA = "course_data"        # the public course's folder in the installed package (course.py)
CATALOGUE = "autograder.catalogue"  # the only module a shipped hidden test may import from

# The registry's [course] settings, each with its allowed values, the default first.
SETTINGS = {
    # What learner tools may show of the written questions' model answers: nothing (the safe
    # default, for any course that does not say), or the self-check's --model-answers after its report.
    "model_answers": ("never", "after-grading"),
    # Where the reference solutions come from: the source notebooks' solution cells, or the book's
    # library modules (the public course, whose notebooks hold no solution).
    "reference": ("source", "library"),
    # Whether the self-check offers the book library's implementation of an exercise once the
    # learner's has full marks (``--reference``): never (the default), or then.
    "reference_code": ("never", "after-full-marks"),
}

# nbgrader's stubs, as the course's ClearSolutions writes them into the release (nbgrader_config.py).
CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
TEXT_STUB = "YOUR ANSWER HERE"
SOLUTION = ("BEGIN SOLUTION", "END SOLUTION")
HIDDEN_TESTS = ("BEGIN HIDDEN TESTS", "END HIDDEN TESTS")


class PublicCourseError(ValueError):
    """A registry or a source notebook that cannot be made public; ``str()`` is one line."""


def course_settings(registry, path):
    """The ``[course]`` table of a parsed registry, checked, with the defaults filled in."""
    table = registry.get("course", {})
    if not isinstance(table, dict):
        raise PublicCourseError(f"{path}: [course] must be a table")
    unknown = sorted(set(table) - set(SETTINGS))
    if unknown:
        raise PublicCourseError(f"{path}: [course] has no setting {unknown[0]!r} "
                                f"(it has: {', '.join(SETTINGS)})")
    settings = {}
    for key, allowed in SETTINGS.items():
        value = table.get(key, allowed[0])
        if value not in allowed:
            raise PublicCourseError(f"{path}: [course] {key} = {value!r}: must be "
                                    f"{' or '.join(repr(a) for a in allowed)}")
        settings[key] = value
    return settings


def book_exercises(registry):
    """(assignment, name, entry) of the registry's book exercises: a chapter teaches them and the
    book's catalogue checks them.  An instructor's own exercise is not one."""
    for entry in registry.get("exercise", []):
        if isinstance(entry, dict) and entry.get("chapter") and not entry.get("catalogue"):
            yield f"{int(entry['number']):02d}_{entry['name']}", str(entry["name"]), entry


# --------------------------------------------------------------------------- one notebook
def _text(source):
    return "".join(source) if isinstance(source, list) else source


def _nbgrader(cell):
    metadata = cell.get("metadata", {})
    return metadata.get("nbgrader", {}) if isinstance(metadata, dict) else {}


def _regions(source, delimiters, stub, where):
    """(``source`` with every region between the delimiters replaced by ``stub``, indented as its
    first line, [the regions' texts]); nbgrader's rule: a delimiter is a line that contains it.
    With ``stub`` None the regions are removed."""
    begin, end = delimiters
    lines, regions, region = [], [], None
    for line in source.split("\n"):
        if begin in line:
            if region is not None:
                raise PublicCourseError(f"{where}: nested {begin}")
            region = []
            indent = line[:len(line) - len(line.lstrip())]
            lines += [indent + stub_line for stub_line in stub.split("\n")] if stub is not None else []
        elif end in line:
            if region is None:
                raise PublicCourseError(f"{where}: {end} without {begin}")
            regions.append("\n".join(region))
            region = None
        elif region is not None:
            region.append(line)
        else:
            lines.append(line)
    if region is not None:
        raise PublicCourseError(f"{where}: {begin} without {end}")
    return "\n".join(lines), regions


def _defined(code, where):
    """Names of the functions ``code`` defines at its top level."""
    try:
        return [node.name for node in ast.parse(code).body if isinstance(node, ast.FunctionDef)]
    except SyntaxError as error:
        raise PublicCourseError(f"{where}: a solution cell is not Python ({error.msg}, line {error.lineno})") \
            from None


def _check_hidden_test(code, functions, where):
    """A hidden test may only import from the book's catalogue and call what it imports with the
    exercise's functions: no literal of an instructor's, nothing the public book does not show."""
    try:
        body = ast.parse(textwrap.dedent(code)).body
    except SyntaxError as error:
        raise PublicCourseError(f"{where}: its hidden test is not Python ({error.msg}, line {error.lineno})") \
            from None
    imported = set()
    for node in body:
        if (isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                and (node.module == CATALOGUE or node.module.startswith(CATALOGUE + "."))
                and all(alias.name != "*" for alias in node.names)):
            imported |= {alias.asname or alias.name for alias in node.names}
            continue
        call = node.value if isinstance(node, ast.Expr) else None
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in imported
                and not call.keywords and all(isinstance(a, ast.Name) and a.id in functions for a in call.args)):
            continue
        raise PublicCourseError(f"{where}: line {node.lineno} of its hidden test does more than import from "
                                f"{CATALOGUE} and call that with the exercise's functions; the wheel would "
                                f"publish it")


def public_notebook(notebook, where):
    """(the public copy of a source notebook (parsed JSON), {grade_id: model answer}).

    Solutions become nbgrader's stubs, outputs are cleared, hidden tests are checked and kept;
    the model answers of the written questions are returned apart, as the source holds them.
    """
    solution_cells = [_text(c.get("source", "")) for c in notebook.get("cells", [])
                      if c.get("cell_type") == "code" and _nbgrader(c).get("solution")]
    functions = [name for code in solution_cells for name in _defined(code, where)]
    cells, answers = [], {}
    for cell in notebook.get("cells", []):
        cell, meta = dict(cell), _nbgrader(cell)
        source = _text(cell.get("source", ""))
        here = f"{where}, cell {meta.get('grade_id', '(no grade_id)')}"
        if cell.get("cell_type") == "code":
            cell["outputs"], cell["execution_count"] = [], None
        _, hidden = _regions(source, HIDDEN_TESTS, None, here)
        for code in hidden:
            _check_hidden_test(code, functions, here)
        stub = CODE_STUB if cell.get("cell_type") == "code" else TEXT_STUB
        public, regions = _regions(source, SOLUTION, stub, here)
        if regions and not meta.get("solution"):
            raise PublicCourseError(f"{here}: a solution region in a cell that is not a solution cell")
        if meta.get("solution"):
            cell.pop("attachments", None)   # a written answer's images are part of it
            if cell.get("cell_type") == "markdown" and meta.get("grade"):
                answers[meta["grade_id"]] = source.strip()
            if not regions:   # no markers: the whole cell is the solution, as nbgrader's ClearSolutions has it
                public = stub
        cell["source"] = public
        cells.append(cell)
    kept = [name for c in cells if c.get("cell_type") == "code" and _nbgrader(c).get("solution")
            for name in _defined(c["source"], where)]
    if kept != functions:
        raise PublicCourseError(f"{where}: its solution cells define {functions} but their stubs only {kept}: "
                                f"put {SOLUTION[0]} / {SOLUTION[1]} around the bodies, not the definitions")
    return {**notebook, "cells": cells}, answers


def library_names(path):
    """The names a library module defines or imports at its top level."""
    names = set()
    for node in ast.parse(Path(path).read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, ast.Assign):
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    return names


# --------------------------------------------------------------------------- the course
def _toml_string(value):
    return json.dumps(str(value), ensure_ascii=False)   # a JSON string without \/ is a TOML basic string


def write_public_course(source, library, target):
    """Write the public course of the course whose source folder is ``source`` (solutions/), whose
    reference solutions are the modules of the folder ``library`` (book/attention), into ``target``
    (emptied first); the files written.  PublicCourseError when something cannot be made public."""
    source, library, target = Path(source), Path(library), Path(target)
    registry_path = source / REGISTRY
    try:
        registry = tomllib.loads(registry_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise PublicCourseError(f"{registry_path}: cannot be read ({error}); the wheel is built from the "
                                f"repository (pip wheel .)".splitlines()[0]) from None
    settings = course_settings(registry, registry_path)
    shutil.rmtree(target, ignore_errors=True)   # nothing of an earlier build stays
    lines = ["# The public course the wheel ships, written by autograder/public_course.py from the course's",
             "# registry: its book exercises, solutions stubbed, reference solutions from the library.",
             "[course]", f"model_answers = {_toml_string(settings['model_answers'])}", 'reference = "library"',
             f"reference_code = {_toml_string(settings['reference_code'])}"]
    written, answers = [], {}
    for assignment, name, entry in book_exercises(registry):
        path = source / assignment / f"{name}.ipynb"
        try:
            notebook = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise PublicCourseError(f"{path}: cannot be read ({type(error).__name__})") from None
        public, answers[assignment] = public_notebook(notebook, str(path))
        functions = [n for c in public["cells"] if c.get("cell_type") == "code" and _nbgrader(c).get("solution")
                     for n in _defined(c["source"], str(path))]
        module = library / f"{name}.py"
        missing = [f for f in functions if not module.is_file() or f not in library_names(module)]
        if missing:
            raise PublicCourseError(f"{assignment}: the library module {module} does not define {', '.join(missing)}, "
                                    f"the reference solution of the public course")
        out = target / assignment / f"{name}.ipynb"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(public, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(out)
        lines += ["", "[[exercise]]", f"number = {int(entry['number'])}", f"name = {_toml_string(name)}",
                  f"chapter = {_toml_string(entry['chapter'])}"]
        if entry.get("further"):
            lines.append(f"further = {_toml_string(entry['further'])}")
    target.mkdir(parents=True, exist_ok=True)
    (target / REGISTRY).write_text("\n".join(lines) + "\n", encoding="utf-8")
    written.append(target / REGISTRY)
    if settings["model_answers"] == "after-grading":
        (target / MODEL_ANSWERS_FILE).write_text(json.dumps(answers, indent=1, ensure_ascii=False) + "\n",
                                                 encoding="utf-8")
        written.append(target / MODEL_ANSWERS_FILE)
    return written


# --------------------------------------------------------------------------- the build hook
def _build_py():
    """setuptools' ``build_py`` that also writes the public course into the built package."""
    from setuptools.command.build_py import build_py
    from setuptools.errors import SetupError

    class BuildPublicCourse(build_py):
        """Copies the packages, then writes the public course into ``autograder/course_data``.
        Not for an editable install: there the course is the repository's (course.default_course)."""

        def run(self):
            super().run()
            self.public_course = []
            if self.editable_mode:
                return
            try:
                self.public_course = write_public_course(
                    Path("solutions"), Path(self.get_package_dir("attention")),
                    Path(self.build_lib) / "autograder" / PACKAGE_DATA)
            except PublicCourseError as error:
                raise SetupError(f"the public course: {error}") from None

        def get_outputs(self, include_bytecode=True):
            return super().get_outputs(include_bytecode) + [str(p) for p in getattr(self, "public_course", [])]

    return BuildPublicCourse


def __getattr__(name):
    # pyproject.toml's cmdclass names ``autograder.public_course.build_py``: made on first use, so
    # that the grader, which imports this module for ``course_settings``, never imports setuptools.
    if name == "build_py":
        globals()[name] = _build_py()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
