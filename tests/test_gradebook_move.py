"""Switching gradebooks midway loses nothing (autograder/gradebooks.py).

A small class of 01_softmax is graded into the course's SQLite gradebook, then graded by
hand as formgrader does (a written answer, an overridden test, extra credit, a comment).
`move` carries every row into another database, identical; a gradebook that already holds
submissions is refused and left as it was; `stranded` and `refusal` see the grades a new,
empty gradebook lacks (graded submissions, and what was entered by hand), until they are
moved; the command retires the gradebook it moved out of; `python -m autograder
move-gradebook` prints one line, or one line on stderr and a non-zero status, never a
password.  The last test moves into PostgreSQL.
"""
import os
import shutil
import stat
import subprocess
import sys

import pytest
from nbgrader.api import Base, Gradebook

import helpers
import postgres
from autograder import classrun, gradebooks, safe
from autograder import course as courses
from autograder.notebooks import NotebookError

pytestmark = pytest.mark.nbgrader

CORRECT = helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py"
WRONG = helpers.SUBMISSIONS / "01_softmax" / "wrong"
CLASS = {"alice": CORRECT, "carol": WRONG / "axis_ignored.py", "dave": WRONG / "no_max_subtraction.py"}
COMMENT = "Shift invariance: exp(x − c) cancels. 正規化の定数は約分される。"
# (students, submissions, grades with a manual score, comments with a manual comment)
MOVED = gradebooks.Moved(3, 3, 2, 1)
# What the hand-graded class holds that an empty gradebook does not: (graded submissions,
# grades with a manual score or extra credit, comments with a manual comment)
HELD = gradebooks.Missing(3, 3, 1)


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
    """Each test starts with no gradebook remembered or retired for the shared course."""
    yield
    if "graded" in request.fixturenames:
        (request.getfixturevalue("graded") / gradebooks.REMEMBERED).unlink(missing_ok=True)
        (request.getfixturevalue("graded") / gradebooks.RETIRED).unlink(missing_ok=True)


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
    assert gradebooks.stranded(course, _sqlite(new)) == (source, HELD)
    assert not new.exists()                              # looking creates nothing
    assert gradebooks.stranded(course, source) is None   # the course's own gradebook
    line = gradebooks.refusal(course, _sqlite(new))
    assert line.startswith(f"{courses.GRADEBOOK} holds 3 graded submissions, 3 hand-entered grades and 1 "
                           f"hand-entered comment of this course that {_sqlite(new)} does not: carry them over "
                           f"with `python -m autograder move-gradebook --from {source}")
    assert f"--course-root {graded}`" in line and "\n" not in line
    gradebooks.move(source, _sqlite(new))
    assert gradebooks.stranded(course, _sqlite(new)) is None and gradebooks.refusal(course, _sqlite(new)) is None

    with Gradebook(_sqlite(new)) as gradebook:   # one student missing there, others graded: no move into it
        gradebook.remove_submission("01_softmax", "dave")
    assert gradebooks.stranded(course, _sqlite(new)) == (source, (1, 1, 0))   # dave's, and his overridden test
    line = gradebooks.refusal(course, _sqlite(new))
    assert line.startswith(f"{courses.GRADEBOOK} holds 1 graded submission and 1 hand-entered grade of this course "
                           f"that {_sqlite(new)} does not, and it holds others (gradebooks are never merged): set "
                           f"the gradebook back, or carry them over into a new, empty gradebook with `python -m "
                           f"autograder move-gradebook --from {source} --to NEW_URL --course-root {graded}`")


def test_the_remembered_gradebook_is_checked_and_may_be_gone(graded, tmp_path):
    course, source = courses.course_at(graded), helpers.gradebook_url(graded)
    copy = _sqlite(tmp_path / "copy.db")
    gradebooks.move(source, copy)
    gradebooks.remember(course, copy)
    path = graded / gradebooks.REMEMBERED
    assert path.read_text().strip() == copy and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert gradebooks.stranded(course, _sqlite(tmp_path / "empty.db")) == (copy, HELD)   # the last one used, first
    assert gradebooks.stranded(course, copy) is None and gradebooks.stranded(course, source) is None

    gradebooks.remember(course, "postgresql://grader:secret@127.0.0.1:1/gone")   # nobody listens there
    assert gradebooks.stranded(course, source) is None                             # cannot tell: no crash
    assert gradebooks.stranded(course, _sqlite(tmp_path / "empty.db")) == (source, HELD)
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
                                          f"and 1 manual comment(s) from {source} to {switched}; {source} is "
                                          f"retired: the class run no longer compares with it"]
    _check_moved(source, switched)
    assert gradebooks.remembered(courses.course_at(graded)) == switched   # the course's gradebook now
    assert gradebooks.retired(courses.course_at(graded)) == [source]


def test_a_grade_entered_by_hand_after_a_switch_is_not_lost_by_switching_back(graded, tmp_path):
    """Graded into A, moved to B with the command, carol's written answer graded by hand in B, then
    the variable unset: B holds the same submissions as A but not the same grades, and the class
    run into A refuses instead of leaving carol's point behind."""
    source, switched = helpers.gradebook_url(graded), _sqlite(tmp_path / "b.db")
    moved = _command("move-gradebook", "--from", source, "--course-root", str(graded),
                     env={courses.GRADEBOOK_URL_VARIABLE: switched})
    assert moved.returncode == 0, moved.stderr
    with Gradebook(switched) as gradebook:
        gradebook.find_grade("softmax_written_answer", "softmax", "01_softmax", "carol").manual_score = 1.0
        gradebook.db.commit()
    before = _rows(source)
    with pytest.raises(NotebookError) as refused:
        classrun.grade_class("01_softmax", jobs=1, config=courses.load_config(graded, source), progress=False)
    assert str(refused.value).startswith(
        f"{switched} holds 1 hand-entered grade of this course that {courses.GRADEBOOK} does not, and it holds "
        f"others (gradebooks are never merged): set the gradebook back, or carry it over into a new, empty "
        f"gradebook with `python -m autograder move-gradebook --from {switched} --to NEW_URL")
    assert _rows(source) == before


def test_hand_entered_grades_are_seen_when_the_class_is_autograded_again_elsewhere(graded, tmp_path):
    """Hand-graded in the course's gradebook.db, then released and autograded again with nbgrader into
    another database: every submission is there, none of the hand-entered grades and comments."""
    root = tmp_path / "copy"
    shutil.copytree(graded, root)   # nbgrader rewrites the course's autograded/ folder: not the shared course's
    course, source, other = courses.course_at(root), helpers.gradebook_url(root), _sqlite(tmp_path / "other.db")
    helpers.nbgrader("generate_assignment", "01_softmax", "--force", root=root, db_url=other)
    helpers.nbgrader("autograde", "01_softmax", "--force", root=root, db_url=other)
    assert gradebooks.stranded(course, other) == (source, (0, 3, 1))
    with pytest.raises(NotebookError) as refused:
        classrun.grade_class("01_softmax", jobs=1, config=courses.load_config(root, other), progress=False)
    assert str(refused.value).startswith(f"{courses.GRADEBOOK} holds 3 hand-entered grades and 1 hand-entered "
                                         f"comment of this course that {other} does not, and it holds others")


def test_the_command_retires_the_gradebook_it_moved_out_of(graded, tmp_path):
    """After a move the source is stale by design: what changes in the new gradebook (a student
    removed, a score corrected) must not make every later class run refuse."""
    course, source, switched = courses.course_at(graded), helpers.gradebook_url(graded), _sqlite(tmp_path / "b.db")
    result = _command("move-gradebook", "--from", source, "--course-root", str(graded),
                      env={courses.GRADEBOOK_URL_VARIABLE: switched})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith(f"; {source} is retired: the class run no longer compares with it")
    path = graded / gradebooks.RETIRED
    assert path.read_text() == source + "\n" and stat.S_IMODE(path.stat().st_mode) == 0o600
    helpers.nbgrader("db", "student", "remove", "dave", "--force", root=graded, db_url=switched)
    with Gradebook(switched) as gradebook:
        gradebook.find_grade("softmax_written_answer", "softmax", "01_softmax", "alice").manual_score = 0.5
        gradebook.db.commit()
    assert gradebooks.stranded(course, switched) is None and gradebooks.refusal(course, switched) is None

    gradebooks.retire(course, _sqlite(graded / "." / courses.GRADEBOOK))   # one line per database
    assert len(gradebooks.retired(course)) == 1
    gradebooks.remember(course, source)   # a class run graded into it again: it counts again
    assert gradebooks.retired(course) == []
    assert gradebooks.stranded(course, switched) == (source, (1, 2, 0))   # dave's, his override, alice's 1.0


@pytest.mark.parametrize("url, shown", [
    ("postgresql://grader:pw1pw2@db.example:5433/gb", "postgresql://grader:***@db.example:5433/gb"),
    ("postgresql://:pw1pw2@db.example/gb", "postgresql://:***@db.example/gb"),
    ("postgresql://db.example/gb?password=pw1pw2", "postgresql://db.example/gb?password=***"),
    ("postgresql://grader@db.example/gb?sslmode=require&password=pw1pw2",
     "postgresql://grader@db.example/gb?password=***&sslmode=require"),
    ("postgresql://grader:pw1@pw2@db.example/gb", "postgresql://grader:***@db.example/gb"),
    ("postgresql://grader:pw1@pw2:@db.example:5433/gb", "postgresql://grader:***@db.example:5433/gb"),
    ("postgresql//grader:pw1pw2@db.example/gb", "postgresql//grader:***@db.example/gb"),
    ("sqlite:////courses/講義 1/gradebook.db", "sqlite:////courses/講義 1/gradebook.db"),
], ids=["user", "no-user", "query", "query-and-user", "at-sign", "at-sign-unparsable", "malformed", "sqlite"])
def test_urls_are_shown_without_their_password(url, shown):
    assert safe.url_without_password(url) == shown
    # a driver's error quotes the URL, or the password, or (a raw "@" in it) the host make_url took
    if "pw1" not in url:
        return
    password = "pw1@pw2:" if "pw2:@" in url else "pw1@pw2" if "pw1@" in url else "pw1pw2"
    error = f"no connection to {url} (password {password})"
    if password == "pw1@pw2":   # make_url's host is "pw2@db.example"
        error += " (host pw2@db.example)"
    line = gradebooks.scrub(error, url)
    assert "pw1" not in line and "pw2" not in line, line


@pytest.mark.parametrize("url", ["postgresql://:pw1pw2@127.0.0.1:1/gb",
                                 "postgresql://grader@127.0.0.1:1/gb?password=pw1pw2",
                                 "postgresql://grader:pw1@pw2@127.0.0.1:1/gb"],
                         ids=["no-user", "query", "at-sign"])
def test_the_command_never_prints_a_password(graded, tmp_path, url):
    """Nobody listens on port 1: the move fails, as the source or as the target, in one line."""
    source = helpers.gradebook_url(graded)
    for args in (["--from", source, "--to", url], ["--from", url, "--to", _sqlite(tmp_path / "to.db")]):
        result = _command("move-gradebook", *args, "--course-root", str(graded))
        assert result.returncode != 0 and len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert "could not move" in result.stderr and "Traceback" not in result.stderr
        assert "pw1" not in result.stdout + result.stderr and "pw2" not in result.stdout + result.stderr
    assert not (graded / gradebooks.RETIRED).exists() and not (tmp_path / "to.db").exists()


def test_a_course_root_that_is_not_a_course_is_refused_before_anything_is_written(graded, tmp_path):
    source, to = helpers.gradebook_url(graded), tmp_path / "to.db"
    (tmp_path / "empty").mkdir()
    (tmp_path / "file").write_text("")
    for root, words in ((tmp_path / "nonexistent", "no such folder"), (tmp_path / "file", "no such folder"),
                        (tmp_path / "empty", "is not a course: no exercise registry")):
        for to_args in ([], ["--to", _sqlite(to)]):
            result = _command("move-gradebook", "--from", source, *to_args, "--course-root", str(root))
            assert result.returncode != 0 and result.stdout == "", result.stdout
            assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
            assert "Traceback" not in result.stderr
    assert not (tmp_path / "nonexistent").exists() and list((tmp_path / "empty").iterdir()) == []
    assert not to.exists()


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

    # libpq's other place for a password, a query parameter: the success line hides it too
    other = new_postgres_database() + "?password=secret"
    result = _command("move-gradebook", "--from", source, "--to", other, "--course-root", str(graded))
    assert result.returncode == 0, result.stderr
    assert "?password=***" in result.stdout and "secret" not in result.stdout + result.stderr
