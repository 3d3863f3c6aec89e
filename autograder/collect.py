"""Import an LMS's zip of submissions: ``python -m autograder collect ASSIGNMENT [ZIP ...]``.

What ``nbgrader zip_collect`` does, without losing anyone (issues 19 and 24):

* **file names decoded as their writer meant them.** A zip entry carries the UTF-8
  flag (Python's ``zipfile``, Canvas) or not (Info-ZIP's ``zip`` and many LMS
  exports write the name's bytes as they are, UTF-8 on Linux, with at most an
  Info-ZIP "Unicode Path" extra field).  ``zipfile`` reads every unflagged name as
  code page 437, which turns ``zoë`` into ``zo├½``; here the Unicode Path field is
  used when present, then the bytes are read as UTF-8, and cp437 only when they
  are not UTF-8 (a DOS-era archive);
* **the student is the LMS's user, never a name.** Both layouts, chosen per file:

  - Canvas, every file at the top: ``<name>_[late_]<user id>_<attachment id>_<file>[-<n>].ipynb``
    (Canvas's ContentZipper); the student id is ``canvas-<user id>``, ``late_`` is kept,
    ``-<n>`` (a resubmission) keeps the highest ``n``.  The name and the file name are
    the learner's, and may themselves hold ``_<digits>_<digits>_``: an entry whose name
    reads as more than one user id is skipped, never given to anyone;
  - Moodle, a folder per participant: ``<Full Name>_<participant id>_assignsubmission_file[_]/<file>.ipynb``;
    the student id is ``moodle-<participant id>``.  Moodle numbers the participants of
    each assignment apart (its blind-marking ids), so a person's id differs between
    assignments, never between exports or resubmissions of one;

  ids are made of ``[a-z0-9-]`` only.  The name the LMS wrote becomes the student's
  ``last_name`` in the gradebook (formgrader shows it, ``nbgrader export`` writes it):
  renaming oneself changes that name and nothing else, and two people with one name
  are two students.  One id given to two names in one archive (which no LMS writes)
  is an error that names both, and neither is collected;
* **bounded**: an archive's directory, each notebook (its declared size, and the bytes
  it inflates to, streamed to disk in chunks), a student's number of notebooks and
  the run's total; a zip bomb costs neither memory nor disk;
* **one student at a time**: whatever fails while a student's files are written (a
  bad entry, a folder that cannot be made, a full disk) is that student's reason,
  and her earlier import stays as it was; everyone else is collected;
* **no time from the zip**: Canvas (``content_zipper.rb``) and Moodle (``downloader.php``)
  give every file of an export the time of the download, not of the submission, so no
  ``timestamp.txt`` is written and nbgrader computes no late penalty: lateness is the
  LMS's (its late policy); Canvas's ``LATE`` marker is listed.  Without timestamp.txt
  nbgrader's exchange ``release_feedback`` does not apply: an LMS class gets its
  feedback through the LMS;
* **resubmissions**: Canvas's ``<file>-<n>.ipynb`` and Moodle's ``<file> (<n>).ipynb`` (a file
  uploaded again beside the first): the highest ``n`` is kept;
* **nothing dropped in silence**: every file skipped is listed, one a line, with
  why (not a notebook, a name no layout explains, a link, a path leaving the
  archive, an older resubmission, too large ...); every name is quoted
  (``safe.quoted``) and every line made safe (``safe.terminal``), so a name cannot
  forge a line.  A run that collects nothing, or finds one id given to two people,
  exits non-zero; one that collects some students and skips others does not (a
  learner must not be able to fail the instructor's run), the reasons are listed.

Entries are read from the archive one by one (never extracted), so a link or a
``../`` path in the archive cannot write outside ``autograder/submitted/``.
"""
import contextlib
import dataclasses
import datetime
import os
import re
import secrets
import shutil
import stat
import struct
import sys
import unicodedata
import warnings
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from . import safe
from .course import DOWNLOADED
from .notebooks import NotebookError

MAX_NOTEBOOK_BYTES = 16 << 20       # one notebook, declared and inflated (the class run reads up to 32 MiB)
MAX_NOTEBOOKS_PER_STUDENT = 8       # the exercise's notebook first, then the others by name
MAX_RUN_BYTES = 4 << 30             # every notebook of a run together, by their declared sizes
MAX_DIRECTORY_BYTES = 16 << 20      # an archive's central directory, which zipfile reads whole
MAX_NAME_BYTES = 255                # a longer file name cannot be created (NAME_MAX)
MAX_DISPLAY_NAME = 128              # nbgrader's Student.last_name column
CHUNK_BYTES = 256 << 10             # what one read of an entry may hold in memory

# Canvas writes <name>[_late]_<user id>_<attachment id>_<file>: a lookahead finds every place
# where "_<digits>_<digits>_" could be the ids, since the name and the file may hold it too.
# Canvas writes "LATE" (older versions lower-cased the whole name: "late").
_CANVAS_IDS = re.compile(r"(?=_(?P<late>(?i:late)_)?(?P<user>[0-9]{1,20})_(?P<attachment>[0-9]{1,20})_)")
_CANVAS_FILE = re.compile(r"(?P<file>[^/]+?)(?:-(?P<resubmission>[0-9]{1,9}))?\.ipynb")
# Moodle names a file uploaded again beside the first "<name> (1).ipynb" (file_storage::get_unused_filename).
MOODLE = re.compile(r"^(?P<student>[^/]+)_(?P<user>[0-9]{1,20})_assignsubmission_file_?/"
                    r"(?P<file>[^/]+?)(?: \((?P<resubmission>[0-9]{1,9})\))?\.ipynb$")
STUDENT_ID = re.compile(r"(?:canvas|moodle)-[0-9]{1,20}")   # what _submission makes of the LMS's user id
_UNICODE_PATH = 0x7075            # Info-ZIP's "Unicode Path" extra field
_UTF8_FLAG = 0x800                # general purpose bit 11: the name is UTF-8
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S.%f %Z"   # nbgrader's Exchange.timestamp_format


def entry_name(info):
    """The name of a zip entry as its writer meant it (see the module docstring)."""
    if info.flag_bits & _UTF8_FLAG:
        return info.filename
    raw = info.orig_filename.encode("cp437")     # zipfile decoded the stored bytes as cp437
    extra = info.extra
    while len(extra) >= 4:
        kind, size = struct.unpack("<HH", extra[:4])
        body, extra = extra[4:4 + size], extra[4 + size:]
        if kind == _UNICODE_PATH and len(body) > 5 and body[0] == 1 and \
                struct.unpack("<L", body[1:5])[0] == zlib.crc32(raw):
            try:
                return body[5:].decode("utf-8")
            except UnicodeDecodeError:
                break
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return info.orig_filename


@dataclasses.dataclass
class Submission:
    student: str                 # canvas-<user id> or moodle-<participant id>
    file: str                    # the notebook's file name, as the student named it
    archive: Path
    info: zipfile.ZipInfo
    late: bool
    resubmission: int
    user: str                    # the LMS's user or participant id
    name: str                    # the entry's name in the archive, decoded
    display: str = ""            # the student's name as the LMS wrote it (the learner may edit it)
    layout: str = "canvas"
    opened: zipfile.ZipFile = dataclasses.field(default=None, repr=False)   # the archive, read once

    @property
    def timestamp(self):
        return datetime.datetime(*self.info.date_time, tzinfo=datetime.timezone.utc)


def _display_name(name):
    """The LMS's name of a student as the gradebook keeps it: one line, no control characters, bounded."""
    return " ".join(safe.clean(unicodedata.normalize("NFC", name)).split())[:MAX_DISPLAY_NAME]


def _legacy_id(display, layout):
    """The student id collect gave before ids came from the LMS (issue 24): the name itself."""
    name = unicodedata.normalize("NFC", display)
    return name.lower().replace(" ", "") if layout == "moodle" else name


def _safe(name):
    return bool(name) and name not in (".", "..") and not name.startswith(".") and "/" not in name \
        and "\\" not in name and "\0" not in name


def _canvas(name):
    """(reading, user ids): the first reading of a top-level entry's ``name`` in Canvas's layout
    (a dict, or None) and every user id the name can be read as, the file part valid or not."""
    reading, users = None, set()
    for found in _CANVAS_IDS.finditer(name):
        users.add(found["user"])                       # at the start too: Canvas may write an empty name
        file = reading is None and _CANVAS_FILE.fullmatch(name, found.end("attachment") + 1)
        if file:
            reading = {"display": name[:found.start()], "late": bool(found["late"]), "user": found["user"],
                       "file": file["file"], "resubmission": int(file["resubmission"] or 0)}
    return reading, users


def _moodle(name):
    """The reading of an entry in Moodle's layout (a dict), or None."""
    match = MOODLE.match(name)
    if match is None:
        return None
    return {"display": match["student"], "late": False, "user": match["user"], "file": match["file"],
            "resubmission": int(match["resubmission"] or 0)}


def _open_archive(path, stack):
    """The open ZipFile of ``path`` (closed with ``stack``): one descriptor for the bound on its central
    directory's declared size, checked before zipfile reads the directory, the directory, and every entry."""
    handle = stack.enter_context(open(path, "rb"))
    record = zipfile._EndRecData(handle)   # the end record ZipFile reads first (private, as old as zipfile)
    if record is not None and record[zipfile._ECD_SIZE] > MAX_DIRECTORY_BYTES:
        raise ValueError(f"a directory of {record[zipfile._ECD_SIZE]} bytes, more than the "
                         f"{MAX_DIRECTORY_BYTES} an LMS's export needs")
    return stack.enter_context(zipfile.ZipFile(handle))


def _refusal(info, name):
    """Why the entry ``name`` is no submission (a path out, a link, not a notebook ...), or None."""
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts:
        return "a path that leaves the archive"
    if stat.S_ISLNK(info.external_attr >> 16):
        return "a symbolic link"
    if not name.endswith(".ipynb"):
        return "not a notebook"
    if info.flag_bits & 0x1:
        return "an encrypted entry"
    if info.file_size > MAX_NOTEBOOK_BYTES:
        return f"{info.file_size} bytes once inflated, more than the {MAX_NOTEBOOK_BYTES >> 20} MiB a notebook may have"
    return None


def read_archives(archives, stack=None):
    """(submissions, skipped): every notebook the archives hold for a student, and [(file, why)].
    Each submission's ``opened`` archive stays open until ``stack`` closes (without one: on return)."""
    found, skipped = [], []
    with contextlib.ExitStack() as own:
        for archive in map(Path, archives):
            try:
                opened = _open_archive(archive, stack or own)
            except Exception as error:   # not a zip, unreadable, a directory too large: this archive's line
                skipped.append((archive.name, f"not a readable zip ({type(error).__name__}: {error})"))
                continue
            for info in opened.infolist():
                if info.is_dir():
                    continue
                submission, why = _submission(archive, opened, info)
                if submission:
                    found.append(submission)
                else:
                    skipped.append((entry_name(info), why))
    return found, skipped


def _submission(archive, opened, info):
    """(the Submission an entry is, None) or (None, why it is none)."""
    name = entry_name(info)
    why = _refusal(info, name)
    if why:
        return None, why
    layout, reading, users = "moodle", _moodle(name), set()
    if "/" not in name:
        layout, (reading, users) = "canvas", _canvas(name)
    if len(users) > 1:   # the learner's name or file name holds a second "_<id>_<id>_"
        ids = ", ".join("canvas-" + user for user in sorted(users)[:5]) + (", ..." if len(users) > 5 else "")
        return None, f"a name that reads as {len(users)} Canvas users ({ids}): whose it is cannot be told"
    if reading is None:
        return None, "a name neither the Canvas nor the Moodle layout explains"
    file = unicodedata.normalize("NFC", reading["file"]) + ".ipynb"
    if not _safe(file):
        return None, "a file name that is not a plain name"
    if len(file.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        return None, f"a file name longer than {MAX_NAME_BYTES} bytes"
    return Submission(f"{layout}-{reading['user']}", file, archive, info, reading["late"], reading["resubmission"],
                      reading["user"], name, _display_name(reading["display"]), layout, opened), None


def clashes(found):
    """{student: entries} of the ids one archive gives to two different names: no LMS writes that
    (a user has one name in one export), so neither can be told to be the student.  One id in two
    archives is one person, renamed between the exports."""
    names = {}
    for submission in found:
        names.setdefault((submission.archive, submission.student), {}).setdefault(submission.display, submission)
    return {student: sorted(by_name.values(), key=lambda s: s.name)
            for (_, student), by_name in names.items() if len(by_name) > 1}


def latest(found, skipped, notebook=None):
    """One file per student and file name: the highest resubmission (then the newest); at most
    MAX_NOTEBOOKS_PER_STUDENT a student, ``notebook`` (the exercise's) first, then by name."""
    chosen = {}
    for submission in found:
        key = (submission.student, submission.file)
        if key in chosen:
            older, newer = sorted([chosen[key], submission], key=lambda s: (s.resubmission, s.timestamp))
            skipped.append((older.name, f"superseded by resubmission {newer.resubmission}"))
            submission = newer
        chosen[key] = submission
    kept, count = [], {}
    for submission in sorted(chosen.values(), key=lambda s: (s.student, s.file != notebook, s.file)):
        count[submission.student] = count.get(submission.student, 0) + 1
        if count[submission.student] > MAX_NOTEBOOKS_PER_STUDENT:
            skipped.append((submission.name, f"more than {MAX_NOTEBOOKS_PER_STUDENT} notebooks from "
                                             f"{submission.student}"))
            continue
        kept.append(submission)
    return sorted(kept, key=lambda s: (s.student, s.file))


class IdentityClash(NotebookError):
    """One student id given to two people in one archive: neither was collected."""


class _Unreadable(Exception):
    """An entry the archive cannot give (corrupt, or inflating past MAX_NOTEBOOK_BYTES): its reason."""


def _copy_entry(opened, info, path):
    """Stream one entry into ``path`` in chunks, stopping past MAX_NOTEBOOK_BYTES whatever it declares."""
    written = 0
    with open(path, "wb") as sink:
        try:
            source = opened.open(info)
        except Exception as error:   # a local header that disagrees, an unknown compression ...
            raise _Unreadable(f"cannot be read from the archive ({type(error).__name__}: {error})") from None
        with source:
            while True:
                try:
                    chunk = source.read(CHUNK_BYTES)
                except Exception as error:   # bad CRC (a size that lied), corrupt data, a truncated archive
                    raise _Unreadable(f"cannot be read from the archive ({type(error).__name__}: {error})") from None
                if not chunk:
                    return
                written += len(chunk)
                if written > MAX_NOTEBOOK_BYTES:
                    raise _Unreadable(f"inflates past the {MAX_NOTEBOOK_BYTES >> 20} MiB a notebook may have "
                                      f"(declared {info.file_size} bytes)")
                sink.write(chunk)


def _write_student(course, assignment, student, files):
    """Write one student's notebooks, timestamp and secret into autograder/submitted/; return (the
    submissions written, [(entry, why)] of the entries that could not be read).  Entries are read
    from the archive read_archives opened, into hidden part files, and replace the earlier import
    only when all are read: on any error (raised) the earlier import is as it was."""
    folder = course.submitted / student
    new_folder = not folder.exists()
    target = folder / assignment
    parts, refused = [], []
    try:
        target.mkdir(parents=True, exist_ok=True)
        for submission in files:
            part = target / f".collecting-{len(parts)}"     # not *.ipynb: never graded as it is
            try:
                _copy_entry(submission.opened, submission.info, part)
            except _Unreadable as why:
                part.unlink(missing_ok=True)
                refused.append((submission.name, str(why)))
                continue
            parts.append((part, submission))
        if parts:
            for old in target.glob("*.ipynb"):
                old.unlink()                              # the LMS's latest state replaces an earlier import
            for part, submission in parts:
                os.replace(part, target / submission.file)
            # No timestamp.txt: the zip's times are the download's (module docstring), so nbgrader
            # computes no late penalty from them; one left by an earlier import goes too.
            (target / "timestamp.txt").unlink(missing_ok=True)
            secret = target / "submission_secret.txt"     # what release_feedback names the feedback by
            if not secret.exists():
                secret.write_text(secrets.token_hex(64))
    except BaseException:
        for part, _ in parts:
            part.unlink(missing_ok=True)
        if new_folder:
            shutil.rmtree(folder, ignore_errors=True)
        raise
    if not parts and new_folder:
        shutil.rmtree(folder, ignore_errors=True)
    return [s for _, s in parts], refused


def _record_names(course, names):
    """Give each student the name the LMS wrote, as ``last_name`` in the gradebook (formgrader shows
    it, ``nbgrader export`` writes it); return None, or why it could not be done."""
    from nbgrader.api import Gradebook

    from .gradebooks import scrub
    try:
        with warnings.catch_warnings():   # nbgrader 0.9 on SQLAlchemy 2 warns about its own autoflush
            warnings.simplefilter("ignore")
            with Gradebook(course.gradebook_url) as gradebook:
                for student, name in sorted(names.items()):
                    gradebook.update_or_create_student(student, last_name=name, first_name="")
    except Exception as error:
        return f"{type(error).__name__}: {scrub(error, course.gradebook_url)}"
    return None


def _print(out, line):
    print(safe.terminal(line, encoding=getattr(out, "encoding", None), limit=10_000), file=out)


def choose(archives, assignment, notebook, stack):
    """What one run collects from ``archives``, decided before anything is written (by ``collect``
    and by ``nbgrader zip_collect``'s extractor, autograder/zip_plugins.py, alike): (the submissions
    chosen, ``clashes``, [(entry, why skipped)]).  NotebookError when the archives hold nothing to
    collect, or more than MAX_RUN_BYTES.  Each archive stays open until ``stack`` closes."""
    found, skipped = read_archives(archives, stack)
    clashing = clashes(found)
    chosen = latest([s for s in found if s.student not in clashing], skipped, notebook)
    if not chosen and not clashing:
        raise NotebookError(f"collected nothing for {assignment} from "
                            f"{', '.join(safe.quoted(a.name) for a in map(Path, archives))}: "
                            + "; ".join(f"{safe.quoted(name)} ({why})" for name, why in skipped[:10]))
    total = sum(s.info.file_size for s in chosen)
    if total > MAX_RUN_BYTES:
        raise NotebookError(f"the notebooks to collect for {assignment} declare {total / 2**30:.1f} GiB, "
                            f"more than the {MAX_RUN_BYTES >> 30} GiB of one run: collect fewer archives "
                            "at a time")
    return chosen, clashing, skipped


def clash_error(clashing):
    """The IdentityClash naming both people of each id in ``clashing`` (from ``clashes``)."""
    return IdentityClash(
        f"{len(clashing)} student id(s) given to two different names in one archive, neither collected: "
        + "; ".join(f"{student}: " + " and ".join(f"{safe.quoted(s.display)} ({safe.quoted(s.name)} in "
                                                  f"{safe.quoted(s.archive.name)})" for s in entries)
                    for student, entries in sorted(clashing.items())))


def collect(course, assignment, archives=None, out=None):
    """Import the archives (default: every zip in autograder/downloaded/ASSIGNMENT/archive/) into
    autograder/submitted/; return (submissions, skipped).  NotebookError when nothing was collected,
    IdentityClash (after collecting everyone else) when one id was given to two people."""
    out = out or sys.stdout
    exercise = course.exercise(assignment)           # a misspelled assignment stops here
    folder = course.root / DOWNLOADED / assignment / "archive"
    archives = [Path(a) for a in archives] if archives else sorted(folder.glob("*.zip"))
    if not archives:
        raise NotebookError(f"no zip to collect: expected the LMS's export in {folder}/ (or name it: "
                            f"python -m autograder collect {assignment} FILE.zip)")
    missing = [safe.quoted(str(a)) for a in archives if not a.is_file()]
    if missing:
        raise NotebookError(f"no such file: {', '.join(missing)}")
    collected = {}
    with contextlib.ExitStack() as stack:   # each archive open from its first check to its last entry read
        chosen, clashing, skipped = choose(archives, assignment, exercise.notebook, stack)
        students = {}
        for submission in chosen:
            students.setdefault(submission.student, []).append(submission)
        for student, files in students.items():
            try:
                written, refused = _write_student(course, assignment, student, files)
            except Exception as error:   # that student's reason, never the end of the run
                why = f"{student} not collected ({type(error).__name__}: {getattr(error, 'strerror', None) or error})"
                skipped.extend((s.name, why) for s in files)
                continue
            skipped.extend(refused)
            if written:
                collected[student] = written
    _report(course, exercise, collected, skipped, out)
    if clashing:
        raise clash_error(clashing)
    return [s for files in collected.values() for s in files], skipped


def legacy_folders(course, assignment, collected):
    """The line pointing out folders of autograder/submitted/ named after students of ``collected``
    ({student: [Submission]}) by collects before ids came from the LMS, or None: both would be graded."""
    legacy = sorted({(_legacy_id(files[0].display, files[0].layout), s) for s, files in collected.items()})
    legacy = [(old, new) for old, new in legacy if old != new and _safe(old)
              and len(old.encode()) <= MAX_NAME_BYTES and (course.submitted / old / assignment).is_dir()]
    if not legacy:
        return None
    return ("autograder/submitted/ also holds folders named after these students' names, from collects "
            "before student ids came from the LMS (both would be graded: remove the old ones): "
            + ", ".join(f"{safe.quoted(old)} (now {new})" for old, new in legacy))


def _report(course, exercise, collected, skipped, out):
    """Print what was collected and skipped, every name quoted; record the students' names."""
    assignment = exercise.assignment
    late = sorted(s for s, files in collected.items() if any(f.late for f in files))
    extra = sorted(f"{s}/{safe.quoted(f.file)}" for s, files in collected.items() for f in files
                   if f.file != exercise.notebook)
    _print(out, f"collected {len(collected)} submission(s) of {assignment} into {course.submitted}/"
                + (f"; marked late by the LMS: {', '.join(late)}" if late else ""))
    if extra:
        _print(out, f"notebooks not named {exercise.notebook} (reported by grade): {', '.join(extra)}")
    if skipped:
        _print(out, f"skipped {len(skipped)} file(s):")
        for name, why in skipped:
            _print(out, f"  {safe.quoted(name)} ({why})")
    # the display name of each student: the newest file's (a learner renamed between two exports)
    names = {s: max(files, key=lambda f: f.timestamp).display for s, files in collected.items()}
    legacy = legacy_folders(course, assignment, collected)
    if legacy:
        _print(out, legacy)
    failed = _record_names(course, names) if names else None
    if failed:
        _print(out, f"could not record the students' names in the gradebook ({failed}); the submissions "
                    "are collected all the same")

