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
  submission is graded again only when it, or the exercise, changed (``--force``
  grades everyone again).
"""
import dataclasses
import hashlib
import json
import multiprocessing
import os
import signal
import sys
import warnings
from pathlib import Path

from . import notebooks
from .preprocessors import ERROR_NAMES

AUTOGRADER_DIR = Path(__file__).resolve().parent


class Interrupted(Exception):
    """SIGTERM or Ctrl-C during a class run."""


@dataclasses.dataclass
class Outcome:
    student: str
    graded: bool                 # nbgrader autograded it (False: it could not be read)
    score: float = 0.0
    max_score: float = 0.0
    problems: list = dataclasses.field(default_factory=list)   # one-line reasons

    @property
    def line(self):
        return "; ".join(self.problems)


# --------------------------------------------------------------------------- configuration
def load_config(course_root=None, db_url=None):
    """nbgrader's configuration from autograder/nbgrader_config.py, with optional overrides."""
    from traitlets.config.loader import Config, PyFileConfigLoader
    config = PyFileConfigLoader("nbgrader_config.py", path=str(AUTOGRADER_DIR)).load_config()
    overrides = Config()
    if course_root:
        overrides.CourseDirectory.root = str(Path(course_root).resolve())
    if db_url:
        overrides.CourseDirectory.db_url = db_url
    config.merge(overrides)
    return config


def _coursedir(config):
    from nbgrader.coursedir import CourseDirectory
    return CourseDirectory(config=config)


# --------------------------------------------------------------------------- inspection
def _digest(paths):
    digest = hashlib.sha256()
    for path in sorted(paths):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def inspect(submitted, sources):
    """(gradable, problems) for one student's submission folder."""
    problems = []
    present = {p.name: p for p in submitted.glob("*.ipynb")}
    expected = {f"{s.name}.ipynb": s for s in sources}
    strangers = sorted(set(present) - set(expected))
    readable = 0
    for name, source in expected.items():
        if name not in present:
            if strangers:
                problems.append(f"renamed notebook: found {', '.join(strangers)}, expected {name} "
                                f"(graded 0; rename the file and grade again)")
            else:
                problems.append(f"missing notebook {name} (graded 0)")
            continue
        try:
            submission = notebooks.read_notebook(present[name])
        except notebooks.NotebookError as error:
            problems.append(str(error).replace(str(present[name]), name))
            continue
        readable += 1
        cells = {notebooks.meta(c).get("grade_id"): c for c in submission.cells if notebooks.is_test_cell(c)}
        for test in source.tests:
            if test.grade_id not in cells:
                problems.append(f"{name}: test cell {test.grade_id} was deleted (the original was graded)")
            elif cells[test.grade_id].source.strip() != _visible_part(test.source):
                problems.append(f"{name}: test cell {test.grade_id} was edited (the original was graded)")
    return readable > 0, problems


def _visible_part(test_source):
    """What the release shows of a test cell: the source without its hidden-tests block."""
    lines, hidden = [], False
    for line in test_source.splitlines():
        if line.strip() == "### BEGIN HIDDEN TESTS":
            hidden = True
        elif line.strip() == "### END HIDDEN TESTS":
            hidden = False
        elif not hidden:
            lines.append(line)
    return "\n".join(lines).strip()


def engine_problems(autograded_dir):
    """Timeouts and crashed processes, read back from the autograded notebooks' error outputs."""
    names = {v: k for k, v in ERROR_NAMES.items() if k != "failed"}
    problems = [f"{path.name}: {names[ename]} in {grade_id}: {message}"
                for path in sorted(autograded_dir.glob("*.ipynb"))
                for grade_id, ename, message in notebooks.test_cell_errors(path) if ename in names]
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
    _API = NbGraderAPI(coursedir=_coursedir(config), config=config)


def _autograde(assignment, student):
    result = _API.autograde(assignment, student, force=True, create=True)
    error = None
    if not result.get("success"):
        lines = [l for l in (result.get("error") or result.get("log") or "").splitlines() if l.strip()]
        error = (lines[-1] if lines else "nbgrader autograde failed").strip()[:300]
    return student, error


# --------------------------------------------------------------------------- the run
def _scores(gradebook, assignment, student):
    try:
        submission = gradebook.find_submission(assignment, student)
        return float(submission.score), float(submission.max_score)
    except Exception:  # MissingEntry: never graded
        return 0.0, 0.0


def _record_unreadable(gradebook, assignment, student):
    """A submission nbgrader cannot read still appears in the gradebook, with 0."""
    from nbgrader.api import MissingEntry
    try:
        gradebook.find_submission(assignment, student)
    except MissingEntry:
        with warnings.catch_warnings():  # nbgrader 0.9 on SQLAlchemy 2 warns about its own autoflush
            warnings.simplefilter("ignore")
            gradebook.add_submission(assignment, student)


def _shard(names, shard):
    """The K-th of N shares ("K/N", K from 1) of the sorted names: disjoint, and together all."""
    try:
        k, n = (int(part) for part in shard.split("/"))
        assert 1 <= k <= n
    except (ValueError, AssertionError):
        raise notebooks.NotebookError(f"--shard takes K/N with 1 <= K <= N, not {shard!r}") from None
    return [name for index, name in enumerate(sorted(names)) if index % n == k - 1]


def grade_class(assignment, *, jobs=None, force=False, students=None, shard=None, config=None, progress=True,
                out=sys.stdout):
    """Grade every submission of ``assignment``; return the list of Outcome."""
    from nbgrader.api import Gradebook
    from tqdm import tqdm

    config = config or load_config()
    coursedir = _coursedir(config)
    sources = [s for s in notebooks.source_notebooks() if s.assignment == assignment]
    if not sources:
        raise notebooks.NotebookError(f"no exercise named {assignment!r} in {notebooks.SOLUTIONS}")
    submitted_root = Path(coursedir.root) / coursedir.submitted_directory
    folders = {p.parent.name: p for p in sorted(submitted_root.glob(f"*/{assignment}")) if p.is_dir()}
    if students:
        folders = {s: f for s, f in folders.items() if s in set(students)}
    if shard:
        folders = {s: folders[s] for s in _shard(folders, shard)}

    # autograder/grading-log/, beside autograder/autograded/
    journal_path = (Path(coursedir.root) / coursedir.autograded_directory).parent / "grading-log" / f"{assignment}.jsonl"
    journal_path.parent.mkdir(parents=True, exist_ok=True)
    done = {} if force else _read_journal(journal_path)
    source_digest = _digest([s.path for s in sources])

    outcomes, todo = [], []
    with Gradebook(coursedir.db_url) as gradebook:
        for student, folder in folders.items():
            key = _digest(list(folder.glob("*.ipynb"))) + source_digest
            if student in done and done[student]["key"] == key:
                outcomes.append(Outcome(student, done[student]["graded"], done[student]["score"],
                                        done[student]["max_score"], done[student]["problems"]))
                continue
            gradable, problems = inspect(folder, sources)
            gradebook.update_or_create_student(student)  # before the workers: no race to create it
            todo.append((student, key, gradable, problems))

    if done and outcomes:
        print(f"resuming: {len(outcomes)} submission(s) already graded, {len(todo)} to go", file=out)
    interrupted = False
    jobs = max(1, min(jobs or os.cpu_count() or 1, sum(1 for t in todo if t[2]) or 1))
    pool = multiprocessing.get_context("fork").Pool(jobs, initializer=_start_worker, initargs=(config,))
    previous = signal.signal(signal.SIGTERM, _raise_interrupted)
    bar = tqdm(total=len(folders), initial=len(outcomes), unit="submission", desc=assignment,
               file=sys.stderr, disable=not progress, mininterval=0.5)
    try:
        pending = {}
        with Gradebook(coursedir.db_url) as gradebook, open(journal_path, "a") as journal:
            for student, key, gradable, problems in todo:
                if gradable:
                    pending[student] = (key, problems, pool.apply_async(_autograde, (assignment, student)))
                else:
                    _record_unreadable(gradebook, assignment, student)
                    outcome = Outcome(student, False, *_scores(gradebook, assignment, student), problems)
                    _finish(outcome, key, journal, outcomes, bar)
            for student, (key, problems, result) in pending.items():
                _, error = result.get()
                autograded = Path(coursedir.root) / coursedir.autograded_directory / student / assignment
                problems = problems + ([f"nbgrader could not grade it: {error}"] if error else [])
                problems += engine_problems(autograded)
                outcome = Outcome(student, error is None, *_scores(gradebook, assignment, student), problems)
                _finish(outcome, key, journal, outcomes, bar)
    except (Interrupted, KeyboardInterrupt):
        interrupted = True
        pool.terminate()
    else:
        pool.close()
    finally:
        pool.join()
        bar.close()
        signal.signal(signal.SIGTERM, previous)
    if interrupted:
        raise Interrupted(f"interrupted after {len(outcomes)} of {len(folders)} submissions; "
                          f"run the same command again to resume")
    return sorted(outcomes, key=lambda o: o.student)


def _raise_interrupted(signum, frame):
    raise Interrupted()


def _finish(outcome, key, journal, outcomes, bar):
    outcomes.append(outcome)
    journal.write(json.dumps({"student": outcome.student, "key": key, **dataclasses.asdict(outcome)}) + "\n")
    journal.flush()
    bar.update(1)


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


def print_summary(assignment, outcomes, out=sys.stdout):
    graded = sum(o.graded for o in outcomes)
    print(f"{assignment}: {graded} of {len(outcomes)} submissions graded", file=out)
    flagged = [o for o in outcomes if o.problems]
    if flagged:
        print(f"{len(flagged)} need a look:", file=out)
        width = max(len(o.student) for o in flagged)
        for o in flagged:
            print(f"  {o.student:<{width}}  {o.score:g}/{o.max_score:g}  {o.line}", file=out)
