"""Grade a whole class for one assignment, in parallel: ``python -m autograder grade ASSIGNMENT``.

Each worker process is started once (nbgrader, NumPy and the gradebook
connection are loaded once, not per submission) and then runs nbgrader's own
autograde step for one student after another, which calls the sandboxed
engine (``preprocessors.SandboxedExecute``) and writes the gradebook.  So the
grades are exactly those of ``nbgrader autograde``, only computed side by side.

Around it:

* every submission is checked first; one that cannot be graded (invalid JSON,
  an empty file, another nbformat, a renamed or missing notebook) is reported
  with a one-line reason, scores 0 in the gradebook, and never stops the run;
  deleted or edited test cells, timeouts and crashed processes are reported too;
* a journal (``autograder/grading-log/ASSIGNMENT.jsonl``) records each finished
  student, so a run stopped by SIGTERM or Ctrl-C resumes where it stopped, and a
  submission is graded again only when it, the hidden checks (source notebook or
  catalogue) or the gradebook changed (``--force`` grades everyone again).

The steps, one function each: ``select_submissions`` (which students),
``plan`` (journal and inspection), ``run`` (the pool of nbgrader workers);
``grade_class`` chains them and keeps the journal.
"""
import copy
import dataclasses
import hashlib
import inspect as _inspect
import json
import multiprocessing
import os
import re
import signal
import sys
import warnings
from pathlib import Path

from . import course as courses
from . import course_secret, gradebooks, late, notebooks, safe
from .results import Kind


class Interrupted(Exception):
    """SIGTERM or Ctrl-C during a class run."""


@dataclasses.dataclass
class Outcome:
    student: str
    graded: bool                 # nbgrader autograded it (False: it could not be read)
    score: float = 0.0
    max_score: float = 0.0
    problems: list = dataclasses.field(default_factory=list)   # one-line reasons
    record: str = ""             # digest of the automatic scores the gradebook held (see ``_record``)
    by_hand: float = 0.0         # points of written answers that await the instructor's grading
    late_penalty: float = 0.0    # the gradebook's late penalty (autograder/late.py), not taken off ``score``

    @property
    def line(self):
        return "; ".join(self.problems)


@dataclasses.dataclass
class Task:
    """One student's submission, inspected, waiting to be graded."""
    student: str
    key: str                     # what the journal compares to decide that it is already graded
    gradable: bool
    problems: list


# --------------------------------------------------------------------------- inspection
def _digest(parts):
    digest = hashlib.sha256()
    for name, data in sorted(parts):
        digest.update(name.encode() + b"\0" + data + b"\0")
    return digest.hexdigest()


GRADER = Path(__file__).resolve().parent   # the autograder package: engine, sandbox, catalogues, messages


def grader_fingerprint(exercise):
    """A digest of the grader's code: every module and message catalogue of the package, the exercise's
    catalogue wherever it lives, and the versions of the libraries that compute and score."""
    import platform
    from importlib.metadata import version
    files = {path for pattern in ("*.py", "*.mo") for path in GRADER.rglob(pattern)
             if "__pycache__" not in path.parts and "course_data" not in path.parts}
    catalogue = Path(_inspect.getfile(exercise.catalogue)).resolve()
    files.add(catalogue)
    if (catalogue.parent / "__init__.py").is_file():   # its package: modules it imports only when a check runs
        files |= {path for path in catalogue.parent.rglob("*.py") if "__pycache__" not in path.parts}
    files |= _loaded_course_modules()
    parts = [(str(path), path.read_bytes()) for path in sorted(files)]
    versions = {name: version(name) for name in ("numpy", "nbgrader", "nbformat")}
    return _digest(parts + [("versions", json.dumps({**versions, "python": platform.python_version()}).encode())])


def _loaded_course_modules():
    """The files of every loaded module that is not part of the Python installation: the exercise's
    catalogue and whatever it imports (a fork's own helper modules included)."""
    import sysconfig
    installed = {Path(path).resolve() for name, path in sysconfig.get_paths().items()
                 if name in ("stdlib", "platstdlib", "purelib", "platlib")}
    installed |= {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()}
    found = set()
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if isinstance(name, str) and name.endswith(".py"):
            path = Path(name).resolve()
            if path.is_file() and not any(path.is_relative_to(root) for root in installed):
                found.add(path)
    return found


def released_record(gradebook, exercise):
    """What the gradebook holds of the assignment as released (None when it holds none): every graded
    cell's points and every test cell's source, as ``nbgrader generate_assignment`` recorded them."""
    from nbgrader.api import MissingEntry
    try:
        notebook = gradebook.find_notebook(exercise.source.name, exercise.assignment)
    except MissingEntry:
        return None
    points = {cell.name: float(cell.max_score) for cell in notebook.grade_cells}
    sources = {cell.name: cell.source for cell in notebook.source_cells if cell.name in points}
    return points, sources


def source_record(exercise):
    """The same for the source notebook as it is now: (points of each graded cell, source of each test cell)."""
    points, sources = {}, {}
    for cell in exercise.source.notebook.cells:
        meta = notebooks.meta(cell)
        if meta.get("grade"):
            points[meta["grade_id"]] = float(meta.get("points", 0))
            if not meta.get("solution"):    # a test cell; a written answer is released cleared
                sources[meta["grade_id"]] = cell.source
    return points, sources


def unreleased_changes(gradebook, exercise):
    """How the source notebook differs from the release the gradebook holds: one phrase per cell."""
    released = released_record(gradebook, exercise)
    return [] if released is None else _differences(released, source_record(exercise))


def _differences(released, current):
    """One phrase per graded cell whose points or tests differ between two (points, test sources)."""
    (old_points, old_sources), (new_points, new_sources) = released, current
    changes = [f"{name} is not in the release" for name in sorted(set(new_points) - set(old_points))]
    changes += [f"{name} was removed from the source" for name in sorted(set(old_points) - set(new_points))]
    for name in sorted(set(old_points) & set(new_points)):
        if old_points[name] != new_points[name]:
            changes.append(f"{name} is worth {new_points[name]:g} points, released with {old_points[name]:g}")
        elif name in new_sources and old_sources.get(name) != new_sources[name]:
            changes.append(f"{name} has other tests than released")
    return changes


MAX_NOTEBOOK_BYTES = 32 << 20   # a submitted notebook larger than this is not read


def inspect(submitted, source):
    """(gradable, problems) for one student's submission folder, against the exercise's source notebook.

    Never raises: whatever goes wrong while reading or inspecting the submission
    (any exception, a recursion too deep, memory) becomes its one-line reason,
    and the submission scores 0.
    """
    try:
        return _inspect_submission(submitted, source)
    except Exception as error:  # RecursionError, MemoryError, a type nobody expected ...
        detail = (str(error).strip().splitlines() or [""])[0][:200]
        return False, [f"could not be inspected ({type(error).__name__}{': ' + detail if detail else ''}; graded 0)"]


def _inspect_submission(submitted, source):
    problems = []
    present = {p.name: p for p in submitted.glob("*.ipynb")}
    name = f"{source.name}.ipynb"
    strangers = sorted(set(present) - {name})
    if name not in present:
        if strangers:
            problems.append(f"renamed notebook: found {', '.join(safe.quoted(s) for s in strangers)}, "
                            f"expected {name} (graded 0; rename the file and grade again)")
        else:
            problems.append(f"missing notebook {name} (graded 0)")
        return False, problems
    size = present[name].stat().st_size
    if size > MAX_NOTEBOOK_BYTES:
        problems.append(f"{name}: {size / 2**20:.0f} MiB, larger than the {MAX_NOTEBOOK_BYTES >> 20} MiB "
                        "a notebook may have (graded 0)")
        return False, problems
    try:
        submission = notebooks.read_notebook(present[name])
    except notebooks.NotebookError as error:
        problems.append(str(error).replace(str(present[name]), name))
        return False, problems
    except RecursionError:
        problems.append(f"{name}: nested too deeply to be a notebook (graded 0)")
        return False, problems
    for index, cell in enumerate(submission.cells):
        metadata = cell.get("metadata")
        if not isinstance(metadata, dict) or not isinstance(metadata.get("nbgrader", {}), dict):
            problems.append(f"{name}: cell {index + 1} has nbgrader metadata that is not a dictionary "
                            "(graded 0; restore the cell from the release)")
            return False, problems
        if not isinstance(cell.get("source"), str):
            problems.append(f"{name}: cell {index + 1} has a source that is not text (graded 0)")
            return False, problems
    cells = {}
    for cell in submission.cells:
        if notebooks.is_test_cell(cell):
            grade_id = notebooks.meta(cell).get("grade_id")
            cells[grade_id if isinstance(grade_id, str) else repr(grade_id)] = cell
    for test in source.tests:
        if test.grade_id not in cells:
            problems.append(f"{name}: test cell {test.grade_id} was deleted (the original was graded)")
        elif cells[test.grade_id].source.strip() != _visible_part(test.source):
            problems.append(f"{name}: test cell {test.grade_id} was edited (the original was graded)")
    return True, problems


def _visible_part(test_source):
    """What the release shows of a test cell: the source without its hidden-tests block."""
    lines, hidden = [], False
    for line in test_source.splitlines():   # nbgrader's rule (ClearHiddenTests): a line containing the marker
        if "BEGIN HIDDEN TESTS" in line:
            hidden = True
        elif "END HIDDEN TESTS" in line:
            hidden = False
        elif not hidden:
            lines.append(line)
    return "\n".join(lines).strip()


def engine_problems(autograded_dir):
    """Errors, timeouts and crashed processes, read back from the autograded notebooks' error outputs:
    the learner's solution cells stopped by an error (a SyntaxError, an import the course lacks ...) or past
    their time (named as a timed-out test's error; such a cell scores nothing itself, so a full score
    can hide one), then the test cells' timeouts and crashes."""
    problems = []
    for path in sorted(autograded_dir.glob("*.ipynb")):
        try:
            cells = notebooks.read_notebook(path).cells
        except notebooks.NotebookError:
            cells = []
        timeout = Kind.TIMEOUT.error_name
        for number, cell in enumerate(cells, start=1):
            if cell.get("cell_type") == "code" and not notebooks.is_test_cell(cell):
                for output in cell.get("outputs", []):
                    if output.get("output_type") != "error":
                        continue
                    if output.get("ename") == timeout:
                        problems.append(f"{path.name}: {Kind.TIMEOUT.value} in cell {number}: "
                                        + str(output.get("evalue", "")).removeprefix(f"{timeout}: "))
                    elif notebooks.meta(cell).get("solution"):   # her definitions stopped (a "try it" cell's
                        # error is her answer, graded by the tests); the type as raised, quoted (a class may be
                        # named anything)
                        problems.append(f"{path.name}: cell {number} stopped with an error, "
                                        f"{safe.quoted(str(output.get('ename', ''))[:80])}")
        for grade_id, ename, message in notebooks.test_cell_errors(path):
            kind = Kind.from_error_name(ename)
            if kind in (Kind.TIMEOUT, Kind.CRASHED):
                problems.append(f"{path.name}: {kind.value} in {grade_id}: {message}")
    return problems[:3] + ([f"... and {len(problems) - 3} more"] if len(problems) > 3 else [])


# --------------------------------------------------------------------------- the workers
_API = None


def _start_worker(config):
    """Runs once in each worker process."""
    global _API
    from nbgrader.apps import NbGraderAPI
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C goes to the parent, which decides
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's handler must not be inherited
    warnings.simplefilter("ignore")  # nbgrader 0.9 on SQLAlchemy 2 warns about its own autoflush
    _API = NbGraderAPI(coursedir=courses.coursedir(config), config=config)


# What nbgrader says when the real message is elsewhere (in its log, or in the traceback above it).
_BOILERPLATE = ("see the the above traceback", "see the above traceback", "there was an error processing",
                "removing failed", "nbgraderexception", "traceback (most recent call last)")


_EXCEPTION_LINE = re.compile(r"^\s*([A-Za-z_][\w.]*(?:Error|Exception|Entry)): \S")


def nbgrader_error(result):
    """The one line that says why nbgrader failed, from an NbGraderAPI result: an error it logged, else the
    last exception in the tracebacks it logged or raised; never its "see the above traceback"."""
    log = (result.get("log") or "").splitlines()
    logged = [line.split("] ", 1)[-1] for line in log if line.startswith(("[ERROR]", "[CRITICAL]"))]
    raised = [line for line in log + (result.get("error") or "").splitlines() if _EXCEPTION_LINE.match(line)]
    for line in logged + raised[::-1]:
        if not any(words in line.lower() for words in _BOILERPLATE):
            return line.strip()[:300]
    return "nbgrader autograde failed without saying why"


def _autograde(assignment, student):
    try:
        result = _API.autograde(assignment, student, force=True, create=True)
    except Exception as error:  # one submission's failure is its own, never the run's
        return student, (f"{type(error).__name__}: {error}".splitlines() or ["nbgrader autograde failed"])[0][:300]
    return student, (None if result.get("success") else nbgrader_error(result))


# --------------------------------------------------------------------------- the gradebook
def _submission(gradebook, assignment, student):
    """The student's submission in the gradebook, or None when there is none."""
    from nbgrader.api import MissingEntry
    try:
        return gradebook.find_submission(assignment, student)
    except MissingEntry:
        return None


def _scores(gradebook, assignment, student):
    """(score, max_score) of the student's submission in the gradebook, or None when there is none."""
    submission = _submission(gradebook, assignment, student)
    return None if submission is None else (float(submission.score), float(submission.max_score))


def _outcome(gradebook, assignment, student, graded, problems):
    """The Outcome of one student, with the scores the gradebook holds (never a guess)."""
    submission = _submission(gradebook, assignment, student)
    if submission is None:
        return Outcome(student, False, 0.0, 0.0, problems + ["the gradebook holds no submission"])
    return Outcome(student, graded, float(submission.score), float(submission.max_score), problems,
                   _record(submission), _awaiting(submission) if graded else 0.0,
                   float(submission.late_submission_penalty or 0.0))


def _awaiting(submission):
    """Points of the student's answers nobody has scored yet (the feedback's rule: feedback.awaits_grading)."""
    from .feedback import awaits_grading
    return float(sum(grade.max_score for notebook in submission.notebooks for grade in notebook.grades
                     if awaits_grading(grade)))


def _record(submission):
    """A digest of what the autograder put in the gradebook for the submission: each grade's automatic
    score and points, and the late penalty.  A journal entry is replayed only while the gradebook
    still holds exactly this (nbgrader autograde, or any other writer, may have changed it since);
    manual scores are not in it: a regrade keeps them."""
    grades = sorted((notebook.name, grade.name, grade.auto_score, grade.max_score)
                    for notebook in submission.notebooks for grade in notebook.grades)
    return _digest([("grades", json.dumps([grades, submission.late_submission_penalty]).encode())])


class GradebookMismatch(Exception):
    """What the run reports as graded is not what the gradebook holds."""


def verify(course, exercise, outcomes):
    """Read every graded outcome back from the gradebook: its submission must be there, with a score
    for each of the exercise's test cells and the score the summary prints; else GradebookMismatch."""
    from nbgrader.api import Gradebook, MissingEntry
    tests = {test.grade_id for test in exercise.source.tests}
    wrong = []
    with Gradebook(course.gradebook_url) as gradebook:
        for outcome in outcomes:
            if not outcome.graded:
                continue
            try:
                submission = gradebook.find_submission(exercise.assignment, outcome.student)
                notebook = submission.notebooks[0] if submission.notebooks else None
                scored = {g.name for g in (notebook.grades if notebook else []) if g.auto_score is not None}
            except MissingEntry:
                wrong.append(f"{outcome.student} (no submission)")
                continue
            if not tests <= scored:
                wrong.append(f"{outcome.student} (no score for {', '.join(sorted(tests - scored))})")
            elif abs(float(submission.score) - outcome.score) > 1e-9:
                wrong.append(f"{outcome.student} (summary {outcome.score:g}, gradebook {submission.score:g})")
    if wrong:
        raise GradebookMismatch(f"{len(wrong)} submission(s) reported graded are not in the gradebook "
                                f"{safe.url_without_password(course.gradebook_url)} as reported: {', '.join(wrong[:5])}"
                                + (" ..." if len(wrong) > 5 else ""))


def create_schema(course):
    """Open the gradebook once, so that nbgrader creates its tables (racing graders: see
    ``course_secret.despite_racing_creators``)."""
    from nbgrader.api import Gradebook

    def open_once():
        with Gradebook(course.gradebook_url):
            pass
    course_secret.despite_racing_creators(open_once)


def _has_assignment(course, exercise):
    from nbgrader.api import Gradebook, MissingEntry
    with Gradebook(course.gradebook_url) as gradebook:
        try:
            return bool(gradebook.find_assignment(exercise.assignment).notebooks)
        except MissingEntry:
            return False


def ensure_assignment(course, config, exercise, out=sys.stdout):
    """Add the assignment to the gradebook from its source notebook when the gradebook lacks it (a new
    PostgreSQL gradebook; a release that was committed, so generate_assignment never ran here).

    This is what ``nbgrader generate_assignment`` records in the gradebook (the notebook, its grade and
    source cells); the release it writes goes to a scratch folder, so exercises/ is not touched.
    """
    import tempfile
    from nbgrader.apps import NbGraderAPI
    from traitlets.config import Config
    if _has_assignment(course, exercise):
        return False
    with tempfile.TemporaryDirectory(prefix="attention-release-") as scratch, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scratch_config = copy.deepcopy(config)   # the run's own config keeps its release folder
        scratch_config.merge(Config({"CourseDirectory": {"release_directory": scratch}}))
        api = NbGraderAPI(coursedir=courses.coursedir(scratch_config), config=scratch_config)
        result = api.generate_assignment(exercise.assignment, force=True, create=True)
    if not result.get("success") and not _has_assignment(course, exercise):   # else another grader added it
        raise notebooks.NotebookError(
            f"{exercise.assignment} is not in the gradebook and could not be added from "
            f"{exercise.source_path}: {nbgrader_error(result)} (run `nbgrader generate_assignment "
            f"{exercise.assignment}` from autograder/ to see why)")
    print(f"the gradebook had no notebook of {exercise.assignment}: added it from {exercise.source_path} "
          f"(as nbgrader generate_assignment does; a due date already set is kept)", file=out)
    return True


def _record_unreadable(gradebook, assignment, student):
    """A submission nbgrader cannot read still appears in the gradebook, with 0."""
    from nbgrader.api import MissingEntry
    try:
        gradebook.find_submission(assignment, student)
    except MissingEntry:
        with warnings.catch_warnings():  # nbgrader 0.9 on SQLAlchemy 2 warns about its own autoflush
            warnings.simplefilter("ignore")
            gradebook.add_submission(assignment, student)


# --------------------------------------------------------------------------- the run, step by step
def _shard(names, shard):
    """The K-th of N shares ("K/N", K from 1) of the sorted names: disjoint, and together all."""
    try:
        k, n = (int(part) for part in shard.split("/"))
        assert 1 <= k <= n
    except (ValueError, AssertionError):
        raise notebooks.NotebookError(f"--shard takes K/N with 1 <= K <= N, not {shard!r}") from None
    return [name for index, name in enumerate(sorted(names)) if index % n == k - 1]


def select_submissions(course, assignment, students=None, shard=None):
    """{student: submitted folder} of the assignment, narrowed to ``students`` and to a shard."""
    folders = {p.parent.name: p for p in sorted(course.submitted.glob(f"*/{assignment}")) if p.is_dir()}
    if students:
        folders = {s: f for s, f in folders.items() if s in set(students)}
    if shard:
        folders = {s: folders[s] for s in _shard(folders, shard)}
    return folders


def _file_digests(folder):
    """(name, digest) of each notebook of a submission folder, and of its timestamp (late penalties
    follow it), read in chunks whatever its size."""
    parts = []
    for path in sorted(folder.glob("*.ipynb")) + sorted(folder.glob("timestamp.txt")):
        try:
            with open(path, "rb") as handle:
                parts.append((path.name, hashlib.file_digest(handle, "sha256").digest()))
        except OSError as error:  # a folder named *.ipynb, a file that cannot be read: inspect says why
            parts.append((path.name, f"unreadable {type(error).__name__} {os.urandom(8).hex()}".encode()))
    return parts


def journal_path(course, assignment):
    return course.grading_log / f"{assignment}.jsonl"


def memory_method(limits):
    """How the peak memory of learner code is measured here: by a memory cgroup (v1 or v2), or not at all
    (then ``check_reference`` refuses an assignment that bounds memory), by the workers' own rule
    (``sandbox.count_out_of_reach``)."""
    from .sandbox import MemoryCgroup, count_out_of_reach, sandbox_available
    group = MemoryCgroup.create(limits.tree_memory_bytes)
    if group is not None:
        group.remove()
    return f"cgroup v{group.version}" if count_out_of_reach(group, sandbox_available()) else "not measured"


def grading_key(course, exercise, config, gradebook):
    """Everything that decides a grade but the submission: the release the gradebook holds (points,
    hidden tests), the source notebook, the grader's code, the limits, the sandbox and how memory is
    measured, the course's secret and the gradebook itself.  A journal entry is replayed only under
    the same key."""
    from .preprocessors import SandboxedExecute
    from .sandbox import sandbox_available
    from . import course_secret
    from nbgrader.api import MissingEntry
    limits = SandboxedExecute(config=config).limits()
    try:
        due = gradebook.find_assignment(exercise.assignment).duedate
    except MissingEntry:
        due = None
    late = {section: {name: repr(value) for name, value in sorted(config.get(section, {}).items())}
            for section in ("AssignLatePenalties", "LateSubmissionPlugin")}
    setting = {"limits": dataclasses.asdict(limits), "bubblewrap": sandbox_available(),
               "memory": memory_method(limits), "secret": course_secret.fingerprint_in_force(course),
               "gradebook": course.gradebook_url, "due": str(due), "late": late}
    return _digest([("released", json.dumps(released_record(gradebook, exercise), sort_keys=True).encode()),
                    ("source", exercise.source_path.read_bytes()), ("grader", grader_fingerprint(exercise).encode()),
                    ("setting", json.dumps(setting, sort_keys=True).encode())])


def plan(course, exercise, folders, *, config, force=False):
    """(outcomes already in the journal, Tasks to grade): unchanged submissions are not graded again.

    A submission's key covers its notebooks and ``grading_key``, so a change to anything that decides
    its grade regrades it.  A journal entry is replayed only when it was graded without an nbgrader
    error and the gradebook still holds that submission with the automatic scores it was given then
    (``_record``): a failure is always tried again.
    """
    from nbgrader.api import Gradebook
    done = {} if force else _read_journal(journal_path(course, exercise.assignment))
    outcomes, tasks = [], []
    with Gradebook(course.gradebook_url) as gradebook:
        setting = grading_key(course, exercise, config, gradebook)
        for student, folder in folders.items():
            key = _digest(_file_digests(folder) + [("setting", setting.encode())])
            entry = done.get(student)
            if (entry is not None and entry["key"] == key and entry.get("replayable")
                    and (submission := _submission(gradebook, exercise.assignment, student)) is not None
                    and entry.get("record") == _record(submission)):
                # the scores now in the gradebook: a manual grade given since counts
                outcomes.append(_outcome(gradebook, exercise.assignment, student, entry["graded"],
                                         entry["problems"]))
                continue
            gradable, problems = inspect(folder, exercise.source)
            if gradable:   # nbgrader grades only the notebook the assignment has: say so for the others
                problems += [f"extra notebook {safe.quoted(p.name)} is not graded"
                             for p in sorted(folder.glob("*.ipynb"))
                             if p.name != exercise.notebook]
            gradebook.update_or_create_student(student)  # before the workers: no race to create it
            tasks.append(Task(student, key, gradable, problems))
    return outcomes, tasks


def run(course, config, assignment, tasks, *, jobs=None, on_done):
    """Grade ``tasks`` with a pool of nbgrader workers; ``on_done(outcome, key, replayable)`` for each one
    (``replayable``: nbgrader graded it, or it is unreadable and scored 0, so a rerun of the same content
    would give the same outcome)."""
    from nbgrader.api import Gradebook
    jobs = max(1, min(jobs or os.cpu_count() or 1, sum(1 for t in tasks if t.gradable) or 1))
    pool = multiprocessing.get_context("fork").Pool(jobs, initializer=_start_worker, initargs=(config,))
    previous = signal.signal(signal.SIGTERM, _raise_interrupted)
    try:
        pending = {}
        with Gradebook(course.gradebook_url) as gradebook:
            for task in tasks:
                if task.gradable:
                    pending[task.student] = (task, pool.apply_async(_autograde, (assignment, task.student)))
                else:
                    _record_unreadable(gradebook, assignment, task.student)
                    outcome = _outcome(gradebook, assignment, task.student, False, task.problems)
                    on_done(outcome, task.key, _scores(gradebook, assignment, task.student) is not None)
            for student, (task, result) in pending.items():
                _, error = result.get()
                problems = task.problems + ([f"nbgrader could not grade it: {error}"] if error else [])
                problems += engine_problems(course.autograded / student / assignment)
                outcome = _outcome(gradebook, assignment, student, error is None, problems)
                on_done(outcome, task.key, outcome.graded)
    except (Interrupted, KeyboardInterrupt):
        pool.terminate()
        raise Interrupted() from None
    else:
        pool.close()
    finally:
        pool.join()
        signal.signal(signal.SIGTERM, previous)


def grade_class(assignment, *, jobs=None, force=False, students=None, shard=None, config=None, progress=True,
                out=sys.stdout):
    """Grade every submission of ``assignment``; return the list of Outcome, read back from the gradebook.

    NotebookError (one line) when there is nothing to grade; GradebookMismatch when what was graded
    is not in the gradebook.
    """
    from tqdm import tqdm

    config = config or courses.load_config()
    course = courses.from_config(config)
    exercise = course.exercise(assignment)
    folders = select_submissions(course, assignment, students, shard)
    _check_selection(course, assignment, folders, students, shard)
    stranded = gradebooks.refusal(course, course.gradebook_url)
    if stranded:                             # grades left in the gradebook used before: never start from empty
        raise notebooks.NotebookError(stranded)
    from .preprocessors import SandboxedExecute
    create_schema(course)
    course_secret.class_draw(course)         # this machine's secret is the gradebook's, or one line and stop
    check_reference(course, exercise, SandboxedExecute(config=config).limits())
    check_released(course, exercise)         # before the gradebook records the source as released
    ensure_assignment(course, config, exercise, out=out)
    gradebooks.remember(course, course.gradebook_url)   # the gradebook this course's grades are in from now on
    late.refresh(course, config, assignment, out=out)   # extensions.csv, late policy, manual grades since
    outcomes, tasks = plan(course, exercise, folders, config=config, force=force)
    if outcomes:
        print(f"resuming: {len(outcomes)} submission(s) already graded in {safe.url_without_password(course.gradebook_url)}, "
              f"{len(tasks)} to go (--force grades them all again)", file=out)

    path = journal_path(course, assignment)
    path.parent.mkdir(parents=True, exist_ok=True)
    bar = tqdm(total=len(folders), initial=len(outcomes), unit="submission", desc=assignment,
               file=sys.stderr, disable=not progress, mininterval=0.5)
    with open(path, "a") as journal:
        def finished(outcome, key, replayable):
            outcomes.append(outcome)
            journal.write(json.dumps({"student": outcome.student, "key": key, "replayable": replayable,
                                      **dataclasses.asdict(outcome)}) + "\n")
            journal.flush()
            bar.update(1)
        try:
            run(course, config, assignment, tasks, jobs=jobs, on_done=finished)
        except Interrupted:
            raise Interrupted(f"interrupted after {len(outcomes)} of {len(folders)} submissions; "
                              f"run the same command again to resume") from None
        finally:
            bar.close()
    verify(course, exercise, outcomes)
    return sorted(outcomes, key=lambda o: o.student)


def release_changes(exercise):
    """How the source notebook differs from the release the learners were given (``exercises/``):
    one phrase per graded cell whose points or visible tests differ; none without a release folder."""
    import nbformat
    if not exercise.release_path.is_file():
        return []
    release = nbformat.read(exercise.release_path, as_version=4)
    graded = [(notebooks.meta(c), c.source.strip()) for c in release.cells if notebooks.meta(c).get("grade")]
    given = ({meta["grade_id"]: float(meta.get("points", 0)) for meta, _source in graded},
             {meta["grade_id"]: source for meta, source in graded})
    points, sources = source_record(exercise)
    return _differences(given, (points, {name: _visible_part(source) for name, source in sources.items()}))


def check_released(course, exercise):
    """Grades are computed with the points and tests the learners were given: a source notebook changed
    since its release (the release folder, or the release the gradebook records) is one line saying to
    release it, never a grade with other points."""
    from nbgrader.api import Gradebook
    with Gradebook(course.gradebook_url) as gradebook:
        changes = release_changes(exercise) or unreleased_changes(gradebook, exercise)
    if changes:
        where = "" if course.root == courses.REPO_ROOT else f" --CourseDirectory.root={course.root}"
        raise notebooks.NotebookError(
            f"{exercise.source_path} changed since it was released ({'; '.join(changes[:3])}"
            f"{' ...' if len(changes) > 3 else ''}): release it with `nbgrader generate_assignment "
            f"{exercise.assignment} --force{where}` (from this repository's autograder/), then grade again")


def check_reference(course, exercise, limits):
    """Before any submission: the reference solution (the source notebook) earns every automatic point
    here, with these limits, this sandbox and the class run's inputs.  Otherwise students would lose
    points for a fault of the grader's (a broken environment, a missing bubblewrap, limits too small,
    a hidden test that cannot pass), so the run stops with one line instead."""
    from . import engine
    source = exercise.source.notebook
    draw = course_secret.submission_draw(course, "(reference solution)", source)
    report = engine.run_tests(exercise, source, limits, draw=draw)
    unmeasured = [test.grade_id for test in report.tests if test.kind is Kind.NOT_MEASURED]
    if unmeasured:   # no memory cgroup here: refuse rather than score a bound nothing measured
        raise notebooks.NotebookError(
            f"{exercise.assignment} bounds memory ({', '.join(unmeasured)}) and the grader cannot measure memory "
            f"on this machine (no memory cgroup out of the learners' reach); nothing was graded: grade it where the "
            f"grader has bubblewrap and can create a memory cgroup (cgroup v2 with the memory controller delegated "
            f"to its cgroup, or cgroup v1's memory controller as root)")
    failed = [test for test in report.tests if not test.passed]
    if failed:
        first = failed[0]
        raise notebooks.NotebookError(
            f"the reference solution of {exercise.assignment} scores {report.score:g}/{report.max_score:g} on this "
            f"machine ({first.grade_id}: {safe.terminal(first.message)[:200]}); nothing was graded: run the "
            f"command from the course's environment (source .venv/bin/activate), and check the limits in "
            f"autograder/nbgrader_config.py and the hidden tests of {exercise.source_path}")


def _check_selection(course, assignment, folders, students, shard):
    """A run that would grade nobody is an error, with what was expected."""
    where = course.submitted / "<student>" / assignment
    if students:
        missing = sorted(set(students) - set(folders))
        if missing:
            raise notebooks.NotebookError(f"no submission of {assignment} for {', '.join(missing)} "
                                          f"(expected {where}/)")
    if not folders and not shard:
        others = sorted({p.name for p in course.submitted.glob("*/*") if p.is_dir()})
        hint = f"; submitted/ holds {', '.join(others[:5])}" if others else "; collect them first"
        raise notebooks.NotebookError(f"no submissions of {assignment}: expected folders {where}/{hint} "
                                      f"(nbgrader collect, or python -m autograder collect for an LMS zip)")


def _raise_interrupted(signum, frame):
    raise Interrupted()


def _read_journal(path):
    done = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                entry = json.loads(line)
                done[entry["student"]] = entry
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by an interruption
    return done


def print_summary(assignment, outcomes, out=sys.stdout, course=None):
    """Every student's score, sorted by student, with the points of written answers that await grading by
    hand and the late penalty the export takes off, and the reason beside each submission that needs a look.  With the ``course``, a student of its
    roster is shown by her name, "Zoë Martin (canvas-12345)" (``roster.label``)."""
    from . import roster
    graded = sum(o.graded for o in outcomes)
    print(f"{assignment}: {graded} of {len(outcomes)} submissions graded", file=out)
    if not outcomes:
        return
    try:
        people = roster.by_student(course) if course is not None else {}
    except roster.NotebookError:   # a damaged roster: the scores all the same, by id
        people = {}
    # Student ids and reasons quote the submission: quoted and cleaned, they cannot forge a line.
    names = {o.student: roster.label(course, o.student, people) if o.student in people else safe.quoted(o.student)
             for o in outcomes}
    scores = {o.student: f"{o.score:g}/{o.max_score:g}" + (f" (+{o.by_hand:g} by hand)" if o.by_hand else "")
              + (f" (-{o.late_penalty:g} late)" if o.late_penalty else "") for o in outcomes}
    width, score_width = max(map(len, names.values())), max(map(len, scores.values()))
    for o in sorted(outcomes, key=lambda o: o.student):
        line = f"  {names[o.student]:<{width}}  {scores[o.student]:>{score_width}}"
        print((line + f"  {safe.terminal(o.line)}") if o.problems else line, file=out)
    flagged = sum(bool(o.problems) for o in outcomes)
    if flagged:
        print(f"{flagged} need a look (the reason is beside the score)", file=out)
