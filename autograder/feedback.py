"""Feedback generated before the written answers are graded says so, instead of showing 0.

nbgrader's Grade.score is the manual score, else the automatic one, else 0: an answer that
waits for the instructor in formgrader (no score of either kind) reads "0 / 1" in the
feedback and counts as 0 in the total.  AwaitingGrading, run after GetGrades, marks such
cells ``awaiting_grading`` in their nbgrader metadata and puts the points they are worth in
``resources["nbgrader"]["awaiting_points"]``; the course's feedback template
(templates/feedback/awaiting_grading.html.j2) shows them as awaiting grading.  Once the
instructor has given a score, the cell is an ordinary graded one again.
"""
from nbgrader import utils
from nbgrader.api import Gradebook
from nbgrader.preprocessors import NbGraderPreprocessor


def awaits_grading(grade):
    """True when no one has scored ``grade`` yet: its 0 is nbgrader's default, not a grade.

    Autograde leaves written answers so (a changed answer cell gets no automatic score; an
    untouched one gets 0, a real score); formgrader's save sets the manual score.  Its
    needs_manual_grade flag is not enough: autograde raises it again on a cell that already has
    a manual score, which still counts."""
    return grade.manual_score is None and grade.auto_score is None


class AwaitingGrading(NbGraderPreprocessor):
    """Marks the graded cells of the notebook that await grading by the instructor."""

    def preprocess(self, nb, resources):
        info = resources["nbgrader"]
        awaiting = 0.0
        with Gradebook(info["db_url"]) as gradebook:
            for cell in nb.cells:
                # the cells GetGrades scores
                if not (utils.is_grade(cell) or utils.is_task(cell)):
                    continue
                grade = gradebook.find_grade(cell.metadata.nbgrader["grade_id"], info["notebook"],
                                             info["assignment"], info["student"])
                cell.metadata.nbgrader["awaiting_grading"] = awaits_grading(grade)
                if awaits_grading(grade):
                    awaiting += grade.max_score
        info["awaiting_points"] = awaiting
        return nb, resources
