"""The learner's self-check: one notebook graded with the hidden tests.

Two ways in, one report:

* ``python -m autograder check NOTEBOOK`` (``__main__``) prints ``report_text``;
* the last cell of every exercise calls ``check_this_notebook()``, which finds
  the notebook's own saved file and runs that same command on it, with the
  kernel's Python, so the notebook shows the same scores, the same named
  mistakes and gets the same sandbox.

Both speak the language that ``i18n.choose`` picks: ``--lang`` (``language=``),
else the notebook's metadata, else the locale environment, else English.

The check cell is an nbgrader read-only cell (``notebooks.SELF_CHECK_ID``):
the grading engine never runs it, in the class run as in nbgrader autograde.
"""
import datetime
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from . import i18n, notebooks, safe
from .i18n import _
from .results import Kind

# Errors that stop a notebook before it defines its functions: reported first,
# as the cause of the "not defined" failures that follow from them.
# A cell stopped at its time limit ("Timeout: ...", the engine's) may have stopped before its definitions too.
ROOT_CAUSES = ("SyntaxError", "IndentationError", "TabError", "ImportError", "ModuleNotFoundError", "Timeout")
_UNDEFINED = ("is not defined", "no function named")


def grade(path, course=None, limits=None, language=None):
    """(exercise, report) for the notebook file ``path``; NotebookError if it cannot be graded.

    The hidden inputs are the self-check's draw, a function of the notebook's code and never the class
    run's (``checks.self_check_draw``): the same code gives the same report.
    The report's language (``report.language``) is ``language`` (``--lang``; UnsupportedLanguage
    if the grader does not speak it), else the notebook's metadata, else the environment, else
    English; a notebook that cannot be read is reported in ``language``, else the environment's.
    """
    from . import checks, engine
    from .course import default_course
    from .sandbox import Limits
    requested = None if language is None else i18n.require(language)
    with i18n.language(i18n.choose(requested)):
        submission = notebooks.read_notebook(path)
        exercise = (course or default_course()).identify(submission)
    return exercise, engine.run_tests(exercise, submission, limits or Limits(), draw=checks.self_check_draw(submission),
                                      language=i18n.choose(requested, submission))


def _root_cause(report):
    """The first of the learner's cells that raised one of ``ROOT_CAUSES``, or None."""
    return next((run for run in report.cells
                 if run.error and run.error.split(":")[0] in ROOT_CAUSES), None)


def _written(points):
    """The points the self-check does not grade: written answers, graded by hand."""
    if not points:
        return ""
    return _(" (+{points:g} written answer, graded by your instructor)").format(points=points)


def _not_measured(report):
    """The headline's word on the points of tests this machine could not measure (``Kind.NOT_MEASURED``)."""
    points = sum(test.max_score for test in report.tests if test.kind is Kind.NOT_MEASURED)
    if not points:
        return ""
    return _("; {points:g} point(s) could not be measured on this machine").format(points=points)


def report_text(exercise, report, path):
    """The report, as lines, in the report's language: the score, each test, and the cells that raised.

    A syntax error or a failed import comes first, as the cause: the tests
    that then fail because a function is not defined say so in a few words.
    """
    from .checks import learner_error
    with i18n.language(report.language):
        written = exercise.source.manual_points
        lines = [_("{assignment} ({path}): {score:g} / {max_score:g} points{written}").format(
            assignment=report.assignment, path=path, score=report.score, max_score=report.max_score,
            written=_written(written)) + _not_measured(report)]
        cause = _root_cause(report)
        # The cells that then failed only because a name the broken cell defines is missing.
        follow = [run for run in report.cells if cause and run.index > cause.index and run.error
                  and run.error.startswith("NameError")]
        if cause:
            after = (_("; {count} later cell(s) failed for lack of what it defines").format(count=len(follow))
                     if follow else "")
            lines.append("  " + _("FIRST FIX THIS: the cell starting `{line}` raised {error}{after}").format(
                line=cause.first_line, error=learner_error(cause.error), after=after))
        width = max((len(t.grade_id) for t in report.tests), default=0)
        # A test this machine could not measure is neither passed nor failed: it has its own mark.
        marks = {Kind.PASSED: _("PASS"), Kind.NOT_MEASURED: _("NOT MEASURED")}
        shown = [marks.get(test.kind, _("FAIL")) for test in report.tests]
        mark_width = max(map(i18n.display_width, [marks[Kind.PASSED], _("FAIL"), *shown]))
        for test, shown_mark in zip(report.tests, shown):
            mark = i18n.ljust(shown_mark, mark_width)
            message = test.message
            if cause and any(text in message for text in _UNDEFINED):
                message = _("not defined: see FIRST FIX THIS above")
            line = f"  {mark}  {test.grade_id:<{width}}  {test.score:g}/{test.max_score:g}"
            lines.append(line + (f"  {message}" if message else ""))
        for run in report.cells:
            if run.error and run is not cause and run not in follow:
                lines.append("  " + _("note: the cell starting `{line}` raised {error}").format(
                    line=run.first_line, error=learner_error(run.error)))
        lines = [i18n.tidy(line) for line in lines]
    # Each line quotes the submission (messages, cell sources, the path): made safe for a terminal.
    return "\n".join(safe.terminal(line) for line in lines)


# --------------------------------------------------------------------------- inside a notebook
def _user_namespace():
    try:
        from IPython import get_ipython
    except ImportError:
        return {}
    shell = get_ipython()
    return getattr(shell, "user_ns", {}) if shell is not None else {}


def _existing(candidate):
    """``candidate`` (a path, maybe relative to the server's root) as an existing file, or None."""
    if not candidate:
        return None
    path = Path(str(candidate))
    for option in (path, Path.cwd() / path, Path.cwd() / path.name):
        if option.suffix == ".ipynb" and option.is_file():
            return option.resolve()
    return None


def _from_colab():
    """Colab keeps the notebook in the browser: ask it for the notebook as it is now."""
    if "google.colab" not in sys.modules:
        return None
    try:
        from google.colab import _message
        notebook = _message.blocking_request("get_ipynb", timeout_sec=30)["ipynb"]
    except Exception:
        return None
    folder = Path(tempfile.mkdtemp(prefix="attention-selfcheck-"))
    path = folder / "colab.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    return path


def find_this_notebook():
    """(path, how) of the notebook this kernel runs, or (None, None).

    JupyterLab and Notebook 7 (jupyter_server) name it in ``$JPY_SESSION_NAME``
    (ipykernel copies it to ``__session__``), VS Code in ``__vsc_ipynb_file__``;
    Colab hands over its current contents.
    """
    namespace = _user_namespace()
    for candidate in (namespace.get("__vsc_ipynb_file__"), namespace.get("__session__"),
                      os.environ.get("JPY_SESSION_NAME")):
        path = _existing(candidate)
        if path:
            return path, "saved"
    colab = _from_colab()
    if colab:
        return colab, "colab"
    # No front end names it: a batch run (nbgrader validate, nbclient, papermill);
    # the cell then grades nothing and costs nothing.
    return None, None


def _saved_notebook(path):
    """The saved notebook's JSON (for its metadata's language), or None when it cannot be read
    (the command then says why)."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None


def check_this_notebook(path=None, language=None):
    """Grade the notebook this cell is in (or ``path``) and print the self-check's report, in
    ``language`` (a code such as "ja"), else the saved notebook's metadata language, else the
    locale environment's, else English."""
    how = "saved"
    try:
        requested = None if language is None else i18n.require(language)
    except i18n.UnsupportedLanguage as error:
        _say(f"autograder: {error}")
        return
    if path is None:
        path, how = find_this_notebook()
        if path is None:
            with i18n.language(i18n.choose(requested)):
                _say(_("Could not tell which file this notebook is: call "
                       "check_this_notebook(\"name.ipynb\") with its path."))
            return
    path = Path(path)
    with i18n.language(i18n.choose(requested, _saved_notebook(path) if path.is_file() else None)):
        if how == "colab":
            _say(_("Graded this notebook as it is now in Colab."))
        elif path.is_file():
            saved = datetime.datetime.fromtimestamp(path.stat().st_mtime).strftime("%H:%M:%S")
            _say(_("Graded the copy saved at {saved} ({name}); "
                   "save first if you changed something since.").format(saved=saved, name=path.name))
    # The command line's own process: the learner's kernel state cannot change the grading.  It
    # reads the same metadata and environment; an explicit language is handed on.  Its output is
    # UTF-8 and read as such, whatever the kernel's locale says.
    command = [sys.executable, "-m", "autograder", "check", path.name] + (["--lang", requested] if requested else [])
    try:
        result = subprocess.run(command, cwd=path.parent, capture_output=True,
                                env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    except (OSError, ValueError) as error:   # a path the system cannot name, a folder gone
        with i18n.language(i18n.choose(requested)):
            _say(_("autograder: could not grade {notebook}: {error}").format(
                notebook=path.name, error=f"{type(error).__name__}: {error}"))
        return
    _say((result.stdout or result.stderr).decode("utf-8", errors="replace").rstrip())


def _say(text):
    """Print ``text`` line by line as this output can show it (``safe.terminal``): it may quote the
    notebook's file name, and what the command printed."""
    print("\n".join(safe.terminal(line) for line in text.split("\n")))
