"""The instructor's workflow on a small fake class, with nbgrader's own commands.

Release; import an LMS zip (`nbgrader zip_collect`, with the course's plug-ins: each student's id is
her Canvas user id); `nbgrader autograde` (which
runs the project's sandboxed engine); grade the written answer by hand through
nbgrader's API; `nbgrader generate_feedback`; `nbgrader export`.  The scores in
the gradebook and the CSV are the engine's plus the manual ones, and feedback
never shows hidden tests.
"""
import csv
import zipfile

import pytest
from nbgrader.api import Gradebook

import helpers

pytestmark = pytest.mark.nbgrader

WRONG = helpers.SUBMISSIONS / "01_softmax" / "wrong"
CORRECT = helpers.SUBMISSIONS / "01_softmax" / "correct"
AUTO, MANUAL = 7.0, 1.0  # points of the tests, and of the written answer


def _answered(notebook, text):
    """The learner writes an answer in the written-answer cell."""
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "softmax_written_answer":
            cell.source = text
    return notebook


def _lms_zip(path):
    """A zip as Canvas exports it: <student>_[late_]<user id>_<submission id>_<file>[-<n>].ipynb."""
    import nbformat
    files = {
        "alice_1001_5001_softmax.ipynb": _answered(helpers.submission(
            "01_softmax", (CORRECT / "logsumexp.py").read_text()), "Shift invariance: exp(x - c) cancels."),
        "bob_1002_5002_softmax.ipynb": helpers.release_notebook("01_softmax"),     # handed in untouched
        "carol_1003_5003_softmax.ipynb": _answered(helpers.submission(
            "01_softmax", (WRONG / "axis_ignored.py").read_text()), "To make the numbers smaller."),
        "dave_late_1004_5004_softmax-1.ipynb": helpers.submission("01_softmax", (WRONG / "no_max_subtraction.py").read_text()),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        for name, notebook in files.items():
            archive.writestr(name, nbformat.writes(notebook))
        archive.writestr("readme.txt", "not a submission")
    return path


@pytest.fixture(scope="module")
def graded_class(tmp_path_factory):
    root = helpers.course(tmp_path_factory.mktemp("class"))
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    _lms_zip(root / "autograder" / "downloaded" / "01_softmax" / "archive" / "submissions.zip")
    helpers.nbgrader("zip_collect", "01_softmax", root=root)
    helpers.nbgrader("autograde", "01_softmax", root=root)
    with Gradebook(helpers.gradebook_url(root)) as gradebook:  # grading by hand, as formgrader does
        assert {s.student.id for s in gradebook.assignment_submissions("01_softmax") if s.needs_manual_grade} == \
            {ALICE, CAROL}  # the two who wrote an answer; an untouched answer cell scores 0 by itself
        for student, points in ((ALICE, 1.0), (CAROL, 0.5)):
            grade = gradebook.find_grade("softmax_written_answer", "softmax", "01_softmax", student)
            grade.manual_score = points
            grade.needs_manual_grade = False  # what formgrader's grade handler does on save
        gradebook.db.commit()
    helpers.nbgrader("generate_feedback", "01_softmax", root=root)
    helpers.nbgrader("export", "--to", str(root / "grades.csv"), root=root)
    return root


ALICE, BOB, CAROL, DAVE = "canvas-1001", "canvas-1002", "canvas-1003", "canvas-1004"   # Canvas's user ids
EXPECTED = {ALICE: 7.0 + 1.0, BOB: 0.0, CAROL: 4.0 + 0.5, DAVE: 5.0}


def test_lms_zip_is_collected(graded_class):
    submitted = graded_class / "autograder" / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == sorted(EXPECTED)
    for student in EXPECTED:
        assert [p.name for p in (submitted / student / "01_softmax").glob("*.ipynb")] == ["softmax.ipynb"]


def test_gradebook_holds_the_engines_and_the_manual_scores(graded_class):
    with Gradebook(helpers.gradebook_url(graded_class)) as gradebook:
        for student, score in EXPECTED.items():
            submission = gradebook.find_submission("01_softmax", student)
            assert submission.score == score, student
            assert submission.max_score == AUTO + MANUAL
            assert not submission.needs_manual_grade


def test_autograded_part_equals_the_self_check(graded_class):
    from autograder import selfcheck
    with Gradebook(helpers.gradebook_url(graded_class)) as gradebook:
        for student in EXPECTED:
            path = helpers.submitted(graded_class, student)
            assert selfcheck.grade(path)[1].score == gradebook.find_submission("01_softmax", student).code_score


def test_csv_export_has_the_scores(graded_class):
    with open(graded_class / "grades.csv") as handle:
        rows = {row["student_id"]: row for row in csv.DictReader(handle)}
    assert {s: float(rows[s]["score"]) for s in EXPECTED} == EXPECTED
    assert all(float(rows[s]["max_score"]) == AUTO + MANUAL for s in EXPECTED)
    assert {s: rows[s]["last_name"] for s in EXPECTED} == {ALICE: "alice", BOB: "bob", CAROL: "carol", DAVE: "dave"}


def test_feedback_names_the_mistake_and_hides_the_hidden_tests(graded_class):
    feedback = graded_class / "autograder" / "feedback"
    carol = (feedback / CAROL / "01_softmax" / "softmax.html").read_text()
    assert "the `axis` argument is ignored" in carol
    for student in EXPECTED:
        html = (feedback / student / "01_softmax" / "softmax.html").read_text()
        assert "BEGIN HIDDEN TESTS" not in html
        assert "autograder.catalogue" not in html and "check_axis" not in html
        assert "cdnjs" not in html and "cdn.jsdelivr" not in html
        assert 'src="../../mathjax/tex-chtml-full-speech.js' in html and "white-space: pre-wrap" in html
    assert (feedback / "mathjax" / "tex-chtml-full-speech.js").exists() and (feedback / "mathjax" / "settings.js").exists()


def test_feedback_math_renders_offline(graded_class, browser):
    feedback = graded_class / "autograder" / "feedback"
    with helpers.serve(feedback) as url:
        page, problems = helpers.open_page(browser, f"{url}/{CAROL}/01_softmax/softmax.html")
        problems += helpers.math_problems(page, at_least=1)
        problems += helpers.speech_problems(page)      # assistive MathML and speech, as in the book
        assert "the `axis` argument is ignored" in page.inner_text("body")
        page.set_viewport_size({"width": 1046, "height": 800})      # the feedback box
        overflow = page.evaluate("""() => {
            const wide = [...document.querySelectorAll('div.output_subarea pre')]
                .filter(e => e.scrollWidth > e.clientWidth || e.getBoundingClientRect().right > innerWidth);
            return {wide: wide.length, page: document.scrollingElement.scrollWidth - innerWidth};
        }""")
        assert overflow == {"wide": 0, "page": 0}, overflow    # the diagnostic wraps: its fix is on screen
        page.close()
    assert problems == []
