"""Changing gradebooks midway: carry the grades over, and notice grades left behind.

The course grades into its SQLite file (``course.GRADEBOOK`` in the course root) unless
``ATTENTION_GRADEBOOK_URL`` or ``--db-url`` names another database, e.g. a
PostgreSQL one for several grading machines.  An instructor who switches after
grading some students (and hand-grading written answers in formgrader) would
start from an empty gradebook, and the export would be silently lower:

* ``move(from_url, to_url)`` copies the whole of nbgrader's gradebook into
  another database (``python -m autograder move-gradebook --from URL``);
* ``stranded(course, url)`` finds the grades of the course that a gradebook it
  used before holds and ``url`` lacks: graded submissions, and the scores, extra
  credit and comments an instructor entered by hand; ``refusal`` words it with the
  command that carries them over; ``remember`` records the gradebook a class run
  used; ``retire`` records a gradebook the move command emptied into another one
  (left stale by design: never compared again).

URLs are printed without their password.
"""
import collections
import os
import re
import shlex
from pathlib import Path

from sqlalchemy import create_engine, delete, func, inspect, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError
from sqlalchemy.util import to_list

from . import course as courses
from . import course_secret, safe
from .notebooks import NotebookError

# The last gradebook a class run of the course graded into (it may hold a password: mode 0600).
REMEMBERED = Path(courses.GRADING_LOG) / "gradebook-url"
# The gradebooks move-gradebook carried the course's grades out of, one URL a line (mode 0600 too).
RETIRED = Path(courses.GRADING_LOG) / "retired-gradebooks"
# A gradebook server that does not answer must not hold up a class run for minutes.
CONNECT_SECONDS = 10

Moved = collections.namedtuple("Moved", "students submissions manual_grades manual_comments")
# What another gradebook holds that this one lacks: graded submissions, hand-entered grades, comments.
Missing = collections.namedtuple("Missing", "submissions grades comments")
# What a database that cannot be reached, read or even driven raises.
UNREADABLE = (SQLAlchemyError, OSError, ImportError)


class GradebookError(NotebookError):
    """A gradebook that cannot be moved; ``str()`` is one line, without passwords."""


def _passwords(url):
    """Every string of ``url`` that may be its password: make_url's, a ``password`` query parameter's,
    and what runs up to the last ``@`` (a raw ``@`` in the password, which make_url cuts short)."""
    found = set()
    try:
        parsed = make_url(url)
        found.add(parsed.password)
        found.update(value for key in parsed.query if key.lower() == "password" for value in to_list(parsed.query[key]))
    except (ArgumentError, ValueError, TypeError):
        pass
    found.update(re.findall(r"[?&;]password=([^&;#]*)", url, flags=re.IGNORECASE))
    for password in re.findall(r"//[^:/@]*:(.*)@", url):
        found.update([password, *password.split("@")])   # a driver may quote the rest as the host
    return sorted((str(p) for p in found if p), key=len, reverse=True)   # a longer one before a part of it


def scrub(text, *urls):
    """``text`` on one line, without the password of any of ``urls``."""
    line = str(text).strip().splitlines()[0] if str(text).strip() else type(text).__name__
    for url in filter(None, urls):
        line = line.replace(url, safe.url_without_password(url))
        for password in _passwords(url):   # quoted some other way by a driver
            line = line.replace(password, "***")
    return line


def _parse(url):
    try:
        return make_url(url)
    except (ArgumentError, ValueError):
        raise GradebookError(f"{safe.url_without_password(url)!r} is not a database URL (e.g. sqlite:////abs/path/gradebook.db "
                             f"or postgresql://user@host/gradebook)") from None


def _sqlite_file(url):
    """The file an SQLite URL names (None: in memory); False for another database."""
    parsed = _parse(url)
    if parsed.get_backend_name() != "sqlite":
        return False
    return None if parsed.database in (None, "", ":memory:") else Path(parsed.database)


DEFAULT_PORTS = {"postgresql": 5432, "mysql": 3306, "mariadb": 3306}


def _identity(url):
    """What tells two URLs of one database apart from two databases (drivers and passwords aside)."""
    sqlite = _sqlite_file(url)
    if sqlite is not False:
        return ("sqlite", os.path.realpath(sqlite) if sqlite else object())   # each in-memory one is new
    parsed = _parse(url)
    backend = parsed.get_backend_name()
    return backend, (parsed.host or "").lower(), parsed.port or DEFAULT_PORTS.get(backend), parsed.database


def same_database(url, other):
    return _identity(url) == _identity(other)


def _exists(url):
    """False for an SQLite file that does not exist (connecting would create it)."""
    sqlite = _sqlite_file(url)
    return sqlite is False or (sqlite is not None and sqlite.is_file())


def _engine(url):
    parsed = _parse(url)
    connect_args = {"connect_timeout": CONNECT_SECONDS} if parsed.get_backend_name() == "postgresql" else {}
    return create_engine(parsed, connect_args=connect_args)


def _tables():
    from nbgrader.api import Base
    return Base.metadata.tables


def _submissions(connection, assignments=None):
    """{(assignment name, student id)} of every submission (of ``assignments``, when given)."""
    if not inspect(connection).has_table("submitted_assignment"):
        return set()
    tables = _tables()
    submitted, assignment = tables["submitted_assignment"], tables["assignment"]
    query = select(assignment.c.name, submitted.c.student_id).join_from(
        submitted, assignment, submitted.c.assignment_id == assignment.c.id)
    if assignments is not None:
        query = query.where(assignment.c.name.in_(sorted(assignments)))
    return {tuple(row) for row in connection.execute(query)}


def _hand_entered(connection, assignments=None):
    """What an instructor entered by hand (formgrader) in the submissions (of ``assignments``): a tuple
    ("grade", assignment, student, notebook, cell, manual score, extra credit) for each grade with
    either, ("comment", assignment, student, notebook, cell, comment) for each written comment."""
    if not inspect(connection).has_table("grade"):
        return set()
    tables = _tables()
    submitted, assignment = tables["submitted_assignment"], tables["assignment"]
    submitted_notebook, notebook, cell = tables["submitted_notebook"], tables["notebook"], tables["base_cell"]
    found = set()
    for kind, table, values, entered in (
            ("grade", tables["grade"], ("manual_score", "extra_credit"),
             tables["grade"].c.manual_score.is_not(None) | tables["grade"].c.extra_credit.is_not(None)),
            ("comment", tables["comment"], ("manual_comment",), tables["comment"].c.manual_comment.is_not(None))):
        query = (select(assignment.c.name, submitted.c.student_id, notebook.c.name, cell.c.name,
                        *(table.c[name] for name in values))
                 .select_from(table)
                 .join(submitted_notebook, table.c.notebook_id == submitted_notebook.c.id)
                 .join(submitted, submitted_notebook.c.assignment_id == submitted.c.id)
                 .join(assignment, submitted.c.assignment_id == assignment.c.id)
                 .join(notebook, submitted_notebook.c.notebook_id == notebook.c.id)
                 .join(cell, table.c.cell_id == cell.c.id)
                 .where(entered))
        if assignments is not None:
            query = query.where(assignment.c.name.in_(sorted(assignments)))
        found.update((kind, *row) for row in connection.execute(query))
    return found


def _alembic_version(connection):
    if not inspect(connection).has_table("alembic_version"):
        return None
    return sorted(connection.execute(text("SELECT version_num FROM alembic_version")).scalars())


def _count(connection, table, *where):
    return connection.execute(select(func.count()).select_from(table).where(*where)).scalar_one()


def _counts(connection):
    tables = _tables()
    grade, comment = tables["grade"], tables["comment"]
    return Moved(_count(connection, tables["student"]), _count(connection, tables["submitted_assignment"]),
                 _count(connection, grade, grade.c.manual_score.is_not(None)),
                 _count(connection, comment, comment.c.manual_comment.is_not(None), comment.c.manual_comment != ""))


def _drop_assignments(connection, names):
    """Remove the target's own definitions of the assignments the source brings (notebooks and
    cells, which no submission uses since the target has none): the source's go with its grades."""
    tables = _tables()
    assignment, notebook, base_cell = tables["assignment"], tables["notebook"], tables["base_cell"]
    assignments = select(assignment.c.id).where(assignment.c.name.in_(sorted(names))).scalar_subquery()
    notebooks = select(notebook.c.id).where(notebook.c.assignment_id.in_(assignments)).scalar_subquery()
    cells = select(base_cell.c.id).where(base_cell.c.notebook_id.in_(notebooks)).scalar_subquery()
    for name in ("grade_cells", "solution_cells", "task_cells"):   # the cell kinds, children of base_cell
        connection.execute(delete(tables[name]).where(tables[name].c.id.in_(cells)))
    connection.execute(delete(base_cell).where(base_cell.c.notebook_id.in_(notebooks)))
    connection.execute(delete(tables["source_cell"]).where(tables["source_cell"].c.notebook_id.in_(notebooks)))
    connection.execute(delete(notebook).where(notebook.c.assignment_id.in_(assignments)))
    connection.execute(delete(assignment).where(assignment.c.name.in_(sorted(names))))


def move(from_url, to_url):
    """Copy every row of nbgrader's gradebook at ``from_url`` into the database at ``to_url``.

    Assignments and their notebooks and cells, students, courses, submissions, their
    notebooks, grades (auto and manual scores, extra credit) and comments (auto and manual)
    are copied as they are (nbgrader's ids are UUIDs), table by table in foreign-key order,
    in one transaction on the target: all or nothing.  The target's schema is nbgrader's
    own (made by opening it with ``nbgrader.api.Gradebook``).  A course or student the target
    already has is kept; its definition of an assignment the source also has is replaced by
    the source's (it has no submission).  Stop grading into the source meanwhile.

    Refuses, with a ``GradebookError``, a target that already holds a submission (nothing is
    merged or overwritten), the source itself, a source without submissions, an in-memory
    database and gradebooks of different schema versions.  Returns the ``Moved`` counts of
    what the target received.
    """
    from nbgrader.api import Base, Gradebook
    source, target = safe.url_without_password(from_url), safe.url_without_password(to_url)
    for url in (from_url, to_url):
        if _sqlite_file(url) is None:
            raise GradebookError(f"{safe.url_without_password(url)} is an SQLite database in memory, gone with the process: "
                                 f"name a file (sqlite:////abs/path/gradebook.db)")
    if same_database(from_url, to_url):
        raise GradebookError(f"{source} and {target} are the same database: nothing to move")
    if not _exists(from_url):
        raise GradebookError(f"{source} does not exist: nothing to move")
    engines = []
    try:
        reader = _engine(from_url)
        engines.append(reader)
        with reader.connect() as src:
            if src.dialect.name == "postgresql":   # one snapshot of every table
                src = src.execution_options(isolation_level="REPEATABLE READ")
            if not _submissions(src):
                raise GradebookError(f"{source} holds no graded submission: nothing to move")
            tables = _tables()
            courses_there = sorted(src.execute(select(tables["course"].c.id)).scalars())
            assignments = set(src.execute(select(tables["assignment"].c.name)).scalars())
            if _exists(to_url):
                writer = _engine(to_url)
                engines.append(writer)
                with writer.connect() as dst:
                    _refuse_submissions(dst, target)
            # The course's secret goes with its grades: the target must record the same one (or none yet).
            secret = course_secret.recorded_fingerprint(from_url)
            there = course_secret.recorded_fingerprint(to_url) if _exists(to_url) else None
            if secret and there and secret != there:
                raise GradebookError(f"{target} records another course secret ({there}) than {source} "
                                     f"({secret}): move into a new, empty gradebook")
            # nbgrader makes the tables and its alembic_version row; opened as one of the source's
            # courses, so that the target holds no course the source does not.
            with Gradebook(to_url, **({"course_id": courses_there[0]} if courses_there else {})):
                pass
            writer = _engine(to_url)
            engines.append(writer)
            with writer.begin() as dst:
                if dst.dialect.name == "postgresql":   # no grader slips a submission in before the commit
                    dst.exec_driver_sql("LOCK TABLE submitted_assignment IN SHARE ROW EXCLUSIVE MODE")
                _refuse_submissions(dst, target)
                versions = _alembic_version(src), _alembic_version(dst)
                if versions[0] is not None and versions[0] != versions[1]:
                    raise GradebookError(f"{source} is at nbgrader schema version {', '.join(versions[0])} but "
                                         f"{target} at {', '.join(versions[1] or ['none'])}: upgrade the older one "
                                         f"first (nbgrader db upgrade)")
                _drop_assignments(dst, assignments)
                for table in Base.metadata.sorted_tables:
                    rows = [dict(row) for row in src.execute(select(table)).mappings()]
                    if table.name in ("course", "student"):   # made with the schema, or the target's roster
                        present = set(dst.execute(select(table.c.id)).scalars())
                        rows = [row for row in rows if row["id"] not in present]
                    if rows:
                        dst.execute(table.insert(), rows)
                moved = _counts(src)
            if secret:
                course_secret.record_fingerprint(to_url, secret)
            return moved
    except GradebookError:
        raise
    except UNREADABLE as error:
        raise GradebookError(f"could not move {source} to {target}: {type(error).__name__}: "
                             f"{scrub(error, from_url, to_url)}") from None
    finally:
        for engine in engines:
            engine.dispose()


def _refuse_submissions(connection, name):
    held = _submissions(connection)
    if held:
        raise GradebookError(f"{name} already holds {len(held)} submission(s): move into a new, empty "
                             f"gradebook (nothing was copied, nothing merged)")


def summary(moved, from_url, to_url, retired=False):
    """The one line the command prints after a move (``retired``: it retired ``from_url``)."""
    line = (f"carried over {moved.students} student(s), {moved.submissions} graded submission(s), "
            f"{moved.manual_grades} manual grade(s) and {moved.manual_comments} manual comment(s) "
            f"from {safe.url_without_password(from_url)} to {safe.url_without_password(to_url)}")
    if retired:
        line += f"; {safe.url_without_password(from_url)} is retired: the class run no longer compares with it"
    return line


def _write_private(path, text):
    """Replace ``path`` with ``text``, readable by its owner only (the URLs may hold passwords)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chmod(partial, 0o600)   # in case it was left over with other permissions
    os.replace(partial, path)


def _same(url, other):
    try:
        return same_database(url, other)
    except GradebookError:   # a malformed URL recorded by hand: the same only as written
        return url == other


def remember(course, url):
    """Record ``url`` as the gradebook the class runs of ``course`` grade into (``stranded`` reads it).

    A retired ``url`` is no longer retired: grades may be added to it again, so it counts again."""
    _write_private(course.root / REMEMBERED, url + "\n")
    others = retired(course)
    kept = [old for old in others if not _same(old, url)]
    if kept != others:
        _write_private(course.root / RETIRED, "".join(old + "\n" for old in kept))


def remembered(course):
    """The gradebook URL ``remember`` recorded for ``course``, or None."""
    try:
        return (course.root / REMEMBERED).read_text(encoding="utf-8").strip() or None
    except (FileNotFoundError, UnicodeDecodeError):
        return None


def retire(course, url):
    """Record that move-gradebook carried the grades of ``course`` out of ``url``: from then on the
    grades live in the target, where they change (a student removed, a score corrected), so ``url``
    is stale by design and ``stranded`` never compares with it again."""
    kept = [old for old in retired(course) if not _same(old, url)]
    _write_private(course.root / RETIRED, "".join(old + "\n" for old in [*kept, url]))


def retired(course):
    """The gradebook URLs ``retire`` recorded for ``course``."""
    try:
        text = (course.root / RETIRED).read_text(encoding="utf-8")
    except (FileNotFoundError, UnicodeDecodeError):
        return []
    return [line.strip() for line in text.splitlines() if line.strip()]


def _course_sqlite(course):
    return f"sqlite:///{course.root / courses.GRADEBOOK}"


def _course_files(course):
    """{URL: path in the course} of the SQLite gradebooks the course keeps, now and formerly."""
    names = [courses.GRADEBOOK, getattr(courses, "LEGACY_GRADEBOOK", None)]   # legacy: where it used to be
    return {f"sqlite:///{course.root / name}": name for name in names if name}


def _held(url, assignments, hand_entered=True):
    """What ``url``'s gradebook holds of ``assignments``: ("submission", assignment, student) for each
    graded submission and, with ``hand_entered``, the grades and comments entered by hand
    (``_hand_entered``); empty when it does not exist yet."""
    if not _exists(url):
        return set()
    engine = _engine(url)
    try:
        with engine.connect() as connection:
            held = {("submission", *pair) for pair in _submissions(connection, assignments)}
            return held | _hand_entered(connection, assignments) if hand_entered else held
    finally:
        engine.dispose()


def stranded(course, url):
    """The grades of ``course`` that another gradebook it used holds and ``url``'s does not.

    The other gradebooks: the last one a class run graded into (``remember``), then the
    course's own SQLite files (``course.GRADEBOOK``, and ``course.LEGACY_GRADEBOOK`` where
    earlier versions kept it) when they exist and ``url`` is another database; never one
    move-gradebook retired (``retire``).  Of the course's registered exercises, what the other
    gradebook holds and ``url``'s does not, compared exactly: a graded submission (assignment,
    student), a hand-entered grade (its manual score and extra credit) or comment.  Returns
    ``(other_url, Missing)`` for the first that misses some, else None; also None when
    ``url``'s gradebook cannot be read (it cannot tell), and an other one that cannot be read
    is passed over.  Creates no file and no table.
    """
    errors = (*UNREADABLE, GradebookError)
    assignments = {exercise.assignment for exercise in course.exercises}
    gone = retired(course)
    others = []
    for other in (remembered(course), *_course_files(course)):
        try:
            if (other and not same_database(other, url) and not any(same_database(other, o) for o in others)
                    and not any(_same(other, old) for old in gone)):
                others.append(other)
        except GradebookError:   # a malformed remembered URL: not a gradebook it used
            continue
    if not others:
        return None
    try:
        here = _held(url, assignments)
    except errors:
        return None
    for other in others:
        try:
            kinds = collections.Counter(entry[0] for entry in _held(other, assignments) - here)
        except errors:
            continue
        if kinds:
            return other, Missing(kinds["submission"], kinds["grade"], kinds["comment"])
    return None


def _display(course, url):
    """The course's SQLite file as its path in the course; another gradebook as its URL, without password."""
    for file_url, name in _course_files(course).items():
        try:
            if same_database(url, file_url):
                return name
        except GradebookError:
            break
    return safe.url_without_password(url)


def refusal(course, url):
    """One line for a class run that would grade into ``url`` while another gradebook of the course
    holds grades it lacks (see ``stranded``): how many of each kind, and the command that carries
    them over."""
    found = stranded(course, url)
    if found is None:
        return None
    other, missing = found
    try:   # move-gradebook copies only into a gradebook without submissions
        occupied = bool(_held(url, None, hand_entered=False))
    except (*UNREADABLE, GradebookError):
        occupied = False
    command = ["python", "-m", "autograder", "move-gradebook", "--from", safe.url_without_password(other)]
    if occupied:
        command += ["--to", "NEW_URL"]
    elif url != os.environ.get(courses.GRADEBOOK_URL_VARIABLE, _course_sqlite(course)):
        command += ["--to", safe.url_without_password(url)]   # not the one the command defaults to
    if course.root != courses.REPO_ROOT:
        command += ["--course-root", str(course.root)]
    run = f"`{shlex.join(command)}`" + (" (*** being the password)" if "***" in " ".join(command) else "")
    them = "them" if sum(missing) != 1 else "it"
    counted = [f"{number} {words}{'s' if number != 1 else ''}" for number, words in
               zip(missing, ("graded submission", "hand-entered grade", "hand-entered comment")) if number]
    held = " and ".join([", ".join(counted[:-1]), counted[-1]] if len(counted) > 1 else counted)
    lacks = f"{_display(course, other)} holds {held} of this course that {_display(course, url)} does not"
    if occupied:
        return (f"{lacks}, and it holds others (gradebooks are never merged): set the gradebook back, or carry "
                f"{them} over into a new, empty gradebook with {run} and grade into that one")
    return f"{lacks}: carry {them} over with {run}, then grade again (or set the gradebook back)"
