"""The gradebook: SQLite by default, PostgreSQL for several graders; concurrent writers lose nothing.

PostgreSQL is Debian's server, started by the tests themselves (tests/postgres.py).
Several `python -m autograder grade --shard K/N` processes write one gradebook
at once, as several grading machines would.
"""
import subprocess
import sys

import pytest
from nbgrader.api import Gradebook

import helpers
import postgres

pytestmark = pytest.mark.nbgrader

CORRECT = helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py"
WRONG = helpers.SUBMISSIONS / "01_softmax" / "wrong" / "axis_ignored.py"
STUDENTS = {f"s{i:02d}": (CORRECT if i % 3 else WRONG) for i in range(15)}
SCORES = {s: (7.0 if path == CORRECT else 4.0) for s, path in STUDENTS.items()}
GRADE_CELLS = 6  # per submission of exercise 01: five test cells and the (untouched, so 0) written answer


@pytest.fixture(scope="module")
def new_postgres_database():
    with postgres.server() as new_database:
        yield new_database


@pytest.fixture(params=["sqlite", "postgresql"])
def class_with_gradebook(request, tmp_path):
    root = helpers.course(tmp_path)
    db_url = (helpers.gradebook_url(root) if request.param == "sqlite"
              else request.getfixturevalue("new_postgres_database")())
    helpers.nbgrader("generate_assignment", "01_softmax", root=root, db_url=db_url)
    for student, path in STUDENTS.items():
        helpers.write(helpers.submission("01_softmax", path.read_text()),
                      helpers.submitted(root, student))
    return root, db_url


def _shards_at_once(root, db_url, shards, *extra):
    command = [sys.executable, "-m", "autograder", "grade", "01_softmax", "--jobs", "1", "--no-progress",
               "--course-root", str(root), "--db-url", db_url, *extra]
    runs = [subprocess.Popen(command + ["--shard", f"{k}/{shards}"], cwd=helpers.REPO,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k in range(1, shards + 1)]
    for run in runs:
        out, err = run.communicate(timeout=600)
        assert run.returncode == 0, err


def _check_every_grade_once(db_url):
    with Gradebook(db_url) as gradebook:
        submissions = gradebook.assignment_submissions("01_softmax")
        assert sorted(s.student.id for s in submissions) == sorted(STUDENTS)  # none lost, none twice
        assert {s.student.id: s.score for s in submissions} == SCORES
        for submission in submissions:
            (notebook,) = submission.notebooks
            assert len(notebook.grades) == GRADE_CELLS, submission.student.id
            assert all(g.auto_score is not None for g in notebook.grades), submission.student.id


def test_concurrent_graders_lose_and_duplicate_nothing(class_with_gradebook):
    root, db_url = class_with_gradebook
    _shards_at_once(root, db_url, 3)
    _check_every_grade_once(db_url)
    _shards_at_once(root, db_url, 3, "--force")   # all again, at once: still one grade each
    _check_every_grade_once(db_url)
