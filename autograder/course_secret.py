"""The course's grading secret: what the class run's hidden inputs are drawn from.

A grade must be a function of the submission and the course only, so every
machine that grades into one gradebook must draw the same hidden inputs.  The
secret therefore belongs to the course, and the gradebook records which one
its grades were drawn with (a fingerprint, never the secret):

* the first class run of a course creates the secret (``autograder/grading-secret``
  in the course root, mode 0600, git-ignored) and records its fingerprint in
  the gradebook (a table of its own, ``attention_book``, beside nbgrader's);
* every later run, on any machine, reads the secret from that file or from
  ``$ATTENTION_GRADING_SECRET`` and refuses, with one line, to grade into a
  gradebook that records another fingerprint, or when it has no secret while
  the gradebook records one; it never invents a second secret;
* the learner's tools (the self-check, nbgrader's Validate) never read or
  create it: they draw from the learner's code alone (``checks.self_check_draw``).
"""
import hashlib
import os
import secrets
from pathlib import Path

from . import safe
from .notebooks import NotebookError

SECRET_VARIABLE = "ATTENTION_GRADING_SECRET"
SECRET_FILE = "autograder/grading-secret"     # in the course root
_KEY = "secret-fingerprint"


class CourseSecretError(NotebookError):
    """This machine's secret is not the one the gradebook's grades were drawn with."""


def fingerprint(secret):
    """A short public name of ``secret``: tells two secrets apart, reveals nothing of the draw."""
    return hashlib.sha256(b"attention-book course secret\0" + secret.encode()).hexdigest()[:16]


def draw_of(secret):
    """The class run's draw (``checks.rng`` seeds from it) for ``secret``."""
    return f"class:{hashlib.sha256(secret.encode()).hexdigest()}"


def _local_secret(course):
    """(secret or None, where it came from) on this machine."""
    secret = os.environ.get(SECRET_VARIABLE, "").strip()
    if secret:
        return secret, f"${SECRET_VARIABLE}"
    path = Path(course.root) / SECRET_FILE
    try:
        secret = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        return None, str(path)
    except (OSError, UnicodeDecodeError) as error:
        raise CourseSecretError(f"the course's grading secret {path} cannot be read ({type(error).__name__}); "
                                f"make it a readable file, or set {SECRET_VARIABLE}") from None
    if not secret:   # a failed copy, a `touch`: never taken for "no secret", which would make a new one
        raise CourseSecretError(f"the course's grading secret {path} is empty: copy the course's secret into it "
                                f"(or set {SECRET_VARIABLE}), or delete it if this course has never been graded")
    return secret, str(path)


def _table():
    import sqlalchemy as sa
    metadata = sa.MetaData()
    return sa.Table("attention_book", metadata, sa.Column("key", sa.String(64), primary_key=True),
                    sa.Column("value", sa.String(256), nullable=False))


def despite_racing_creators(create, attempts=5):
    """Run ``create`` (tables made on a gradebook): several graders starting at once on a new PostgreSQL
    database race to create the same tables, and the losers' CREATE fails (a unique violation in the
    catalog, or "already exists"); they wait a moment and try again, finding the tables made."""
    import time
    from sqlalchemy.exc import IntegrityError, ProgrammingError
    for attempt in range(attempts):
        try:
            return create()
        except (IntegrityError, ProgrammingError):
            if attempt == attempts - 1:
                raise
            time.sleep(0.5 * (attempt + 1))


def recorded_fingerprint(url):
    """The fingerprint the gradebook at ``url`` records, or None (a gradebook nobody graded into yet)."""
    import sqlalchemy as sa
    table = _table()
    engine = sa.create_engine(url)
    try:
        if not sa.inspect(engine).has_table(table.name):
            return None
        with engine.connect() as connection:
            return connection.execute(sa.select(table.c.value).where(table.c.key == _KEY)).scalar()
    finally:
        engine.dispose()


def record_fingerprint(url, value):
    """Record ``value`` unless the gradebook records one already; return the one it records now
    (two machines starting on a new gradebook at once: the first insert wins)."""
    import sqlalchemy as sa
    from sqlalchemy.exc import IntegrityError
    table = _table()
    engine = sa.create_engine(url)
    try:
        despite_racing_creators(lambda: table.metadata.create_all(engine))
        try:
            with engine.begin() as connection:
                connection.execute(table.insert().values(key=_KEY, value=value))
        except IntegrityError:
            pass
        with engine.connect() as connection:
            return connection.execute(sa.select(table.c.value).where(table.c.key == _KEY)).scalar()
    finally:
        engine.dispose()


_verified = {}   # (gradebook URL, fingerprint) -> draw, once per process


def class_draw(course):
    """The class run's draw for ``course``, checked against the gradebook it grades into.

    Creates the course's secret only when neither this machine nor the gradebook has one;
    else raises CourseSecretError with the one line that says how to get the course's secret.
    """
    url = course.gradebook_url
    secret, where = _local_secret(course)
    if secret is not None and (url, fingerprint(secret)) in _verified:
        return _verified[url, fingerprint(secret)]
    recorded = recorded_fingerprint(url)
    if secret is None and recorded is not None:   # another grader of this machine may have just made it
        secret, where = _local_secret(course)        # (the file is written before its fingerprint)
    created = None
    if recorded is None:
        if secret is None:   # a new course: the file first, so no fingerprint is ever recorded without it
            secret, where, created = _create_secret(course)
        recorded = record_fingerprint(url, fingerprint(secret))
    if created is not None and fingerprint(secret) != recorded:
        created.unlink()     # another machine recorded its secret first: ours was never used
        secret, where = None, str(created)
    get_it = (f"copy the file {SECRET_FILE} from the course root of the machine that graded first to "
              f"{Path(course.root) / SECRET_FILE}, or set {SECRET_VARIABLE} to its contents")
    if secret is None:
        raise CourseSecretError(
            f"the gradebook {safe.url_without_password(url)} was graded with the course secret {recorded}, and this machine "
            f"has none ({where} does not exist): {get_it}; a new secret would draw other hidden inputs")
    if fingerprint(secret) != recorded:
        raise CourseSecretError(
            f"the gradebook {safe.url_without_password(url)} was graded with the course secret {recorded}, but {where} holds "
            f"another secret ({fingerprint(secret)}): {get_it}")
    _verified[url, recorded] = draw_of(secret)
    return _verified[url, recorded]


def submission_draw(course, student, submission):
    """The draw of one submission in the class run: the course's, narrowed to the student and the code
    they handed in.  The same submission always gets the same inputs, on any machine; what one
    learner learns of their inputs (an exception that prints its argument, shown in the feedback)
    fits neither another learner's submission nor their own next one."""
    import json
    from . import notebooks
    code = json.dumps([student, notebooks.learner_cells(submission)])
    return f"{class_draw(course)}:{hashlib.sha256(code.encode()).hexdigest()}"


def _create_secret(course):
    """(secret, where, path) of a new secret written to the course's file, atomically (a link made
    from a complete file): a grader of this machine that made it first wins, and its secret is used
    (path None then: not ours to remove)."""
    path = Path(course.root) / SECRET_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_hex(32)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(secret + "\n")
    try:
        os.link(partial, path)
    except FileExistsError:
        return (*_local_secret(course), None)
    finally:
        partial.unlink()
    return secret, str(path), path


def seal_key(course):
    """The key that seals what the grader records in an autograded notebook (``preprocessors.record``),
    derived from the course's secret, which learner code never sees; None on a machine without it."""
    secret, _where = _local_secret(course)
    return hashlib.sha256(b"attention-book sealed records\0" + secret.encode()).digest() if secret else None


def fingerprint_in_force(course):
    """The fingerprint of this machine's secret for ``course`` (after ``class_draw`` accepted it)."""
    secret, _where = _local_secret(course)
    return fingerprint(secret) if secret else None
