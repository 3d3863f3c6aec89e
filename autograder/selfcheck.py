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
import shlex
import subprocess
import sys
import tempfile
import time
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
    language, reason = i18n.chosen(requested, submission)
    report = engine.run_tests(exercise, submission, limits or Limits(), draw=checks.self_check_draw(submission),
                              language=language)
    report.language_reason = reason
    return exercise, report


def _root_cause(report):
    """The first of the learner's cells that raised one of ``ROOT_CAUSES``, or None."""
    return next((run for run in report.cells
                 if run.error and run.error.split(":")[0] in ROOT_CAUSES), None)


def first_fix(report):
    """The line that names the cell to fix first (a syntax error, a failed import ...), or None."""
    from .checks import learner_error
    cause = _root_cause(report)
    if cause is None:
        return None
    follow = [run for run in report.cells if run.index > cause.index and run.error
              and run.error.startswith("NameError")]
    after = (_("; {count} later cell(s) failed for lack of what it defines").format(count=len(follow))
             if follow else "")
    return _("FIRST FIX THIS: the cell starting `{line}` raised {error}{after}").format(
        line=cause.first_line, error=learner_error(cause.error), after=after)


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
            lines.append("  " + first_fix(report))
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
        lines = [i18n.tidy(line) for line in lines + [i18n.language_line(report.language, report.language_reason)]]
    # Each line quotes the submission (messages, cell sources, the path): made safe for a terminal.
    return "\n".join(safe.terminal(line) for line in lines)


# --------------------------------------------------------------------------- after full marks
def full_marks(report):
    """Did every test pass?  A test this machine could not measure has not: nothing is said about it."""
    return report.max_score > 0 and all(test.passed for test in report.tests) and report.score >= report.max_score


def offers_reference(exercise):
    """May the self-check show the book library's implementation of ``exercise`` (after full marks)?"""
    return exercise.course.settings["reference_code"] == "after-full-marks" and exercise.chapter is not None


def after_full_marks(exercise, report, notebook):
    """The lines after a report with full marks: well done, the next exercise, the book's section that
    goes further, and (where the course offers it) how to see the book's implementation."""
    from .progress import chapter_name, next_exercise
    with i18n.language(report.language):
        lines = [_("Every test passes: well done.")]
        following = next_exercise(exercise.course, exercise, notebook)
        if following:
            lines.append(_("Next: exercise {assignment}, {notebook}, at the end of {chapter}.").format(
                assignment=following.assignment, notebook=following.notebook, chapter=chapter_name(following)))
        else:
            lines.append(_("That was the course's last exercise to do."))
        if exercise.further:
            lines.append(_("To go further: section {section} of the book.").format(section=exercise.further))
        if offers_reference(exercise):
            lines.append(_("To compare yours with the book's implementation: check_this_notebook(reference=True) "
                           "in the notebook, or python -m autograder check {notebook} --reference.").format(
                notebook=shlex.quote(str(notebook))))
        return [safe.terminal(i18n.tidy(line)) for line in lines]


def reference_code(exercise):
    """The source of the book library's functions that ``exercise`` asks for (NotebookError if there is none)."""
    import importlib
    import inspect
    try:
        module = importlib.import_module(exercise.library_module)
        functions = [getattr(module, name) for name in exercise.functions]
        code = "\n\n".join(inspect.getsource(function).rstrip() for function in functions)
    except Exception as error:
        raise notebooks.NotebookError(_("the book's implementation of {assignment} cannot be shown ({error})").format(
            assignment=exercise.assignment, error=type(error).__name__)) from None
    return f"# {exercise.library_module.replace('.', '/')}.py\n{code}"


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


def _from_server():
    """The notebook the Jupyter server now names for this kernel's session, or None.

    JupyterLab and Notebook 7 keep a session's path up to date through renames and moves;
    ``$JPY_SESSION_NAME`` holds the name the kernel started with.  The server is found in the
    runtime folder (``jpserver-*.json``, with its URL and token) and asked on the URL it listens on.
    """
    try:
        from ipykernel.connect import get_connection_file
        from jupyter_core.paths import jupyter_runtime_dir
        kernel_id = Path(get_connection_file()).stem.removeprefix("kernel-")
        servers = sorted(Path(jupyter_runtime_dir()).glob("jpserver-*.json"))
    except Exception:   # not an ipykernel kernel, no runtime folder
        return None
    import urllib.request
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))   # the token never goes to a proxy
    for info in servers[:8]:
        try:
            server = json.loads(info.read_text(encoding="utf-8"))
            if os.name == "posix":   # signal 0 tests that a server is alive (on Windows, os.kill terminates)
                os.kill(int(server["pid"]), 0)   # a server that is gone left its file behind: not asked
            request = urllib.request.Request(server["url"].rstrip("/") + "/api/sessions")
            if server.get("token"):
                request.add_header("Authorization", f"token {server['token']}")
            with direct.open(request, timeout=3) as response:
                sessions = json.loads(response.read(1 << 20))
            for session in sessions:
                if session.get("kernel", {}).get("id") == kernel_id:
                    path = Path(server["root_dir"]) / session["path"]
                    if path.suffix == ".ipynb" and path.is_file():
                        return path.resolve()
        except Exception:   # a server gone, one with a password, a malformed file: the next one
            continue
    return None


def find_this_notebook():
    """(path, how) of the notebook this kernel runs, or (None, None).

    VS Code names it in ``__vsc_ipynb_file__``; JupyterLab and Notebook 7 (jupyter_server) in the
    server's sessions, which follow renames and moves, and in ``$JPY_SESSION_NAME`` (ipykernel copies
    it to ``__session__``), which holds the name the kernel started with; Colab hands over its
    current contents.
    """
    namespace = _user_namespace()
    path = _existing(namespace.get("__vsc_ipynb_file__")) or _from_server()
    for candidate in (namespace.get("__session__"), os.environ.get("JPY_SESSION_NAME")):
        path = path or _existing(candidate)
    if path:
        return path, "saved"
    colab = _from_colab()
    if colab:
        return colab, "colab"
    # No front end names it: a batch run (nbgrader validate, nbclient, papermill);
    # the cell then grades nothing and costs nothing.
    return None, None


def _what_to_pass(options=""):
    """The message when no front end names the notebook: the call to make (with ``options``, the
    other arguments the learner gave, such as ``hint=True``), naming the file when the kernel's folder
    holds one notebook, or one notebook of an exercise whose functions this kernel defines."""
    started_as = _user_namespace().get("__session__") or os.environ.get("JPY_SESSION_NAME")
    try:
        folder = Path.cwd()
        here = sorted(p.name for p in folder.glob("*.ipynb"))
    except OSError:   # the kernel's folder is gone
        folder, here = Path("."), []
    lines = [_("Could not tell which file this notebook is: call check_this_notebook(\"name.ipynb\") with its "
               "path, relative to this kernel's folder {folder} or absolute.").format(folder=safe.quoted(str(folder)))]
    if started_as:
        lines.append(_("(The kernel started for {name}, which is not there now: renamed or moved?)").format(
            name=safe.quoted(Path(str(started_as)).name)))
    named = here if len(here) == 1 else _defined_here(folder, here)
    if named:
        lines.append(_("In a new cell: {calls}").format(calls=_(" or ").join(
            "check_this_notebook({name}{options})".format(
                name=json.dumps(name, ensure_ascii=not name.isprintable()), options=options)
            for name in named[:MAX_NAMED])))
    return "\n".join(lines)


MAX_NAMED = 3                 # notebooks a message names
MAX_READ_BYTES = 32 << 20     # what the message reads in all to tell the kernel's notebooks


def _defined_here(folder, names):
    """The notebooks among ``names`` in ``folder`` that are exercises whose functions this kernel defines
    (read within a total budget, ``progress.identified``; [] when none is)."""
    from .course import default_course
    from .progress import identified
    namespace = _user_namespace()
    try:
        course = default_course()
    except Exception:
        return []
    return [path.name for path, exercise in identified(course, [folder / name for name in names[:50]],
                                                        budget=MAX_READ_BYTES)
            if exercise.functions and all(callable(namespace.get(f)) for f in exercise.functions)]


# --------------------------------------------------------------------------- work run but not saved
_SAID_UNSAVED = {}   # path -> the file's mtime when this kernel said it had changes not saved
_RAN_AT = {}         # normalised cell source -> when it last started, for the cells run since the first check


def _watch_runs():
    """From the first check on, note when each cell starts (IPython's pre_run_cell event): a later check
    then tells code run after the last save from code changed and saved after it ran."""
    global _WATCHED
    try:
        from IPython import get_ipython
        shell = get_ipython()
        if shell is None or shell is _WATCHED:
            return
        _RAN_AT.clear()   # a new shell (a test's): the runs of another one say nothing about it
        shell.events.register("pre_run_cell", lambda info: _RAN_AT.__setitem__(_normalised(info.raw_cell),
                                                                                  time.time()))
        _WATCHED = shell
    except Exception:   # no IPython events: the check falls back to the order of the history
        return


_WATCHED = None   # the shell whose runs _RAN_AT times


def _normalised(source):
    return notebooks.normalised_code(str(source))


def _defined(source, shell):
    """Names the cell ``source`` defines at its top level (functions and classes), or none if it
    does not parse (IPython's magics are transformed first)."""
    import ast
    try:
        tree = ast.parse(shell.transform_cell(source) if shell is not None else source)
    except Exception:   # SyntaxError, and whatever a transformer raises on odd input
        return set()
    return {node.name for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def _kernel_history():
    """(shell, the cells this kernel ran in order, when its session started) or (None, [], None)."""
    try:
        from IPython import get_ipython
        shell = get_ipython()
        history = shell.history_manager
    except Exception:
        return None, [], None
    try:
        started = history.get_session_info()[1]
    except Exception:   # history kept in no database
        started = None
    return shell, list(history.input_hist_raw[1:]), started


def _text(source):
    """A cell's source as the file holds it (a string, or a list of strings), as text."""
    if isinstance(source, list):
        return "".join(part for part in source if isinstance(part, str))
    return source if isinstance(source, str) else ""


def unsaved_work(path):
    """What the kernel ran that the saved notebook at ``path`` does not hold: (names, certain).

    ``names`` are the functions and classes whose latest definition run in this kernel is in none
    of the saved file's cells.  That is either work run but not saved, or a cell changed and saved
    but not run since; ``certain`` is True when it must be the first: the saved version ran before
    the latest one, or the file was saved before the kernel started.
    """
    shell, ran, started = _kernel_history()
    notebook = _saved_notebook(path)
    if not ran or not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        return [], False
    saved = [_normalised(_text(cell.get("source", "")))
             for cell in notebook["cells"] if isinstance(cell, dict) and cell.get("cell_type") == "code"]
    saved_defines = [(source, _defined(source, shell)) for source in saved]   # each cell parsed once
    saved_names = set().union(*(names for _source, names in saved_defines))
    ran_sources = [_normalised(source) for source in ran]
    latest = {}   # name -> (index in ran, source) of the last cell run that defines it
    for index, source in enumerate(ran_sources):
        for name in _defined(source, shell) & saved_names:
            latest[name] = (index, source)
    names = sorted(name for name, (_index, source) in latest.items() if source not in saved)

    def saved_version_ran_first(name):
        before = ran_sources[:latest[name][0]]
        return any(source in before for source, defines in saved_defines if name in defines)

    try:
        saved_at = Path(path).stat().st_mtime
    except OSError:
        return names, False
    # Code whose run this kernel timed: saved after it ran, the file holds the learner's later word.
    names = [name for name in names if _RAN_AT.get(latest[name][1], float("inf")) > saved_at]
    said = _SAID_UNSAVED.get(str(path))
    # Saved since we said so, and still not holding it: the saved file is the learner's latest word.
    if said is not None and said != saved_at:
        return names, False
    certain = any(saved_version_ran_first(name) or latest[name][1] in _RAN_AT for name in names) or bool(
        names and started and datetime.datetime.fromtimestamp(saved_at) < started)
    if certain:
        _SAID_UNSAVED[str(path)] = saved_at
    return names, certain


def _saved_notebook(path):
    """The saved notebook's JSON (for its metadata's language), or None when it cannot be read
    (the command then says why)."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None


def check_this_notebook(path=None, language=None, reference=False, hint=False):
    """Grade the notebook this cell is in (or ``path``) and print the self-check's report, in
    ``language`` (a code such as "ja"), else the saved notebook's metadata language, else the
    locale environment's, else English; with ``reference``, and full marks, the book's implementation
    after it (where the course offers it); with ``hint``, instead of the report, the next graded hint
    about the first mistake found (``autograder.hints``)."""
    how, named = "saved", path is not None   # a path given by hand may not be the file this kernel ran
    _watch_runs()
    try:
        requested = None if language is None else i18n.require(language)
    except i18n.UnsupportedLanguage as error:
        _say(f"autograder: {error}")
        return
    if path is None:
        path, how = find_this_notebook()
        if path is None:
            given = [f"language={json.dumps(requested)}"] * bool(requested) + ["reference=True"] * bool(reference) \
                + ["hint=True"] * bool(hint)
            with i18n.language(i18n.choose(requested)):
                _say(_what_to_pass("".join(", " + g for g in given)))
            return
    path = Path(path)
    with i18n.language(i18n.choose(requested, _saved_notebook(path) if path.is_file() else None)):
        if how == "colab":
            _say(_("Graded this notebook as it is now in Colab."))
        elif path.is_file():
            names, certain = unsaved_work(path) if not named else ([], False)
            if names:   # never grade a stale file as if it were the latest work
                shown = ", ".join(f"`{name}`" for name in names)
                _say(_("Your notebook has changes that are not saved: save (Ctrl+S), then run this cell again. "
                       "(This kernel ran code for {names} that the saved file does not hold.)").format(names=shown)
                     if certain else
                     _("The code this kernel last ran for {names} is not in the saved notebook: save (Ctrl+S); if "
                       "you changed a cell since it ran, run it; then run this cell again.").format(names=shown))
                return
            saved = datetime.datetime.fromtimestamp(path.stat().st_mtime).strftime("%H:%M:%S")
            _say(_("Graded the copy saved at {saved} ({name}); "
                   "save first if you changed something since.").format(saved=saved, name=path.name))
    # The command line's own process: the learner's kernel state cannot change the grading.  It
    # reads the same metadata and environment; an explicit language is handed on.  Its output is
    # UTF-8 and read as such, whatever the kernel's locale says.
    command = ([sys.executable, "-m", "autograder", "check", path.name] + (["--lang", requested] if requested else [])
               + (["--reference"] if reference else []) + (["--hint"] if hint else []))
    try:
        result = subprocess.run(command, cwd=path.parent, capture_output=True,
                                env={**os.environ, "PYTHONIOENCODING": "utf-8"})
    except (OSError, ValueError) as error:   # a path the system cannot name, a folder gone
        with i18n.language(i18n.choose(requested)):
            _say(_("autograder: could not grade {notebook}: {error}").format(
                notebook=path.name, error=f"{type(error).__name__}: {error}"))
        return
    _say("\n".join(part.decode("utf-8", errors="replace").rstrip() for part in (result.stdout, result.stderr)
                   if part.strip()))


def _say(text):
    """Print ``text`` line by line as this output can show it (``safe.terminal``): it may quote the
    notebook's file name, and what the command printed."""
    print("\n".join(safe.terminal(line) for line in text.split("\n")))
