"""nbgrader's Validate button (and `nbgrader validate`), made to tell the truth.

nbgrader validates a notebook by running it in the learner's kernel and reading the
visible test cells' outputs: a softmax that ignores ``axis`` passes those and reads
"Success! Your notebook passes all the tests." although it scores 4 of 7.  The step
``HiddenChecks`` runs after nbgrader's own (nbgrader_config.py appends it to the
validator's steps, which nbgrader does not expose as a setting): it grades the
executed notebook with the self-check's engine and hidden checks, and gives each
test cell that fails there the engine's diagnostic as its output (an error), which
nbgrader's validator then reports as a failed cell.
"""
from nbformat.v4 import new_output
from nbgrader.preprocessors import NbGraderPreprocessor

from . import checks, engine, i18n, notebooks
from .course import default_course
from .i18n import _


class HiddenChecks(NbGraderPreprocessor):
    """Validation step: the hidden checks' verdict on every test cell."""

    def preprocess(self, nb, resources):
        try:
            exercise = default_course().identify(nb)
        except notebooks.NotebookError:
            return nb, resources          # not one of the course's exercises: nbgrader's verdict stands
        language = i18n.choose(None, nb)    # the notebook's metadata, else the environment, as the self-check
        # A learner's tool: the self-check's hidden inputs (from the code alone); never the class run's secret.
        report = engine.run_tests(exercise, nb, draw=checks.self_check_draw(nb), language=language)
        results = {test.grade_id: test for test in report.tests}
        with i18n.language(language):
            found = _("(found by the hidden checks, as python -m autograder check does)")
        for cell in nb.cells:
            result = results.get(notebooks.meta(cell).get("grade_id")) if notebooks.is_test_cell(cell) else None
            if result is not None and not result.passed:   # what the grade will be, as autograde writes it
                cell.outputs = [new_output(
                    "error", ename=result.kind.error_name, evalue=result.message,
                    traceback=[f"{result.message} {found}"])]
        return nb, resources
