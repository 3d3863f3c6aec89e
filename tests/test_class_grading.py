"""The instructor's workflow on a small fake class, with nbgrader's own commands.

Release, collect, `nbgrader autograde` (which runs the project's sandboxed
engine), `nbgrader generate_feedback`, `nbgrader export`: the scores in the
gradebook and the CSV are the engine's, and feedback never shows hidden tests.
"""
import csv

import pytest
from nbgrader.api import Gradebook

import helpers

WRONG = helpers.SUBMISSIONS / "01_softmax" / "wrong"
CORRECT = helpers.SUBMISSIONS / "01_softmax" / "correct"


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    root = helpers.course(tmp_path_factory.mktemp("class"))
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    students = {
        "alice": helpers.submission("01_softmax", (CORRECT / "logsumexp.py").read_text()),
        "bob": helpers.release_notebook("01_softmax"),                     # handed in untouched
        "carol": helpers.submission("01_softmax", (WRONG / "axis_ignored.py").read_text()),
        "dave": helpers.submission("01_softmax", (WRONG / "no_max_subtraction.py").read_text()),
    }
    for student, notebook in students.items():
        helpers.write(notebook, root / "autograder" / "submitted" / student / "01_softmax" / "softmax.ipynb")
    helpers.nbgrader("autograde", "01_softmax", root=root)
    helpers.nbgrader("generate_feedback", "01_softmax", root=root)
    helpers.nbgrader("export", "--to", str(root / "grades.csv"), root=root)
    return root


EXPECTED = {"alice": 7.0, "bob": 0.0, "carol": 4.0, "dave": 5.0}


def test_gradebook_holds_the_engines_scores(graded_class):
    with Gradebook(f"sqlite:///{graded_class}/gradebook.db") as gradebook:
        for student, score in EXPECTED.items():
            submission = gradebook.find_submission("01_softmax", student)
            assert submission.score == score, student
            assert submission.max_score == 7.0


def test_scores_equal_the_self_check(graded_class):
    from autograder import engine
    for student, score in EXPECTED.items():
        path = graded_class / "autograder" / "submitted" / student / "01_softmax" / "softmax.ipynb"
        assert engine.grade_file(path).score == score, student


def test_csv_export_has_the_scores(graded_class):
    with open(graded_class / "grades.csv") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert {s: float(rows[s]["score"]) for s in EXPECTED} == EXPECTED
    assert all(float(rows[s]["max_score"]) == 7.0 for s in EXPECTED)


def test_feedback_names_the_mistake_and_hides_the_hidden_tests(graded_class):
    feedback = graded_class / "autograder" / "feedback"
    carol = (feedback / "carol" / "01_softmax" / "softmax.html").read_text()
    assert "the `axis` argument is ignored" in carol
    for student in EXPECTED:
        html = (feedback / student / "01_softmax" / "softmax.html").read_text()
        assert "BEGIN HIDDEN TESTS" not in html
        assert "autograder.catalogue" not in html and "check_axis" not in html
        assert "cdnjs" not in html and "cdn.jsdelivr" not in html
        assert 'src="../../mathjax/MathJax.js' in html
    assert (feedback / "mathjax" / "MathJax.js").exists()
