"""Collect from nbgrader's exchange without trusting it: ``python -m autograder collect --exchange``
and ``nbgrader collect`` (the course's configuration plugs `DescriptorCollect` into nbgrader's
``ExchangeFactory``, so both collectors read the exchange the same way).

nbgrader's exchange names each submission ``<student>+<assignment>+<timestamp>[+<random>]`` in
the course's inbound folder, which every student can write.  Stock ``nbgrader collect`` takes the
student from that name (it only warns when the folder's owner differs) and copies the folder by
path, following links, with the instructor's rights: a learner's folder swapped for a link to
``solutions/`` is collected as her work.  Here:

* the student is the folder's owner, never its name; a folder named after someone else is refused;
* the inbound folder is opened once, and every component below it is opened relative to its
  parent's descriptor without following links (``O_NOFOLLOW``); type, owner and identity are
  checked with ``fstat`` on the opened descriptor, and the copy reads from that same descriptor,
  so whatever is swapped after a check is never what is read;
* a submission holding a link, a fifo, socket or device, a file or folder its owner does not own,
  a name that is not printable text, or more than the bounds below (bytes counted as read, so a
  sparse or growing file costs at most the bound) is skipped with a one-line reason, and so is
  one that cannot be read at all; the others are collected;
* a submission is written into a temporary folder beside its place in autograder/submitted/ and
  renamed into place only once all of it was read within the bounds;
* the submission's time is the kernel's, never only the learner's: the folder's name holds the
  time ``nbgrader submit`` claims, which the learner can write; the kernel's change time
  (``st_ctime``, which no user can set) of the folder and of every file read is when it last
  changed.  A name claiming an earlier time than that, by more than ``CLAIM_GRACE``, is overruled
  by the kernel's; timestamp.txt records the result, and the newest submission is chosen by it;
* every learner-chosen name printed is quoted (``safe.quoted``).
"""
import dataclasses
import datetime
import fnmatch
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect

from .collect import TIMESTAMP_FORMAT
from .notebooks import NotebookError
from .safe import quoted

MAX_FILE_BYTES = 16 * 2**20          # one file (a notebook with its outputs fits many times)
MAX_SUBMISSION_BYTES = 64 * 2**20    # one submission in all
MAX_ENTRIES = 256                    # files and folders listed in one submission
MAX_DEPTH = 8                        # folders inside folders
MAX_FOLDERS_PER_STUDENT = 1000       # submission folders of one assignment by one owner
IGNORED = (".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback")   # nbgrader's CourseDirectory.ignore
WRITTEN_HERE = ("timestamp.txt",)    # recorded by the collector, not copied from the learner
CLAIM_GRACE = datetime.timedelta(seconds=60)   # nbgrader submit names the folder, then copies into it
_CHUNK = 2**20
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC   # never blocks on a fifo


class Refused(Exception):
    """Why one submission is not collected: one line, learner-chosen names already quoted."""


@dataclasses.dataclass(frozen=True)
class Folder:
    """A submission folder of the inbound folder, as listed (``lstat``)."""
    name: str
    student: str                     # its owner's user name
    uid: int
    when: datetime.datetime          # its time, naive UTC: the name's, unless the kernel's is later (``trusted_time``)
    identity: tuple                  # (st_dev, st_ino): what is read later must be this folder

    @property
    def timestamp(self):
        """The text of timestamp.txt, as nbgrader's exchange writes it."""
        return self.when.replace(tzinfo=datetime.timezone.utc).strftime(TIMESTAMP_FORMAT)


def _utc(seconds):
    """A kernel time (seconds since the epoch) as nbgrader's naive UTC datetime."""
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).replace(tzinfo=None)


def trusted_time(claimed, changed):
    """The time of a submission: what its name claims, unless the kernel saw it change later than
    that by more than ``CLAIM_GRACE`` (a back-dated name): then the kernel's."""
    return changed if changed > claimed + CLAIM_GRACE else claimed


def _owner(uid):
    import pwd
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return None


def _why(error):
    """A Refused's reason, or an OSError's as one line."""
    if isinstance(error, Refused):
        return str(error)
    return f"could not be read ({error.strerror or type(error).__name__})"


def open_inbound(path):
    """The inbound folder, opened once (it is the instructor's: following links to it is fine)."""
    try:
        return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as error:
        raise NotebookError(f"no exchange inbound folder {path}/ ({error.strerror}; set c.Exchange.root "
                            f"and the course id)") from None


def list_inbound(inbound, assignment, student="*"):
    """({owner: [Folder]}, skipped): the submission folders of ``assignment`` in the inbound
    folder open as ``inbound``, by owner; ``student`` is a glob on owners (nbgrader's --student).
    ``skipped`` is [(folder name, reason)]."""
    from nbgrader.utils import parse_utc
    # <student>+<assignment>+<timestamp>[+<random>] (nbgrader's submit adds the random part by
    # default); the assignment is known, so a "+" in the student part is no ambiguity
    pattern = re.compile(rf"(?P<student>.+)\+{re.escape(assignment)}\+(?P<timestamp>[^+]+)(?:\+[^+]*)?", re.DOTALL)
    by_owner, skipped, counts = {}, [], {}
    with os.scandir(inbound) as listing:    # streamed: the folder may hold any number of names
        for entry in listing:
            name = entry.name
            match = pattern.fullmatch(name)
            if match is None:
                continue
            try:
                info = os.stat(name, dir_fd=inbound, follow_symlinks=False)
            except OSError as error:
                skipped.append((name, _why(error)))
                continue
            owner = _owner(info.st_uid)
            if not (fnmatch.fnmatchcase(owner or "", student) or fnmatch.fnmatchcase(match["student"], student)):
                continue
            counts[info.st_uid] = counts.get(info.st_uid, 0) + 1
            if counts[info.st_uid] > MAX_FOLDERS_PER_STUDENT:
                continue                       # said once below, for the owner
            if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
                skipped.append((name, "not a folder (a link?)"))
                continue
            if owner is None or owner != match["student"]:
                skipped.append((name, f"named after {quoted(match['student'])} but owned by "
                                      f"{quoted(owner or str(info.st_uid))}"))
                continue
            try:   # dateutil raises several kinds; a date at the calendar's end overflows with the grace
                when = trusted_time(parse_utc(match["timestamp"]), _utc(info.st_ctime))
            except Exception:
                skipped.append((name, "an unreadable timestamp"))
                continue
            by_owner.setdefault(owner, []).append(Folder(name, owner, info.st_uid, when, (info.st_dev, info.st_ino)))
    for uid, count in counts.items():
        if count > MAX_FOLDERS_PER_STUDENT:
            owner = _owner(uid) or str(uid)
            by_owner.pop(owner, None)
            skipped.append((owner, f"more than {MAX_FOLDERS_PER_STUDENT} folders of {assignment} owned by "
                                   f"{quoted(owner)}: none collected"))
    return by_owner, skipped


def choose(by_owner, skipped, duedate=None):
    """{student: Folder}: each owner's newest folder, or with ``duedate`` (nbgrader's
    --before-duedate) the newest one submitted by then, else the newest.  The others join ``skipped``."""
    chosen = {}
    for student, folders in by_owner.items():
        ordered = sorted(folders, key=lambda f: (f.when, f.name), reverse=True)
        pick = ordered[0]
        if duedate is not None:
            pick = next((f for f in ordered if f.when <= duedate), pick)
        chosen[student] = pick
        skipped.extend((f.name, "an older submission" if f.when <= pick.when else
                        "submitted after the due date (an earlier one is collected)") for f in ordered if f is not pick)
    return chosen


class _Budget:
    """What one submission has used of its bounds so far."""
    def __init__(self):
        self.entries = 0
        self.bytes = 0
        self.changed = 0.0                     # the latest st_ctime of what was read


def _copy_file(source, opened, name, target, budget, shown):
    room = min(MAX_FILE_BYTES, MAX_SUBMISSION_BYTES - budget.bytes)
    too_big = (f"{quoted(shown)} is larger than {MAX_FILE_BYTES // 2**20} MiB" if room == MAX_FILE_BYTES
               else f"more than {MAX_SUBMISSION_BYTES // 2**20} MiB in all")
    if opened.st_size > room:
        raise Refused(too_big)
    sink = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=target)
    with os.fdopen(sink, "wb") as written:
        copied = 0
        while chunk := os.read(source, min(_CHUNK, room + 1 - copied)):   # at most one byte past the bound
            copied += len(chunk)
            if copied > room:                  # it grew after the fstat
                raise Refused(too_big)
            written.write(chunk)
    budget.bytes += copied


def _copy_entry(source, name, target, uid, budget, ignore, depth, shown):
    listed = os.stat(name, dir_fd=source, follow_symlinks=False)
    if stat.S_ISLNK(listed.st_mode):
        raise Refused(f"holds a symbolic link ({quoted(shown)})")
    if not (stat.S_ISREG(listed.st_mode) or stat.S_ISDIR(listed.st_mode)):
        raise Refused(f"holds {quoted(shown)}, which is not a file")   # a fifo or device is never opened
    folder = stat.S_ISDIR(listed.st_mode)
    if folder and depth >= MAX_DEPTH:
        raise Refused(f"folders nested more than {MAX_DEPTH} deep ({quoted(shown)})")
    if not folder and listed.st_size > MAX_FILE_BYTES:   # refused before it is opened
        raise Refused(f"{quoted(shown)} is larger than {MAX_FILE_BYTES // 2**20} MiB")
    descriptor = os.open(name, _READ | (os.O_DIRECTORY if folder else 0), dir_fd=source)
    try:
        opened = os.fstat(descriptor)          # the object read below, whatever the name now points to
        if (opened.st_dev, opened.st_ino) != (listed.st_dev, listed.st_ino) or \
                stat.S_IFMT(opened.st_mode) != stat.S_IFMT(listed.st_mode):
            raise Refused(f"{quoted(shown)} changed while it was being collected")
        if opened.st_uid != uid:
            raise Refused(f"holds {quoted(shown)}, owned by {quoted(_owner(opened.st_uid) or str(opened.st_uid))}")
        budget.changed = max(budget.changed, opened.st_ctime)
        if not folder:
            _copy_file(descriptor, opened, name, target, budget, shown)
            return
        os.mkdir(name, 0o755, dir_fd=target)
        inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=target)
        try:
            _copy_tree(descriptor, inner, uid, budget, ignore, depth + 1, shown + "/")
        finally:
            os.close(inner)
    finally:
        os.close(descriptor)


def _copy_tree(source, target, uid, budget, ignore, depth=0, prefix=""):
    """Copy the folder open as ``source`` into the folder open as ``target``, within the bounds."""
    names = []
    with os.scandir(source) as listing:        # scandir duplicates the descriptor: ``source`` stays open
        for entry in listing:
            budget.entries += 1
            if budget.entries > MAX_ENTRIES:
                raise Refused(f"more than {MAX_ENTRIES} files and folders")
            names.append(entry.name)
    for name in sorted(names):
        shown = prefix + name
        if any(fnmatch.fnmatchcase(name, pattern) for pattern in ignore) or (depth == 0 and name in WRITTEN_HERE):
            continue
        if not name.isprintable():             # newlines, escapes, bytes that are not UTF-8
            raise Refused(f"holds a name that is not printable text ({quoted(shown)})")
        try:
            _copy_entry(source, name, target, uid, budget, ignore, depth, shown)
        except OSError as error:
            raise Refused(f"could not read {quoted(shown)} ({error.strerror or type(error).__name__})") from None


def copy_submission(inbound, folder, destination, ignore=IGNORED):
    """Read ``folder`` (a Folder of the inbound folder open as ``inbound``) through descriptors into
    a temporary folder beside ``destination``, and put it in place of ``destination`` once all of it
    was read within the bounds.  Refused (or OSError) when it is not collected; nothing is then changed."""
    destination = Path(destination)
    parent_made = not destination.parent.exists()
    destination.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{destination.name}.collecting-", dir=destination.parent))
    try:
        try:
            source = os.open(folder.name, _READ | os.O_DIRECTORY, dir_fd=inbound)
        except OSError as error:               # ELOOP: a link put in its place after the listing
            raise Refused(f"could not be opened ({error.strerror})") from None
        try:
            opened = os.fstat(source)
            if (opened.st_dev, opened.st_ino) != folder.identity or opened.st_uid != folder.uid:
                raise Refused("changed while it was being collected")
            target = os.open(scratch, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            budget = _Budget()
            try:
                _copy_tree(source, target, folder.uid, budget, ignore)
            finally:
                os.close(target)
        finally:
            os.close(source)
        if budget.changed:                     # a file changed after the folder's time: the file's
            folder = dataclasses.replace(folder, when=trusted_time(folder.when, _utc(budget.changed)))
        (scratch / "timestamp.txt").write_text(folder.timestamp)
        secret = scratch / "submission_secret.txt"   # what release_feedback names the feedback by
        if not secret.exists():
            secret.write_text(secrets.token_hex(64))
        os.chmod(scratch, 0o755)
        replaced = None
        if destination.exists() or destination.is_symlink():
            replaced = destination.with_name(f".{destination.name}.replaced-{secrets.token_hex(4)}")
            os.rename(destination, replaced)
        try:
            os.rename(scratch, destination)
        except BaseException:
            if replaced is not None:
                os.rename(replaced, destination)   # the earlier collection stays
            raise
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        if parent_made:
            try:
                destination.parent.rmdir()   # no empty folder for a student with nothing collected
            except OSError:
                pass
        raise
    if replaced is not None:
        shutil.rmtree(replaced, ignore_errors=True)


def collect_exchange(course, inbound, assignment, out=None, ignore=IGNORED):
    """Collect the newest submission of each student from the exchange's ``inbound`` folder into
    autograder/submitted/, replacing what was there; print what was collected and each folder skipped
    with its reason; return (students, skipped).  NotebookError when nothing was collected."""
    out = out or sys.stdout
    course.exercise(assignment)                # a misspelled assignment stops here
    inbound = Path(inbound)
    descriptor = open_inbound(inbound)
    collected = []
    try:
        by_owner, skipped = list_inbound(descriptor, assignment)
        for student, folder in sorted(choose(by_owner, skipped).items()):
            try:
                copy_submission(descriptor, folder, course.submitted / student / assignment, ignore)
            except (Refused, OSError) as error:   # that student's reason, never the end of the run
                skipped.append((folder.name, _why(error)))
            else:
                collected.append(student)
    finally:
        os.close(descriptor)
    skipped.sort()
    if not collected:
        raise NotebookError(f"collected nothing for {assignment} from {inbound}/"
                            + (": " + "; ".join(f"{quoted(n)} ({why})" for n, why in skipped[:10]) if skipped else ""))
    print(f"collected {len(collected)} submission(s) of {assignment} from {inbound}/ into {course.submitted}/"
          + (f"; skipped {len(skipped)} folder(s):" if skipped else ""), file=out)
    for name, why in skipped:
        print(f"  skipped {quoted(name)}: {why}", file=out)
    return collected, skipped


class DescriptorCollect(ExchangeCollect):
    """``nbgrader collect`` (and Formgrader's Collect button) reading the exchange as
    `collect_exchange` does (module docstring): the student is each folder's owner, whatever
    ``check_owner`` says, and a submission is read through descriptors, within bounds.
    nbgrader's ``--student``, ``--update``, ``--before-duedate`` and timestamp.txt are kept.

    The course's nbgrader_config.py sets ``c.ExchangeFactory.collect`` to this class."""

    def init_src(self):
        from nbgrader.api import Gradebook, MissingEntry
        if self.coursedir.course_id == "":
            self.fail("No course id specified. Re-run with --course flag.")
        self.inbound_path = os.path.join(self.root, self.coursedir.course_id, "inbound")
        try:
            self.inbound = open_inbound(self.inbound_path)
        except NotebookError as error:
            self.fail(str(error))
        try:
            with Gradebook(self.coursedir.db_url, self.coursedir.course_id) as gradebook:
                try:
                    self.duedate = gradebook.find_assignment(self.coursedir.assignment_id).duedate
                except MissingEntry:
                    self.duedate = None
            by_owner, self.skipped = list_inbound(self.inbound, self.coursedir.assignment_id,
                                                  self.coursedir.student_id or "*")
            chosen = choose(by_owner, self.skipped, self.duedate if self.before_duedate else None)
        except BaseException:
            os.close(self.inbound)
            raise
        self.src_records = [chosen[student] for student in sorted(chosen)]

    def _wanted(self, folder, destination):
        """nbgrader's rule: a new submission, or (--update) a newer one, or (--before-duedate) another one."""
        if not os.path.isdir(destination):
            return True
        existing = self.coursedir.get_existing_timestamp(destination)
        if self.update and (existing is None or folder.when > existing):
            return True
        return bool(self.before_duedate and existing != folder.when)

    def copy_files(self):
        assignment = self.coursedir.assignment_id
        try:
            if not self.src_records:
                self.log.warning("No submissions of '%s' for course '%s' to collect", assignment,
                                 self.coursedir.course_id)
            for folder in self.src_records:
                destination = self.coursedir.format_path(self.coursedir.submitted_directory, folder.student, assignment)
                if not self._wanted(folder, destination):
                    self.log.info("Submission already collected (use --update for a newer one): %s %s",
                                  folder.student, assignment)
                    continue
                try:
                    copy_submission(self.inbound, folder, destination, self.coursedir.ignore)
                except (Refused, OSError) as error:   # that student's reason, never the end of the run
                    self.skipped.append((folder.name, _why(error)))
                else:
                    self.log.info("Collected submission: %s %s (%s)", folder.student, assignment, folder.timestamp)
        finally:
            os.close(self.inbound)
        for name, why in sorted(self.skipped):
            self.log.warning("Skipped %s: %s", quoted(name), why)
