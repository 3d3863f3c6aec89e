"""nbgrader preprocessors that plug the grading engine into `nbgrader autograde`."""
import copy
import dataclasses
import hashlib
import hmac
import json

from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool, Float, Integer

from . import course_secret, engine, i18n, notebooks
from .course import Course
from .results import Kind
from .sandbox import Limits

# The cell metadata key of the grader's record of a test (``record``): written on every test cell the
# grader grades, removed from every other cell, sealed with the course's key.
RECORD = "attention_book_grader"
MAX_FINDINGS = 100   # more ids than any catalogue has: not a record the grader wrote


class SandboxedExecute(NbGraderPreprocessor):
    """Replaces nbgrader's Execute: grade with the engine, record results as cell outputs.

    A failed test cell gets an error output holding the one-line diagnostic
    (nbgrader scores a test cell 0 when it has an error output); a passed one
    gets no output.  The learner's cells get what they printed and their errors
    (a cell stopped past ``cell_seconds`` one named ``Timeout``, as a timed-out test's).
    The tests are the source notebook's; a test cell the learner deleted is put
    back (at the end) so that it is graded like every other.  Each test cell gets
    the grader's sealed ``record`` of its result in its metadata (the findings the
    misconception report counts); any record the submission brought is removed.
    """

    cell_seconds = Float(Limits.cell_seconds,
                         help="wall time of one learner cell, then it is interrupted and the next cells run "
                              "(as Execute.timeout)").tag(config=True)
    call_seconds = Float(Limits.call_seconds, help="wall time of one call of a learner's function").tag(config=True)
    total_seconds = Float(Limits.total_seconds, help="wall time of one notebook, all tests").tag(config=True)
    cpu_seconds = Integer(Limits.cpu_seconds, help="CPU time of the learner's process").tag(config=True)
    memory_bytes = Integer(Limits.memory_bytes, help="address space of the learner's process").tag(config=True)
    tree_memory_bytes = Integer(Limits.tree_memory_bytes,
                                help="memory of the whole sandboxed process tree (a cgroup)").tag(config=True)
    max_processes = Integer(Limits.max_processes, help="processes and threads of the sandbox").tag(config=True)
    reply_bytes = Integer(Limits.reply_bytes, help="bytes the learner's process may send back, in total").tag(config=True)
    output_chars = Integer(Limits.output_chars,
                           help="printed output and error lines kept, all cells together").tag(config=True)
    require_sandbox = Bool(True, help="refuse to grade without bubblewrap").tag(config=True)

    def limits(self):
        return Limits(**{field.name: getattr(self, field.name) for field in dataclasses.fields(Limits)
                         if self.has_trait(field.name)})

    def course(self):
        """The course nbgrader is grading: its converter's CourseDirectory (configured root, --course-root)."""
        owner = self.parent
        while owner is not None and getattr(owner, "coursedir", None) is None:
            owner = getattr(owner, "parent", None)
        if owner is None:
            from nbgrader.coursedir import CourseDirectory
            return Course.from_coursedir(CourseDirectory(config=self.config))
        return Course.from_coursedir(owner.coursedir)

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        exercise = self.course().exercise(info["assignment"])
        if info["notebook"] != exercise.source.name:
            raise notebooks.NotebookError(f"{info['notebook']}.ipynb is not a notebook of {exercise.assignment} "
                                          f"(expected {exercise.notebook})")
        source = exercise.source
        # The class run's hidden inputs come from the course's secret (the one its gradebook records) and
        # the submission: a regrade, on any machine, reproduces the grades, and the inputs one learner's
        # feedback may show fit no other submission.
        # The feedback speaks the notebook's language (its metadata's, else English); the scores do not depend on it.
        draw = course_secret.submission_draw(exercise.course, info["student"], nb)
        report = engine.run_tests(exercise, nb, self.limits(), draw=draw,
                                  language=i18n.for_class_run(nb))
        unmeasured = [test.grade_id for test in report.tests if test.kind is Kind.NOT_MEASURED]
        if unmeasured:   # no memory cgroup: no score rather than a guess (nbgrader records the failure)
            raise notebooks.NotebookError(f"{', '.join(unmeasured)}: memory cannot be measured on this machine "
                                          f"(no memory cgroup): not graded")
        present = {notebooks.meta(c).get("grade_id") for c in nb.cells if notebooks.is_test_cell(c)}
        for cell in source.notebook.cells:
            if notebooks.is_test_cell(cell) and notebooks.meta(cell)["grade_id"] not in present:
                self.log.warning("Test cell %s was deleted; restoring it", notebooks.meta(cell)["grade_id"])
                nb.cells.append(copy.deepcopy(cell))
        results = {t.grade_id: t for t in report.tests}
        runs = {run.index: run for run in report.cells}
        key = course_secret.seal_key(exercise.course)   # there: submission_draw found or made the secret
        for index, cell in enumerate(nb.cells):
            if isinstance(cell.get("metadata"), dict):
                cell.metadata.pop(RECORD, None)   # a record the learner wrote is never kept
            if cell.cell_type != "code":
                continue
            grade_id = notebooks.meta(cell).get("grade_id")
            if notebooks.is_test_cell(cell) and grade_id in results:
                result = results[grade_id]
                cell.outputs = [] if result.passed else [_error(result.kind.error_name, result.message)]
                if key is not None:
                    where = (exercise.assignment, info["notebook"], info["student"], grade_id)
                    cell.metadata[RECORD] = record(key, where, result)
            elif index in runs:
                run = runs[index]
                cell.outputs = ([new_output("stream", name="stdout", text=run.output)] if run.output else [])
                if run.error:
                    cell.outputs.append(_error(run.error.split(":")[0], run.error))
            cell.execution_count = None
        return nb, resources


def _error(name, message):
    return new_output("error", ename=name, evalue=message, traceback=[message])


def _seal(key, where, kind, findings):
    text = json.dumps([*where, kind, findings])   # ASCII whatever the student id holds
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


def record(key, where, result):
    """The grader's record of one test's ``result``, for its cell's metadata: its kind and findings
    (``TestResult.findings``), sealed with ``key`` (``course_secret.seal_key``) for ``where``:
    (assignment, notebook, student, grade_id)."""
    kind, findings = result.kind.value, list(result.findings)
    return {"kind": kind, "findings": findings, "seal": _seal(key, where, kind, findings)}


def read_record(key, where, cell):
    """(Kind, findings) that the grader recorded in ``cell`` for ``where``, or None when the cell holds no
    record whose seal verifies: graded by an older grader or stock nbgrader, or a record the learner
    wrote (which could not be sealed without the course's secret)."""
    metadata = cell.get("metadata")
    data = metadata.get(RECORD) if isinstance(metadata, dict) else None
    if not isinstance(data, dict):
        return None
    kind, findings, seal = data.get("kind"), data.get("findings"), data.get("seal")
    if not (isinstance(kind, str) and isinstance(seal, str) and isinstance(findings, list)
            and len(findings) <= MAX_FINDINGS and all(isinstance(finding, str) for finding in findings)):
        return None
    if not hmac.compare_digest(seal.encode(errors="replace"), _seal(key, where, kind, findings).encode()):
        return None
    kind = next((known for known in Kind if known.value == kind), None)
    return None if kind is None else (kind, tuple(findings))


class ReplaceLoneSurrogates(NbGraderPreprocessor):
    """The first step of `nbgrader autograde` (its sanitising steps): every lone surrogate of the submission
    (a "\\ud800" escape in its JSON) becomes U+FFFD, as ``notebooks.read_notebook`` does for the
    self-check; left in, nbgrader could not write the notebook and the student would not be graded."""

    def preprocess(self, nb, resources):
        return notebooks.without_surrogates(nb), resources
