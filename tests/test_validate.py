"""nbgrader's Validate (the toolbar button, `nbgrader validate`) runs the hidden checks too.

Stock nbgrader runs only the visible tests and says "Success! Your notebook passes
all the tests." for a softmax that ignores `axis` (4 of 7 points); with the course's
configuration it names the mistake, and a correct notebook still passes.
"""
import subprocess
import sys

import pytest

import helpers

pytestmark = pytest.mark.nbgrader

WRONG = helpers.SUBMISSIONS / "01_softmax" / "wrong" / "axis_ignored.py"
CORRECT = helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py"


def _notebook(tmp_path, path):
    notebook = helpers.submission("01_softmax", path.read_text())
    for cell in notebook.cells:
        if cell.metadata.get("nbgrader", {}).get("grade_id") == "softmax_written_answer":
            cell.source = "Subtracting the maximum changes nothing: exp(x - c) cancels."
    return helpers.write(notebook, tmp_path / "softmax.ipynb")


def _validate(path, folder="."):
    return subprocess.run([sys.executable, "-m", "nbgrader", "validate", str(path)], cwd=helpers.REPO / folder,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("folder", [".", "autograder"], ids=["repository-root", "autograder"])
def test_a_wrong_solution_never_passes_validation(tmp_path, folder):
    result = _validate(_notebook(tmp_path, WRONG), folder)
    assert "passes all the tests" not in result.stdout
    assert "VALIDATION FAILED ON 2 CELL(S)" in result.stdout
    assert "the `axis` argument is ignored" in result.stdout


def test_a_correct_solution_passes_validation(tmp_path):
    result = _validate(_notebook(tmp_path, CORRECT))
    assert "Success! Your notebook passes all the tests." in result.stdout, result.stdout


def test_the_validate_button_uses_the_same_steps():
    """The server extension behind the button builds its Validator from the config found in the
    folder Jupyter starts in, as here."""
    from nbgrader.server_extensions.validate_assignment.handlers import ValidateAssignmentHandler
    from nbgrader.validator import Validator
    from autograder.validate import HiddenChecks
    import os
    cwd = os.getcwd()
    try:
        os.chdir(helpers.REPO)
        config = ValidateAssignmentHandler.load_config(None)
    finally:
        os.chdir(cwd)
    assert HiddenChecks in Validator(config=config).preprocessors


@pytest.mark.parametrize("secret", ["absent", "unreadable"])
def test_validate_never_reads_or_creates_the_class_secret(tmp_path, secret):
    """Validate is a learner's tool: it draws fresh inputs, as the self-check does, so it works where
    the course's secret is the instructor's unreadable file, and never creates one."""
    import os
    from autograder import course_secret
    root = helpers.course(tmp_path / "course")
    secret_path = root / course_secret.SECRET_FILE
    if secret == "unreadable":
        secret_path.mkdir(parents=True)      # as unreadable as a file can be for root: a folder
    env = {**os.environ, "ATTENTION_COURSE_ROOT": str(root)}
    env.pop(course_secret.SECRET_VARIABLE, None)
    result = subprocess.run([sys.executable, "-m", "nbgrader", "validate", str(_notebook(tmp_path, CORRECT))],
                            cwd=helpers.REPO, capture_output=True, text=True, timeout=300, env=env)
    assert "Success! Your notebook passes all the tests." in result.stdout, result.stdout + result.stderr
    assert secret_path.is_dir() if secret == "unreadable" else not secret_path.exists()
