"""What the self-check tells a learner (issue 19): the written answer's points it does
not grade, and a syntax error or a failed import named first, as the cause."""
import json
import subprocess
import sys

import pytest

import helpers

CORRECT = (helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py").read_text()


def check(path):
    result = subprocess.run([sys.executable, "-m", "autograder", "check", str(path)],
                            cwd=path.parent, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_states_the_written_answer_it_does_not_grade(tmp_path):
    path = helpers.write(helpers.submission("01_softmax", CORRECT), tmp_path / "softmax.ipynb")
    first = check(path).splitlines()[0]
    assert first.endswith("7 / 7 points (+1 written answer, graded by your instructor)"), first


def with_solution(code):
    """The release with ``code`` in its solution cell, even code that does not parse."""
    notebook = helpers.submission("01_softmax", CORRECT)
    for cell in notebook.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "softmax_solution":
            cell.source = code
    return notebook


@pytest.mark.parametrize("code, cause", [
    ("import helper\n\n" + CORRECT, "ModuleNotFoundError: No module named 'helper'"),
    (CORRECT.replace("):", ")", 1), "SyntaxError"),
], ids=["failed-import", "syntax-error"])
def test_the_cause_comes_first_and_the_name_errors_fold_into_it(tmp_path, code, cause):
    path = helpers.write(with_solution(code), tmp_path / "softmax.ipynb")
    lines = check(path).splitlines()
    assert lines[1].startswith("  FIRST FIX THIS: the cell starting `") and cause in lines[1], lines
    tests = [line for line in lines if line.startswith(("  PASS", "  FAIL"))]
    assert tests and all(line.startswith("  FAIL") for line in tests), lines
    assert all("see FIRST FIX THIS above" in line for line in tests), lines
    assert not [line for line in lines if "is not defined" in line or "no function named" in line], lines


def test_model_answers_on_request_after_the_report(tmp_path):
    path = helpers.write(helpers.submission("01_softmax", CORRECT), tmp_path / "softmax.ipynb")
    assert "Model answer" not in check(path)
    result = subprocess.run([sys.executable, "-m", "autograder", "check", path.name, "--model-answers"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=300)
    report, _, answer = result.stdout.partition("\nModel answer (softmax_written_answer)")
    assert "7 / 7 points" in report and "shift invariant" in answer


@pytest.mark.parametrize("exercise", helpers.EXERCISES, ids=lambda e: e.assignment)
def test_model_answers_are_never_on_a_book_page(exercise):
    """The model answer lives in the exercise's source only: not in a chapter, nor in the release."""
    [answer] = exercise.source.model_answers.values()
    sentence = answer.split(". ")[0]
    pages = sorted((helpers.REPO / "book").glob("*.ipynb")) + sorted((helpers.REPO / "book").glob("*.md"))
    for page in pages + [exercise.release_path]:
        text = page.read_text(encoding="utf-8")
        if page.suffix == ".ipynb":
            text = "\n".join("".join(cell["source"]) for cell in json.loads(text)["cells"])
        assert " ".join(sentence.split()) not in " ".join(text.split()), page.name


def test_no_model_answers_where_the_course_does_not_offer_them(tmp_path):
    """Issue 24: a course whose registry says model_answers = "never" (an instructor's): the report,
    then one line that says so and a non-zero status; the JSON holds no answers either."""
    root = helpers.course(tmp_path)
    registry = root / "solutions" / "exercises.toml"
    text = registry.read_text()
    assert 'model_answers = "after-grading"' in text
    registry.write_text(text.replace('model_answers = "after-grading"', 'model_answers = "never"'))
    path = helpers.write(helpers.submission("01_softmax", CORRECT), tmp_path / "softmax.ipynb")
    for extra in ([], ["--json"]):
        result = subprocess.run([sys.executable, "-m", "autograder", "check", path.name, "--model-answers",
                                 "--course-root", str(root), *extra], cwd=tmp_path, capture_output=True, text=True,
                                timeout=300)
        assert result.returncode != 0, result
        assert result.stderr == "autograder: --model-answers: this course does not offer model answers\n"
        assert "Model answer" not in result.stdout and "shift invariant" not in result.stdout
        if extra:
            report = json.loads(result.stdout)
            assert report["score"] == 7.0 and "model_answers" not in report
        else:
            assert "7 / 7 points" in result.stdout
