"""Feedback generated before the written answers are graded says they await grading.

nbgrader's page would show an ungraded written answer as "Score: 0.0 / 1.0" and count it
as 0 in the total; the course's (autograder/feedback.py, templates/feedback/) says the
answer awaits grading by the instructor, and the total is the score so far with the points
still to be graded.  Once the instructor has scored the answer (as formgrader does, through
nbgrader's API), the page shows the ordinary scores.
"""
import html.parser

import pytest
from nbgrader.api import Gradebook

import helpers

pytestmark = pytest.mark.nbgrader

CORRECT = helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py"
ANSWER = "Shift invariance: exp(x - c) cancels, and exp never overflows."
AWAITING = "Awaiting grading by the instructor"


class _Text(html.parser.HTMLParser):
    """The text a reader sees: no script or style."""

    def __init__(self):
        super().__init__()
        self.parts, self._skip = [], 0

    def handle_starttag(self, tag, attrs):
        self._skip += tag in ("script", "style")

    def handle_endtag(self, tag):
        self._skip -= tag in ("script", "style")

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def _page(root, student):
    """(html, its visible text with the white space collapsed) of the student's feedback."""
    page = (root / "autograder" / "feedback" / student / "01_softmax" / "softmax.html").read_text()
    parser = _Text()
    parser.feed(page)
    return page, " ".join(" ".join(parser.parts).split())


def _answered(notebook, text):
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "softmax_written_answer":
            cell.source = text
    return notebook


def _no_template_markup(text):
    assert not any(mark in text for mark in ("{{", "}}", "{%", "%}", "{#", "#}")), text


def test_feedback_says_the_written_answer_awaits_grading_until_it_is_graded(tmp_path):
    root = helpers.course(tmp_path)
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    # alice wrote an answer; bob left the answer cell as released, which nbgrader scores 0 by itself
    helpers.write(_answered(helpers.submission("01_softmax", CORRECT.read_text()), ANSWER),
                  helpers.submitted(root, "alice"))
    helpers.write(helpers.submission("01_softmax", CORRECT.read_text()), helpers.submitted(root, "bob"))
    helpers.nbgrader("autograde", "01_softmax", root=root)
    helpers.nbgrader("generate_feedback", "01_softmax", root=root)

    page, text = _page(root, "alice")
    assert "softmax (Score so far: 7.0 / 8.0 — 1 point of written answers awaits grading by the instructor)" in text
    assert f"Written response ({AWAITING}: 1 point)" in text           # the list at the top
    assert f"Student's answer {AWAITING}: 1 point (Top) {ANSWER}" in text    # the answer's own heading
    assert "Score: 0.0 / 1.0" not in text and "Score: 7.0 / 8.0)" not in text
    _no_template_markup(text)
    assert 'src="../../mathjax/tex-chtml-full-speech.js' in page and "cdnjs" not in page   # still the local MathJax

    page, text = _page(root, "bob")     # an untouched answer is graded: 0, nothing awaits
    assert "softmax (Score: 7.0 / 8.0)" in text and "Written response (Score: 0.0 / 1.0)" in text
    assert "await" not in text.lower()

    with Gradebook(helpers.gradebook_url(root)) as gradebook:   # the instructor grades alice's answer
        grade = gradebook.find_grade("softmax_written_answer", "softmax", "01_softmax", "alice")
        grade.manual_score = 0.5
        gradebook.db.commit()
    helpers.nbgrader("generate_feedback", "01_softmax", "--force", root=root)

    page, text = _page(root, "alice")
    assert "softmax (Score: 7.5 / 8.0)" in text
    assert "Written response (Score: 0.5 / 1.0)" in text and "Score: 0.5 / 1.0 (Top) " + ANSWER in text
    assert "await" not in text.lower()
    _no_template_markup(text)
    assert 'src="../../mathjax/tex-chtml-full-speech.js' in page and "cdnjs" not in page
