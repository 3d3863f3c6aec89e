"""Switching gradebooks midway loses nothing (autograder/gradebooks.py).

A small class of 01_softmax is graded into the course's SQLite gradebook, then graded by
hand as formgrader does (a written answer, an overridden test, extra credit, a comment).
`move` carries every row into another database, identical; a gradebook that already holds
submissions is refused and left as it was; `stranded` and `refusal` see the grades a new,
empty gradebook lacks, until they are moved; `python -m autograder move-gradebook` prints one
line, or one line on stderr and a non-zero status.  The last test moves into PostgreSQL.
"""
import os
import stat
import subprocess
import sys

import pytest
from nbgrader.api import Base, Gradebook

import helpers
import postgres
from autograder import classrun, gradebooks
from autograder import course as courses
from autograder.notebooks import NotebookError

pytestmark = pytest.mark.nbgrader

CORRECT = helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py"
WRONG = helpers.SUBMISSIONS / "01_softmax" / "wrong"
CLASS = {"alice": CORRECT, "carol": WRONG / "axis_ignored.py", "dave": WRONG / "no_max_subtraction.py"}
COMMENT = "Shift invariance: exp(x − c) cancels. 正規化の定数は約分される。"
# (students, submissions, grades with a manual score, comments with a manual comment)
MOVED = gradebooks.Moved(3, 3, 2, 1)


@pytest.fixture(scope="module")
def new_postgres_database():
    with postgres.server() as new_database:
        yield new_database


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The course root of a class graded into its SQLite gradebook, then by hand."""
    root = helpers.course(tmp_path_factory.mktemp("move"))
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    for student, path in CLASS.items():
        helpers.write(helpers.submission("01_softmax", path.read_text()), helpers.submitted(root, student))
    outcomes = classrun.grade_class("01_softmax", jobs=2, config=courses.load_config(root), progress=False)
    assert all(o.graded and not o.problems for o in outcomes), outcomes
    with Gradebook(helpers.gradebook_url(root)) as gradebook:   # what formgrader saves
        written = gradebook.find_grade("softmax_written_answer", "softmax", "01_softmax", "alice")
        written.manual_score, written.needs_manual_grade = 1.0, False
        overridden = gradebook.find_grade("test_softmax_axis", "softmax", "01_softmax", "dave")
        overridden.manual_score = 0.0                     # passed, overruled: a falsy score must survive too
        gradebook.find_grade("test_softmax_axis", "softmax", "01_softmax", "carol").extra_credit = 0.5
        gradebook.find_comment("softmax_written_answer", "softmax", "01_softmax", "carol").manual_comment = COMMENT
        gradebook.db.commit()
    return root


@pytest.fixture(autouse=True)
def forget(request):
    """Each test starts with no gradebook remembered for the shared course."""
    yield
    if "graded" in request.fixturenames:
        (request.getfixturevalue("graded") / gradebooks.REMEMBERED).unlink(missing_ok=True)


def _sqlite(path):
    return f"sqlite:///{path}"


def _rows(url):
    """Every row of every nbgrader table, and alembic's version rows."""
    from sqlalchemy import create_engine, select, text
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            rows = {table.name: sorted((dict(row) for row in connection.execute(select(table)).mappings()),
                                       key=lambda row: row["id"])
                    for table in Base.metadata.sorted_tables}
            rows["alembic_version"] = connection.execute(text("SELECT version_num FROM alembic_version")).all()
    finally:
        engine.dispose()
    return rows


def _hand_graded(url):
    """What the instructor sees: nbgrader's submission tables, and the hand-entered values."""
    with Gradebook(url) as gradebook:
        def grade(cell, student):
            found = gradebook.find_grade(cell, "softmax", "01_softmax", student)
            return found.auto_score, found.manual_score, found.extra_credit, found.score
        return {
            "submissions": sorted(gradebook.submission_dicts("01_softmax"), key=lambda s: s["student"]),
            "notebooks": sorted(gradebook.notebook_submission_dicts("softmax", "01_softmax"),
                                key=lambda s: s["student"]),
            "alice written": grade("softmax_written_answer", "alice"),
            "dave overridden": grade("test_softmax_axis", "dave"),
            "carol extra": grade("test_softmax_axis", "carol"),
            "carol comment": gradebook.find_comment("softmax_written_answer", "softmax", "01_softmax",
                                                    "carol").manual_comment,
            "scores": {s.student.id: s.score for s in gradebook.assignment_submissions("01_softmax")},
        }


def _check_moved(source, target):
    rows = _rows(source)
    assert _rows(target) == rows                         # every table, row for row
    assert len(rows["alembic_version"]) == 1             # nbgrader's row of the new schema, once
    hand = _hand_graded(target)
    assert hand == _hand_graded(source)
    assert hand["alice written"][1:3] == (1.0, None) and hand["dave overridden"] == (2.0, 0.0, None, 0.0)
    assert hand["carol extra"][2] == 0.5 and hand["carol comment"] == COMMENT
    assert hand["scores"] == {"alice": 7.0 + 1.0, "carol": 4.0 + 0.5, "dave": 5.0 - 2.0}


def _command(*args, env=None):
    return subprocess.run([sys.executable, "-m", "autograder", *args], cwd=helpers.REPO, capture_output=True,
                          text=True, timeout=300, env={**os.environ, **(env or {})})


def test_move_copies_every_grade_score_and_comment(graded, tmp_path):
    source, target = helpers.gradebook_url(graded), _sqlite(tmp_path / "switched.db")
    before = _rows(source)
    assert gradebooks.move(source, target) == MOVED
    assert _rows(source) == before                       # the old gradebook is left as it was
    _check_moved(source, target)


def test_stranded_reports_the_courses_sqlite_until_it_is_moved(graded, tmp_path):
    course, source = courses.course_at(graded), helpers.gradebook_url(graded)
    new = tmp_path / "new.db"
    assert gradebooks.stranded(course, _sqlite(new)) == (source, 3)
    assert not new.exists()                              # looking creates nothing
    assert gradebooks.stranded(course, source) is None   # the course's own gradebook
    line = gradebooks.refusal(course, _sqlite(new))
    assert line.startswith(f"{courses.GRADEBOOK} holds 3 graded submissions of this course that {_sqlite(new)} "
                           f"does not: carry them over with `python -m autograder move-gradebook --from {source}")
    assert f"--course-root {graded}`" in line and "\n" not in line
    gradebooks.move(source, _sqlite(new))
    assert gradebooks.stranded(course, _sqlite(new)) is None and gradebooks.refusal(course, _sqlite(new)) is None

    with Gradebook(_sqlite(new)) as gradebook:   # one student missing there, others graded: no move into it
        gradebook.remove_submission("01_softmax", "dave")
    assert gradebooks.stranded(course, _sqlite(new)) == (source, 1)
    line = gradebooks.refusal(course, _sqlite(new))
    assert line.startswith(f"{courses.GRADEBOOK} holds 1 graded submission of this course that {_sqlite(new)} does "
                           f"not, and it holds others (gradebooks are never merged): set the gradebook back, or "
                           f"carry it over into a new, empty gradebook with `python -m autograder move-gradebook "
                           f"--from {source} --to NEW_URL --course-root {graded}`")


def test_the_remembered_gradebook_is_checked_and_may_be_gone(graded, tmp_path):
    course, source = courses.course_at(graded), helpers.gradebook_url(graded)
    copy = _sqlite(tmp_path / "copy.db")
    gradebooks.move(source, copy)
    gradebooks.remember(course, copy)
    path = graded / gradebooks.REMEMBERED
    assert path.read_text().strip() == copy and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert gradebooks.stranded(course, _sqlite(tmp_path / "empty.db")) == (copy, 3)   # the last one used, first
    assert gradebooks.stranded(course, copy) is None and gradebooks.stranded(course, source) is None

    gradebooks.remember(course, "postgresql://grader:secret@127.0.0.1:1/gone")   # nobody listens there
    assert gradebooks.stranded(course, source) is None                             # cannot tell: no crash
    assert gradebooks.stranded(course, _sqlite(tmp_path / "empty.db")) == (source, 3)
    gone = tmp_path / "deleted.db"
    gradebooks.remember(course, _sqlite(gone))
    assert gradebooks.stranded(course, source) is None and not gone.exists()


def test_move_refuses_a_gradebook_with_submissions_and_leaves_it_unchanged(graded, tmp_path):
    source = helpers.gradebook_url(graded)
    target = _sqlite(tmp_path / "target.db")
    gradebooks.move(source, target)
    with Gradebook(target) as gradebook:                 # graded there since
        gradebook.find_grade("softmax_written_answer", "softmax", "01_softmax", "carol").manual_score = 0.5
        gradebook.db.commit()
    before = _rows(target)
    with pytest.raises(gradebooks.GradebookError, match=r"already holds 3 submission\(s\)") as refused:
        gradebooks.move(source, target)
    assert isinstance(refused.value, NotebookError) and "\n" not in str(refused.value)
    assert _rows(target) == before


def test_move_refuses_the_same_database_and_an_empty_source(graded, tmp_path):
    source = helpers.gradebook_url(graded)
    same = _sqlite(graded / "." / courses.GRADEBOOK)
    with pytest.raises(gradebooks.GradebookError, match="are the same database"):
        gradebooks.move(source, same)
    with pytest.raises(gradebooks.GradebookError, match="in memory"):
        gradebooks.move(source, "sqlite://")
    nothing = tmp_path / "nothing.db"
    with pytest.raises(gradebooks.GradebookError, match="does not exist: nothing to move"):
        gradebooks.move(_sqlite(nothing), _sqlite(tmp_path / "to.db"))
    assert not nothing.exists() and not (tmp_path / "to.db").exists()
    with Gradebook(_sqlite(tmp_path / "empty.db")):      # nbgrader's schema, no submission
        pass
    with pytest.raises(gradebooks.GradebookError, match="holds no graded submission"):
        gradebooks.move(_sqlite(tmp_path / "empty.db"), _sqlite(tmp_path / "to.db"))


def test_a_target_with_the_assignment_but_no_submission_takes_the_sources(graded, tmp_path):
    """`nbgrader generate_assignment` (or the class run) may have added the assignment to the new
    gradebook with its own ids before the switch was noticed: the source's definitions replace them."""
    source, target = helpers.gradebook_url(graded), _sqlite(tmp_path / "released.db")
    helpers.nbgrader("generate_assignment", "01_softmax", root=graded, db_url=target)
    with Gradebook(target) as gradebook:
        gradebook.update_or_create_student("zoe", first_name="Zoe")   # the target's roster stays
        gradebook.add_assignment("02_other")
    assert gradebooks.move(source, target) == MOVED
    rows, moved = _rows(source), _rows(target)
    for table in ("notebook", "base_cell", "grade_cells", "submitted_assignment", "grade", "comment"):
        assert moved[table] == rows[table], table
    assert {row["name"] for row in moved["assignment"]} == {"01_softmax", "02_other"}
    assert {row["id"] for row in moved["student"]} == {"alice", "carol", "dave", "zoe"}
    assert _hand_graded(target) == _hand_graded(source)


def test_the_command_moves_into_the_courses_gradebook_in_one_line(graded, tmp_path):
    source, switched = helpers.gradebook_url(graded), _sqlite(tmp_path / "switched.db")
    result = _command("move-gradebook", "--from", source, "--course-root", str(graded),
                      env={courses.GRADEBOOK_URL_VARIABLE: switched})
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"carried over 3 student(s), 3 graded submission(s), 2 manual grade(s) "
                                          f"and 1 manual comment(s) from {source} to {switched}"]
    _check_moved(source, switched)
    assert gradebooks.remembered(courses.course_at(graded)) == switched   # the course's gradebook now


@pytest.mark.parametrize("args, words", [
    (["--from", "sqlite:///{tmp}/nothing.db", "--to", "sqlite:///{tmp}/to.db"], "does not exist: nothing to move"),
    (["--from", "gradebook.db", "--to", "sqlite:///{tmp}/to.db"], "'gradebook.db' is not a database URL"),
    (["--from", "postgresql//grader:secret@host/gb", "--to", "sqlite:///{tmp}/to.db"],
     "'postgresql//grader:***@host/gb' is not a database URL"),
    (["--to", "sqlite:///{tmp}/to.db"], "the following arguments are required: --from"),
], ids=["nothing-there", "not-a-url", "malformed-with-password", "no-from"])
def test_a_bad_move_exits_non_zero_in_one_line(tmp_path, args, words):
    result = _command("move-gradebook", *(arg.format(tmp=tmp_path) for arg in args),
                      "--course-root", str(helpers.course(tmp_path)))
    assert result.returncode != 0 and result.stdout == ""
    assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "secret" not in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "to.db").exists()


def test_moving_into_postgresql_with_the_command(graded, new_postgres_database):
    course, source = courses.course_at(graded), helpers.gradebook_url(graded)
    # The test server trusts loopback, so the password is ignored there but must never be printed.
    db_url = new_postgres_database().replace("postgres@", "postgres:secret@", 1)
    line = gradebooks.refusal(course, db_url)
    assert line.startswith(f"{courses.GRADEBOOK} holds 3 graded submissions") and "secret" not in line
    assert "--to 'postgresql://postgres:***@" in line and "(*** being the password)" in line

    env = {courses.GRADEBOOK_URL_VARIABLE: db_url}
    result = _command("move-gradebook", "--from", source, "--course-root", str(graded), env=env)
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == 1 and "secret" not in result.stdout + result.stderr
    assert result.stdout.startswith("carried over 3 student(s), 3 graded submission(s), 2 manual grade(s) "
                                    "and 1 manual comment(s) from ")
    _check_moved(source, db_url)
    assert gradebooks.stranded(course, db_url) is None

    again = _command("move-gradebook", "--from", source, "--course-root", str(graded), env=env)
    assert again.returncode != 0 and len(again.stderr.strip().splitlines()) == 1
    assert "already holds 3 submission(s)" in again.stderr and "secret" not in again.stderr
