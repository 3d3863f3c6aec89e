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
  - Moodle (``mod/assign/classes/downloader.php``), a folder per participant,
    ``<Full Name>_<participant id>_assignsubmission_file/<file>.ipynb`` (``..._file_/`` before
    Moodle 4.0, ``<group>-<Full Name>_...`` in group mode before 4.0), ``Participant_<participant
    id>_...`` under blind marking, or the flat layout ("Download submissions in folders" off):
    ``<Full Name>_<participant id>_assignsubmission_file_<file>.ipynb`` at the top.  Moodle writes
    every "_" of the name as a space, so the first "_" ends the name.  The student id is
    ``moodle-<participant id>``: Moodle numbers the participants of each assignment apart (its
    blind-marking ids), so a person's id differs between assignments, never between exports
    or resubmissions of one.  A top-level name that reads both ways takes its archive's layout.
    Online-text submissions (``..._assignsubmission_onlinetext/onlinetext.html``) are no
    notebook: one line names their students as not graded;

  ids are made of ``[a-z0-9-]`` only.  The name the LMS wrote becomes the student's
  ``last_name`` in the gradebook (formgrader shows it, ``nbgrader export`` writes it):
  renaming oneself changes that name and nothing else, and two people with one name
  are two students.  One id given to two names in one archive (which no LMS writes)
  is an error that names both, and neither is collected;
* **the roster** (``autograder/roster.py``), when the course has one: each submitter becomes
  the roster's student, Canvas's by the user id, Moodle's by the participant number the roster
  holds for the assignment (its grading worksheet); never by a name, which the learner may
  edit in the LMS.  A submitter it cannot map keeps the archive's id and is named on one line
  with why; two submitters that would be one student both keep theirs.  One mapped whose name
  in the zip is not the roster's is named on a line (a learner renamed, or a worksheet of
  another assignment).  Canvas's Test Student, left out of the roster, is skipped.  The roster's
  students without a notebook are listed; every student listed is shown by the roster's name
  (``roster.label``), and the gradebook gets the roster's names and emails;
* **where each file came from**, for the way back to the LMS: ``autograder/collected/
  <assignment>.json`` (``origins``): the LMS, Moodle's folder, each entry's name in the zip;
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
import json
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

from . import roster, safe
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
# Moodle's prefix: "<Full name>_<participant>" (mod/assign/classes/downloader.php, get_student_prefix), the
# name with every "_" written " " and clean_filename's characters removed, so the first "_" ends it; then
# "_<plugin subtype>_<plugin>" and either a folder (Moodle >= 3.1 writes "..._file/", earlier "..._file_/")
# or, with "Download submissions in folders" off, "_<file>" in one flat list.
_MOODLE_PREFIX = r"(?P<student>[^/_]*)_(?P<user>[0-9]{1,20})_assignsubmission_(?P<plugin>file|onlinetext)"
MOODLE = re.compile(_MOODLE_PREFIX + r"_?/(?P<path>[^/]+)")
MOODLE_FLAT = re.compile(_MOODLE_PREFIX + r"_(?P<path>[^/]+)")
# Moodle names a file uploaded again beside the first "<name> (1).ipynb" (file_storage::get_unused_filename).
_MOODLE_FILE = re.compile(r"(?P<file>[^/]+?)(?: \((?P<resubmission>[0-9]{1,9})\))?\.ipynb")
# What blind marking writes for the name ("Participant", after a group's "<group>-" in Moodle < 4.0).
BLIND = re.compile(r"(?:.*-)?Participant")
ONLINE_TEXT = "an online-text submission (not a notebook: not graded)"
# The ids a collect gives: _submission's from the LMS's numbers, or the roster's (``roster.moodle_id``).
STUDENT_ID = re.compile(r"canvas-[0-9]{1,20}|moodle-[a-z0-9](?:[a-z0-9-]{0,118}[a-z0-9])?")
_UNICODE_PATH = 0x7075            # Info-ZIP's "Unicode Path" extra field
_UTF8_FLAG = 0x800                # general purpose bit 11: the name is UTF-8
TIMESTAMP_FORMAT = "%Y-%m-%d %H:%M:%S.%f %Z"   # nbgrader's Exchange.timestamp_format
COLLECTED = "autograder/collected"   # <assignment>.json: where each student's files came from (``origins``)


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
    folder: str = ""             # Moodle's folder of the participant, as in the archive ("": Canvas, flat)
    fallback: str = ""           # the id from the archive alone, when the roster gave another (``map_to_roster``)

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
    """The reading of an entry in Moodle's layout, a folder per participant or flat (a dict), or None.
    An online-text entry reads with ``plugin`` "onlinetext" and no ``file``."""
    match = MOODLE.fullmatch(name) or ("/" not in name and MOODLE_FLAT.fullmatch(name))
    if not match:
        return None
    reading = {"display": match["student"], "late": False, "user": match["user"], "plugin": match["plugin"],
               "folder": name.split("/", 1)[0] if "/" in name else "", "file": None, "resubmission": 0}
    file = _MOODLE_FILE.fullmatch(match["path"])
    if match["plugin"] == "file" and file:
        reading.update(file=file["file"], resubmission=int(file["resubmission"] or 0))
    return reading


def moodle_entry(name):
    """(full name as Moodle wrote it, participant number, plugin) of an entry in Moodle's layout, or None."""
    reading = _moodle(name)
    return reading and (reading["display"], reading["user"], reading["plugin"])


def _open_archive(path, stack):
    """The open ZipFile of ``path`` (closed with ``stack``): one descriptor for the bound on its central
    directory's declared size, checked before zipfile reads the directory, the directory, and every entry."""
    handle = stack.enter_context(open(path, "rb"))
    record = zipfile._EndRecData(handle)   # the end record ZipFile reads first (private, as old as zipfile)
    if record is not None and record[zipfile._ECD_SIZE] > MAX_DIRECTORY_BYTES:
        raise ValueError(f"a directory of {record[zipfile._ECD_SIZE]} bytes, more than the "
                         f"{MAX_DIRECTORY_BYTES} an LMS's export needs")
    return stack.enter_context(zipfile.ZipFile(handle))


def _refusal(info, name, reading=None):
    """Why the entry ``name`` is no submission (a path out, a link, not a notebook ...), or None."""
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts:
        return "a path that leaves the archive"
    if stat.S_ISLNK(info.external_attr >> 16):
        return "a symbolic link"
    if reading and reading.get("plugin") == "onlinetext":
        return ONLINE_TEXT
    if not name.endswith(".ipynb"):
        return "not a notebook"
    if info.flag_bits & 0x1:
        return "an encrypted entry"
    if info.file_size > MAX_NOTEBOOK_BYTES:
        return f"{info.file_size} bytes once inflated, more than the {MAX_NOTEBOOK_BYTES >> 20} MiB a notebook may have"
    return None


def _readings(name):
    """({layout: reading}, Canvas user ids) of an entry's name: a folder entry reads as Moodle's or as
    nothing; a top-level one as Canvas's (when it holds "_<digits>_<digits>_"), Moodle's flat layout, or both."""
    readings, users = {}, set()
    moodle = _moodle(name)
    if moodle:
        readings["moodle"] = moodle
    if "/" not in name:
        canvas, users = _canvas(name)
        if users:
            readings["canvas"] = canvas
    return readings, users


def read_archives(archives, stack=None):
    """(submissions, skipped): every notebook the archives hold for a student, and [(file, why)].
    Each submission's ``opened`` archive stays open until ``stack`` closes (without one: on return).
    A top-level name that reads both as Canvas's and as Moodle's flat layout (a learner's name or file
    name can make it) takes the layout of the archive's other entries, when they all read as one."""
    found, skipped = [], []
    with contextlib.ExitStack() as own:
        for archive in map(Path, archives):
            try:
                opened = _open_archive(archive, stack or own)
            except Exception as error:   # not a zip, unreadable, a directory too large: this archive's line
                skipped.append((archive.name, f"not a readable zip ({type(error).__name__}: {error})"))
                continue
            entries = [(info, entry_name(info)) for info in opened.infolist() if not info.is_dir()]
            entries = [(info, name, *_readings(name)) for info, name in entries]
            sure = {layout for _, _, readings, _ in entries if len(readings) == 1 for layout in readings}
            for info, name, readings, users in entries:
                layout = next(iter(readings), None)
                if len(readings) > 1:
                    if len(sure) != 1:
                        skipped.append((name, "a name that reads both as a Canvas and as a Moodle submission: whose "
                                              "it is cannot be told"))
                        continue
                    layout = next(iter(sure))
                submission, why = _submission(archive, opened, info, name, layout, readings.get(layout),
                                              users if layout == "canvas" else set())
                if submission:
                    found.append(submission)
                else:
                    skipped.append((name, why))
    return found, skipped


def _submission(archive, opened, info, name, layout, reading, users):
    """(the Submission an entry is, None) or (None, why it is none)."""
    why = _refusal(info, name, reading if layout == "moodle" else None)
    if why:
        return None, why
    if len(users) > 1:   # the learner's name or file name holds a second "_<id>_<id>_"
        ids = ", ".join("canvas-" + user for user in sorted(users)[:5]) + (", ..." if len(users) > 5 else "")
        return None, f"a name that reads as {len(users)} Canvas users ({ids}): whose it is cannot be told"
    if reading is None or reading["file"] is None:
        return None, "a name neither the Canvas nor the Moodle layout explains"
    file = unicodedata.normalize("NFC", reading["file"]) + ".ipynb"
    if not _safe(file):
        return None, "a file name that is not a plain name"
    if len(file.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        return None, f"a file name longer than {MAX_NAME_BYTES} bytes"
    return Submission(f"{layout}-{reading['user']}", file, archive, info, reading["late"], reading["resubmission"],
                      reading["user"], name, _display_name(reading["display"]), layout, opened,
                      reading.get("folder", "")), None


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
    parts, refused, replaced = [], [], []
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
                replaced.append(old.name)
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
    return [s for _, s in parts], refused, replaced


def _record_names(course, names, entries=None):
    """Give each student her name in the gradebook (formgrader shows it, ``nbgrader export`` writes it):
    the roster's first name, last name and email for a student of ``entries`` ({student: roster.Entry}),
    else the name the LMS wrote, as ``last_name``; return None, or why it could not be done."""
    from nbgrader.api import Gradebook

    from .gradebooks import scrub
    entries = entries or {}
    try:
        with warnings.catch_warnings():   # nbgrader 0.9 on SQLAlchemy 2 warns about its own autoflush
            warnings.simplefilter("ignore")
            with Gradebook(course.gradebook_url) as gradebook:
                for student, name in sorted(names.items()):
                    entry = entries.get(student)
                    if entry is None:
                        gradebook.update_or_create_student(student, last_name=name, first_name="")
                        continue
                    first, last = (entry.first_name, entry.last_name) if entry.first_name or entry.last_name \
                        else ("", entry.display)
                    gradebook.update_or_create_student(student, first_name=first[:MAX_DISPLAY_NAME],
                                                       last_name=last[:MAX_DISPLAY_NAME],
                                                       email=(entry.email or None) and entry.email[:MAX_DISPLAY_NAME])
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


def match(entries, assignment, layout, user, displays):
    """(the roster entry, how: "id" or "participant") of a submitter, or (None, why not): Canvas's by
    its user id; Moodle's by the participant number the roster holds for the assignment (from its
    grading worksheet).  Never by a name: a name is the learner's to edit in the LMS, so a learner
    renamed like a classmate would be given the classmate's id."""
    if layout == "canvas":
        entry = next((e for e in entries if e.student == f"canvas-{user}"), None)
        return (entry, "id") if entry else (None, "no student of the roster has this Canvas id")
    hits = [e for e in entries if e.participants.get(assignment) == user]
    if len(hits) == 1:
        return hits[0], "participant"
    if hits:
        return None, f"{len(hits)} students of the roster hold participant number {user}"
    return None, (f"the roster holds no participant number {user} of {assignment}: import the assignment's "
                  f"grading worksheet (python -m autograder roster import FILE --assignment {assignment})")


def renamed(entry, displays):
    """Whether none of the names the zip gives (``displays``) is the roster's name of ``entry`` (either
    order): a learner who renamed herself, or a worksheet of another assignment.  Never for blind marking."""
    # The whole name only: a part after a "-" would let "Jean-Luc Picard" pass for Luc Picard (Moodle 3.x in
    # group mode, "<group>-<Full name>", is named on the line too: a warning too many, never one too few).
    shown = {roster.name_key(d) for d in displays if not BLIND.fullmatch(d)}
    return bool(shown) and not shown & roster.name_keys(entry)


def map_to_roster(entries, assignment, chosen):
    """Give every submission of ``chosen`` its roster student's id (``match``); return ({id from the
    archive: why} of the submitters left under the id the archive gives, {roster id: the zip's name}
    of those mapped whose name in the zip is not the roster's: ``renamed``).  Two submitters that
    would be one roster student are both left."""
    if not entries:
        return {}, {}
    groups = {}
    for submission in chosen:
        groups.setdefault(submission.student, []).append(submission)
    found, unmapped = {}, {}
    for fallback, files in groups.items():
        entry, how = match(entries, assignment, files[0].layout, files[0].user, {f.display for f in files})
        if entry is None:
            unmapped[fallback] = how
        else:
            found[fallback] = entry
    claims = {}
    for fallback, entry in found.items():
        claims.setdefault(entry.student, []).append(fallback)
    for student, claimants in claims.items():
        if len(claimants) > 1:
            for fallback in claimants:
                unmapped[fallback] = f"{student} is also {', '.join(f for f in claimants if f != fallback)}"
                del found[fallback]
    names = {}
    for fallback, entry in found.items():   # Canvas writes its own squashed "lastfirst": only Moodle's are names
        displays = {f.display for f in groups[fallback]}
        if groups[fallback][0].layout == "moodle" and renamed(entry, displays):
            names[entry.student] = sorted(displays)[0]
    for submission in chosen:
        if submission.student in found:
            submission.fallback = submission.student
            submission.student = found[submission.student].student
    return unmapped, names


def apply_roster(course, entries, assignment, chosen, skipped):
    """What the roster changes in a collect (``collect`` and nbgrader zip_collect's extractor alike):
    Canvas's Test Student, whom the roster left out, is skipped (appended to ``skipped``); everyone
    else gets her roster id (``map_to_roster``).  Returns (the submissions kept, unmapped, renamed)."""
    test_students = roster.left_out(course)
    kept = []
    for submission in chosen:
        if submission.layout == "canvas" and submission.user in test_students:
            skipped.append((submission.name, "Canvas's Test Student (left out of the roster)"))
        else:
            kept.append(submission)
    unmapped, renamed_names = map_to_roster(entries, assignment, kept)
    return kept, unmapped, renamed_names


def origins(course, assignment):
    """{student: where her submission came from} as the last collects of ``assignment`` wrote it
    (``COLLECTED``/<assignment>.json): ``lms``, ``folder`` (Moodle's folder of the participant exactly
    as in the zip, "" for Canvas and Moodle's flat layout), ``files`` (each entry's full name in the
    zip), ``display`` (the name the LMS wrote), ``late`` (Canvas's marker), ``participant`` (the LMS's
    number in the names: Canvas's user id, Moodle's participant number).  Empty when nothing is recorded."""
    file = course.root / COLLECTED / f"{assignment}.json"
    if not file.is_file():
        return {}
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (ValueError, OSError) as error:
        raise NotebookError(f"{file} cannot be read ({type(error).__name__}: {error}): collect "
                            f"{assignment} again") from None
    return data if isinstance(data, dict) else {}


def _record_origins(course, assignment, collected):
    """Add this run's students to ``origins`` (each replaced whole: the LMS's latest export)."""
    recorded = origins(course, assignment)
    for student, files in collected.items():   # a submitter now under her roster id is no longer the zip's id
        if files[0].fallback not in ("", student):
            recorded.pop(files[0].fallback, None)
    for student, files in collected.items():
        newest = max(files, key=lambda f: f.timestamp)
        recorded[student] = {"lms": newest.layout, "folder": newest.folder, "files": sorted(f.name for f in files),
                             "display": newest.display, "late": any(f.late for f in files),
                             "participant": newest.user}
    file = course.root / COLLECTED / f"{assignment}.json"
    file.parent.mkdir(parents=True, exist_ok=True)
    part = file.with_name(f".{file.name}.part")
    part.write_text(json.dumps(recorded, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(part, file)


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
    entries = roster.load(course)                    # a damaged roster stops here, before anything is written
    collected, replaced = {}, []
    with contextlib.ExitStack() as stack:   # each archive open from its first check to its last entry read
        chosen, clashing, skipped = choose(archives, assignment, exercise.notebook, stack)
        chosen, unmapped, renamed_names = apply_roster(course, entries, assignment, chosen, skipped)
        students = {}
        for submission in chosen:
            students.setdefault(submission.student, []).append(submission)
        for student, files in students.items():
            try:
                written, refused, earlier = _write_student(course, assignment, student, files)
            except Exception as error:   # that student's reason, never the end of the run
                why = f"{student} not collected ({type(error).__name__}: {getattr(error, 'strerror', None) or error})"
                skipped.extend((s.name, why) for s in files)
                continue
            skipped.extend(refused)
            if written:
                collected[student] = written
            if written and earlier:
                replaced.append(student)
    _report(course, exercise, collected, skipped, out, entries, unmapped, renamed_names, replaced)
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


def _online_text(entries, assignment, skipped):
    """{student: label} of the online-text submissions among ``skipped`` (mapped to the roster as notebooks are)."""
    found = {}
    for name, why in skipped:
        reading = _moodle(name) if why == ONLINE_TEXT else None
        if reading:
            found.setdefault(reading["user"], set()).add(_display_name(reading["display"]))
    students = {}
    for user, displays in found.items():
        entry, _ = match(entries, assignment, "moodle", user, displays) if entries else (None, None)
        students[entry.student if entry else f"moodle-{user}"] = safe.quoted(sorted(displays)[0])
    return students


def _report(course, exercise, collected, skipped, out, entries=(), unmapped=None, renamed_names=None, replaced=()):
    """Print what was collected and skipped, every name quoted and every student of the roster by
    her name (``roster.label``); record the students' names and where their files came from."""
    assignment = exercise.assignment
    people = {e.student: e for e in entries}

    def label(student):
        return roster.label(course, student, people)

    late = sorted(s for s, files in collected.items() if any(f.late for f in files))
    extra = sorted(f"{label(s)}/{safe.quoted(f.file)}" for s, files in collected.items() for f in files
                   if f.file != exercise.notebook)
    _print(out, f"collected {len(collected)} submission(s) of {assignment} into {course.submitted}/"
                + (f"; marked late by the LMS: {', '.join(map(label, late))}" if late else ""))
    if extra:
        _print(out, f"notebooks not named {exercise.notebook} (reported by grade): {', '.join(extra)}")
    if replaced:
        _print(out, f"replaced the notebooks of an earlier import for {len(replaced)} student(s) (this zip is the "
                    f"LMS's latest): {', '.join(map(label, sorted(replaced)))}")
    online = _online_text(entries, assignment, skipped)
    listed = [(name, why) for name, why in skipped if why != ONLINE_TEXT]
    if listed:
        _print(out, f"skipped {len(listed)} file(s):")
        for name, why in listed:
            _print(out, f"  {safe.quoted(name)} ({why})")
    if online:
        _print(out, "online-text submissions, not notebooks, not graded (grade them in Moodle): "
                    + ", ".join(label(s) if s in people else f"{shown} ({s})" for s, shown in sorted(online.items())))
    if unmapped:
        shown = {s: files[0].display for s, files in collected.items()}
        _print(out, "could not map to the roster: " + "; ".join(
            f"{safe.quoted(shown.get(s, s))} ({s}: {why})" for s, why in sorted(unmapped.items())))
    if renamed_names:
        _print(out, "named otherwise in the zip than in the roster (a learner renamed, or the worksheet of "
                    "another assignment? check before grading): " + "; ".join(
                        f"{label(s)} is {safe.quoted(name)} in the zip" for s, name in sorted(renamed_names.items())))
    if entries:
        nothing = [e.student for e in entries if e.student not in online and not any(
            (course.submitted / e.student / assignment).glob("*.ipynb"))]
        if nothing:
            _print(out, f"submitted nothing for {assignment} ({len(nothing)} of {len(entries)} in the roster"
                        + ("; or among those not mapped above" if unmapped else "") + "): "
                        + ", ".join(map(label, nothing)))
    # the display name of each student: the newest file's (a learner renamed between two exports)
    names = {s: max(files, key=lambda f: f.timestamp).display for s, files in collected.items()}
    legacy = legacy_folders(course, assignment, collected)
    if legacy:
        _print(out, legacy)
    before = sorted({(files[0].fallback, s) for s, files in collected.items()
                     if files[0].fallback not in ("", s) and (course.submitted / files[0].fallback / assignment).is_dir()})
    if before:
        _print(out, "autograder/submitted/ also holds folders under the ids the archive gives, from collects "
                    "before the roster (both would be graded: remove the old ones): "
                    + ", ".join(f"{old} (now {label(new)})" for old, new in before))
    failed = _record_names(course, names, people) if names else None
    if failed:
        _print(out, f"could not record the students' names in the gradebook ({failed}); the submissions "
                    "are collected all the same")
    if collected:
        try:
            _record_origins(course, assignment, collected)
        except (OSError, NotebookError) as error:
            _print(out, f"could not record where the submissions came from in {course.root / COLLECTED}/ "
                        f"({type(error).__name__}: {error}); export and release_feedback need it: collect again")
