"""nbgrader preprocessors that plug the grading engine into `nbgrader autograde`."""
from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor

from . import engine, notebooks


class SandboxedExecute(NbGraderPreprocessor):
    """Replaces nbgrader's Execute: grade with the engine, record results as cell outputs.

    A failed test cell gets an error output holding the one-line diagnostic
    (nbgrader scores a test cell 0 when it has an error output); a passed one
    gets no output.  The learner's cells get what they printed and their errors.
    The tests are taken from the source notebook, never from the submission.
    """

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        source = notebooks.source_for(info["assignment"], info["notebook"])
        report = engine.run_tests(source, nb, engine.Limits(require_sandbox=True))
        results = {t.grade_id: t for t in report.tests}
        runs = {run.index: run for run in report.cells}
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            grade_id = notebooks.meta(cell).get("grade_id")
            if notebooks.is_test_cell(cell) and grade_id in results:
                result = results[grade_id]
                cell.outputs = [] if result.passed else [_error("TestFailed", result.message)]
            elif index in runs:
                run = runs[index]
                cell.outputs = ([new_output("stream", name="stdout", text=run.output)] if run.output else [])
                if run.error:
                    cell.outputs.append(_error(run.error.split(":")[0], run.error))
            cell.execution_count = None
        return nb, resources


def _error(name, message):
    return new_output("error", ename=name, evalue=message, traceback=[message])
