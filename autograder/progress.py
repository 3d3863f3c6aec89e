"""A learner's progress across the exercises, kept beside the notebooks.

Each self-check (``python -m autograder check``, which the check cell runs) records its result in
``attention-progress.json`` in the notebook's folder: a small file the learner may delete (the
next self-check starts it again), never inside the notebook.  ``python -m autograder progress
[FOLDER]`` reads the records of FOLDER and of its subfolders and lists every exercise of the course:
its last score, the mistakes still named, and the next step.  Each self-check report ends with one
line of that progress (``summary_line``).  A record also counts the graded hints shown of each
mistake (``check --hint``, ``autograder.hints``), so that asking again gives the next one.

The file is the learner's own: it is read bounded, and whatever it holds that is not a record is
ignored; it never changes a grade.
"""
import contextlib
import datetime
import hashlib
import json
import math
import os
import shlex
import tempfile
from pathlib import Path

from .i18n import _
from .results import NOT_ATTEMPTED, Kind

FILE = "attention-progress.json"
MAX_BYTES = 1 << 20            # a record is about 200 bytes; a larger file is not one we wrote
MAX_FOLDERS = 200              # folders scanned by `progress` and by the summary line
MAX_NOTEBOOKS = 200            # notebooks opened by `progress` to find the exercises there
MAX_NOTEBOOK_BYTES = 20 << 20  # a larger file is not read (an exercise notebook is far smaller)
MAX_READ_BYTES = 64 << 20     # what `progress` reads in all to recognise renamed notebooks
MAX_HINT_RECORDS = 64          # mistakes whose hints are counted, per notebook (an exercise has at most 25)


def digest(path):
    """The SHA-256 of the sources of the notebook at ``path`` (does it still hold the code that was
    checked?): outputs and metadata aside, so that the check cell's own saved output changes nothing.
    None for what is not a regular notebook file of a bounded size."""
    path = Path(path)
    try:
        if not path.is_file() or path.stat().st_size > MAX_NOTEBOOK_BYTES:
            return None
        cells = json.loads(path.read_text(encoding="utf-8", errors="surrogateescape")).get("cells")
        sources = [cell.get("source") for cell in cells if isinstance(cell, dict)]
        return hashlib.sha256(json.dumps(sources, sort_keys=True).encode("utf-8", "surrogateescape")).hexdigest()
    except (OSError, ValueError, AttributeError, TypeError, RecursionError):
        return None


def _entries(folder):
    """{notebook file name: record} of ``folder``'s progress file; {} if it has none or it is not ours."""
    path = Path(folder) / FILE
    try:
        if not path.is_file() or path.stat().st_size > MAX_BYTES:
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    notebooks = data.get("notebooks") if isinstance(data, dict) else None
    if not isinstance(notebooks, dict):
        return {}
    return {name: entry for name, entry in notebooks.items() if _is_record(name, entry)}


def _is_record(name, entry):
    return (isinstance(name, str) and "/" not in name and "\\" not in name and isinstance(entry, dict)
            and isinstance(entry.get("assignment"), str) and isinstance(entry.get("checked"), str)
            and all(isinstance(entry.get(key), (int, float)) and not isinstance(entry.get(key), bool)
                    and math.isfinite(entry[key]) and abs(entry[key]) < 1e6 for key in ("score", "max_score"))
            and isinstance(entry.get("mistakes"), list) and all(isinstance(m, str) for m in entry["mistakes"]))


def record(notebook, report, full_marks, graded_digest):
    """Record ``report``, the self-check of the notebook file ``notebook`` whose sources had
    ``graded_digest`` when it was read (``digest``), in its folder's progress file (``full_marks``: did
    every test pass, ``selfcheck.full_marks``).  False when the folder cannot be written (the
    self-check is not changed by it)."""
    notebook = Path(notebook)
    mistakes = [finding for test in report.tests if not test.passed for finding in test.findings
                if finding != NOT_ATTEMPTED]
    entry = {"assignment": report.assignment, "score": report.score, "max_score": report.max_score,
             "mistakes": list(dict.fromkeys(mistakes)),
             "not_attempted": any(NOT_ATTEMPTED in test.findings for test in report.tests),
             "full_marks": full_marks,
             "checked": datetime.datetime.now().isoformat(timespec="seconds"), "sha256": graded_digest}
    with _locked(notebook.parent):   # two checks at once in one folder: neither loses the other's record
        entries = _entries(notebook.parent)
        seen = hints_seen(entries.get(notebook.name))
        # A mistake fixed starts again at its first hint; one merely hidden (a syntax error, a function
        # back to NotImplementedError, a time limit) is not fixed.
        entry["hints"] = seen if _inconclusive(report) else {key: n for key, n in seen.items() if key in mistakes}
        entries[notebook.name] = entry
        return _write(notebook.parent, entries)


def _inconclusive(report):
    """Could this self-check not tell whether a mistake is still there?"""
    from .selfcheck import first_fix
    return bool(first_fix(report)) or any(NOT_ATTEMPTED in test.findings or test.kind in (Kind.TIMEOUT, Kind.CRASHED)
                                          for test in report.tests)


@contextlib.contextmanager
def _locked(folder):
    """An exclusive lock on ``folder`` (flock on the folder itself, no file added) while its progress
    file is read and written; none where it cannot be taken."""
    try:
        handle = os.open(folder, os.O_RDONLY)
    except OSError:
        yield
        return
    try:
        import fcntl
        fcntl.flock(handle, fcntl.LOCK_EX)
    except (ImportError, OSError):
        pass
    try:
        yield
    finally:
        os.close(handle)   # releases the lock


def record_of(notebook):
    """The self-check record of the notebook file ``notebook``, or None."""
    notebook = Path(notebook)
    return _entries(notebook.parent).get(notebook.name)


def hints_seen(entry):
    """{mistake id: how many of its hints ``check --hint`` has shown} of a notebook's record (bounded:
    what is not a small count under a short id is dropped)."""
    hints = entry.get("hints") if isinstance(entry, dict) else None
    if not isinstance(hints, dict):
        return {}
    return {key: count for key, count in list(hints.items())[:MAX_HINT_RECORDS]
            if isinstance(key, str) and len(key) <= 80 and isinstance(count, int) and not isinstance(count, bool)
            and 0 < count <= 9}


def note_hint(notebook, mistake_id, shown):
    """Record that the hint numbered ``shown`` of ``mistake_id`` was shown for ``notebook`` (whose
    self-check was just recorded); False when there is no record to add it to or it cannot be written."""
    notebook = Path(notebook)
    with _locked(notebook.parent):
        entries = _entries(notebook.parent)
        if notebook.name not in entries:
            return False
        entries[notebook.name]["hints"] = {**hints_seen(entries[notebook.name]), mistake_id: shown}
        return _write(notebook.parent, entries)


def _write(folder, entries):
    """Write ``folder``'s progress file with ``entries``; False when the folder cannot be written."""
    # ASCII: a file name that is not valid Unicode (surrogate escapes) is written escaped, and read back
    text = json.dumps({"about": "the self-check's last result of each notebook here; delete it at will",
                       "notebooks": entries}, indent=1) + "\n"
    scratch = None
    try:   # written whole, then renamed: a reader never sees half a file
        handle, scratch = tempfile.mkstemp(dir=folder, prefix=".attention-progress-")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(scratch, Path(folder) / FILE)
    except (OSError, ValueError):
        if scratch:
            Path(scratch).unlink(missing_ok=True)
        return False
    return True


def _folders(root, depth):
    """``root`` and its subfolders down to ``depth`` levels (hidden ones skipped), at most MAX_FOLDERS."""
    found, level = [Path(root)], [Path(root)]
    for _level in range(depth):
        deeper = []
        for folder in level:
            deeper += _subfolders(folder, MAX_FOLDERS - len(found) - len(deeper))
        level = deeper
        found += level
    return found[:MAX_FOLDERS]


def _subfolders(folder, most=MAX_FOLDERS):
    """Up to ``most`` subfolders of ``folder``, hidden ones skipped (the first ones listed)."""
    found = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if len(found) >= most:
                    break
                if not entry.name.startswith(".") and entry.is_dir():
                    found.append(Path(folder) / entry.name)
    except OSError:
        return []
    return sorted(found)


def latest(folders):
    """{assignment: (notebook path, record)}: each exercise's most recent self-check in ``folders``, of a
    notebook still there."""
    best = {}
    for folder in dict.fromkeys(folders):
        for name, entry in _entries(folder).items():
            if not (folder / name).is_file():
                continue
            current = best.get(entry["assignment"])
            if current is None or entry["checked"] > current[1]["checked"]:
                best[entry["assignment"]] = (folder / name, entry)
    return best


def chapter_name(exercise):
    """How a learner finds ``exercise``'s page: "chapter 2" for a book chapter, else its page."""
    page = Path(exercise.chapter or "").name
    if page[:2].isdigit():
        return _("chapter {number}").format(number=int(page[:2]))
    return exercise.chapter or _("its chapter")


def _state(path, entry):
    """"full", "changed" (the notebook differs from the one checked, or is gone) or "partial"."""
    found = digest(path)
    if found is None or found != entry.get("sha256"):
        return "changed"
    return "full" if entry.get("full_marks") is True else "partial"


def _around(notebook):
    """The folders a self-check's progress line reads: the notebook's and the working folder, with
    their subfolders."""
    try:
        here = _folders(Path.cwd(), depth=1)
    except OSError:   # the working folder is gone
        here = []
    return _folders(Path(notebook).resolve().parent, depth=1) + here


def next_exercise(course, exercise, notebook):
    """The exercise to do after ``exercise``: the first after it not at full marks around ``notebook``
    (then the first before it), or None when every one is."""
    checked = latest(_around(notebook))
    done = {a for a, (path, entry) in checked.items() if _state(path, entry) == "full"} | {exercise.assignment}
    later = [e for e in course.exercises if e.number > exercise.number] + \
        [e for e in course.exercises if e.number < exercise.number]
    return next((e for e in later if e.assignment not in done), None)


def summary_line(course, notebook, exercise):
    """One line of progress for the end of a self-check report of ``exercise``: the exercises at full
    marks in the notebook's folder, the working folder and their subfolders, and the next one to do."""
    checked = latest(_around(notebook))
    done = [e for e in course.exercises if e.assignment in checked and _state(*checked[e.assignment]) == "full"]
    todo = [e for e in course.exercises if e not in done]
    # the exercise just checked until it has full marks, then the next one (the report's "Next:")
    following = exercise if exercise in todo else next_exercise(course, exercise, notebook)
    if not todo:
        return _("Progress: all {total} exercises at full marks. (python -m autograder progress lists them.)").format(
            total=len(course.exercises))
    return _("Progress: {done} of {total} exercises at full marks here; next: {next}. "
             "(python -m autograder progress lists them.)").format(
        done=len(done), total=len(course.exercises), next=(following or todo[0]).assignment)


def _found_notebooks(course, folders):
    """{assignment: path} of the course's exercises found as notebooks in ``folders``: by file name,
    then by their graded cells (a renamed copy)."""
    found = {}
    names = {exercise.notebook: exercise.assignment for exercise in course.exercises}
    candidates = sorted(p for folder in folders for p in _glob(folder))[:MAX_NOTEBOOKS]
    for path in candidates:
        if path.name in names:
            found.setdefault(names[path.name], path)
    for path, exercise in identified(course, [p for p in candidates if p.name not in names]):
        found.setdefault(exercise.assignment, path)
    return found


def identified(course, paths, budget=None):
    """(path, exercise) of the notebooks among ``paths`` that are exercises of ``course``, recognised
    by their graded cells, reading at most ``budget`` bytes in all (not only per file: 200 large
    notebooks are not read whole)."""
    from . import notebooks
    budget = MAX_READ_BYTES if budget is None else budget
    for path in paths:
        try:
            budget -= Path(path).stat().st_size
            if budget < 0:
                return
            exercise = course.identify(notebooks.read_notebook(path))
        except Exception:   # not a notebook of the course, unreadable: not an exercise found
            continue
        yield path, exercise


def _glob(folder):
    try:
        return [p for p in folder.glob("*.ipynb") if p.is_file() and p.stat().st_size <= MAX_NOTEBOOK_BYTES]
    except OSError:
        return []


def table(course, root):
    """The lines of ``python -m autograder progress ROOT``: one per exercise of ``course``."""
    folders = _folders(root, depth=2)
    checked = latest(folders)
    found = _found_notebooks(course, folders)
    width = max(len(e.assignment) for e in course.exercises)
    lines = [_("Exercises in {folder} and its subfolders (the self-check's last result of each):").format(
        folder=Path(root).resolve())]
    for exercise in course.exercises:
        name = exercise.assignment.ljust(width)
        if exercise.assignment in checked:
            path, entry = checked[exercise.assignment]
            score = f"{entry['score']:g}/{entry['max_score']:g}"
            state = _state(path, entry)
            where = _display(path, root)
            if state == "full":
                step = _("full marks ({notebook})").format(notebook=where)
            elif state == "changed":
                step = _("changed since its last check ({notebook}): run its self-check again").format(notebook=where)
            elif entry["mistakes"]:
                step = _("mistakes still named: {mistakes}; fix them, then run its self-check again ({notebook})").format(
                    mistakes=", ".join(entry["mistakes"]), notebook=where)
            elif entry.get("not_attempted"):
                step = _("not finished: some functions still raise NotImplementedError ({notebook})").format(
                    notebook=where)
            else:
                step = _("tests still failing: read its self-check report ({notebook})").format(notebook=where)
        elif exercise.assignment in found:
            score = "-"
            step = _("not checked yet: python -m autograder check {notebook}").format(
                notebook=shlex.quote(_display(found[exercise.assignment], root)))
        else:
            score = "-"
            step = _("missing: download {notebook} from the end of {chapter}").format(
                notebook=exercise.notebook, chapter=chapter_name(exercise))
        lines.append(f"  {name}  {score:>7}  {step}")
    return lines


def _display(path, root):
    try:
        return str(Path(path).resolve().relative_to(Path(root).resolve()))
    except ValueError:
        return str(path)

