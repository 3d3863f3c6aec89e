"""Import an LMS's zip of submissions: ``python -m autograder collect ASSIGNMENT [ZIP ...]``.

What ``nbgrader zip_collect`` does, without losing anyone (issue 19):

* **file names decoded as their writer meant them.** A zip entry carries the UTF-8
  flag (Python's ``zipfile``, Canvas) or not (Info-ZIP's ``zip`` and many LMS
  exports write the name's bytes as they are, UTF-8 on Linux, with at most an
  Info-ZIP "Unicode Path" extra field).  ``zipfile`` reads every unflagged name as
  code page 437, which turns ``zoë`` into ``zo├½``; here the Unicode Path field is
  used when present, then the bytes are read as UTF-8, and cp437 only when they
  are not UTF-8 (a DOS-era archive);
* **both layouts**, chosen per file:

  - Canvas, every file at the top: ``<student>_[late_]<user id>_<submission id>_<file>[-<n>].ipynb``;
    the student id is Canvas's name part (underscores and any Unicode kept), ``late_``
    is kept, ``-<n>`` (a resubmission) keeps the highest ``n``;
  - Moodle, a folder per student: ``<Full Name>_<participant id>_assignsubmission_file[_]/<file>.ipynb``;
    the student id is the full name, lower-cased, spaces removed (as Canvas writes it);

  the student id always comes from the part the LMS writes, never from the file
  name the student chose;
* **a timestamp per submission**: the time the zip records for the file, written
  to ``timestamp.txt`` as nbgrader's exchange writes it, so nbgrader's late penalty
  applies against the assignment's due date, and ``release_feedback`` finds it;
* **nothing dropped in silence**: one line lists every file skipped and why
  (not a notebook, a name no layout explains, a link, a path leaving the
  archive, an older resubmission); a run that collects nothing exits non-zero.

Entries are read from the archive one by one (never extracted), so a link or a
``../`` path in the archive cannot write outside ``autograder/submitted/``.
"""
import dataclasses
import datetime
import re
import secrets
import stat
import struct
import unicodedata
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from .course import DOWNLOADED
from .notebooks import NotebookError

CANVAS = re.compile(r"^(?P<student>[^/]+?)_(?P<late>late_)?(?P<user>\d+)_(?P<submission>\d+)_"
                    r"(?P<file>[^/]+?)(?:-(?P<resubmission>\d+))?\.ipynb$")
MOODLE = re.compile(r"^(?P<student>[^/]+)_(?P<user>\d+)_assignsubmission_file_?/(?P<file>[^/]+)\.ipynb$")
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
    student: str
    file: str                    # the notebook's file name, as the student named it
    archive: Path
    info: zipfile.ZipInfo
    late: bool
    resubmission: int
    user: str                    # the LMS's user or participant id
    name: str                    # the entry's name in the archive, decoded

    @property
    def timestamp(self):
        return datetime.datetime(*self.info.date_time, tzinfo=datetime.timezone.utc)


def _student_id(name, layout):
    name = unicodedata.normalize("NFC", name)
    return name.lower().replace(" ", "") if layout == "moodle" else name


def _safe(name):
    return bool(name) and name not in (".", "..") and not name.startswith(".") and "/" not in name \
        and "\\" not in name and "\0" not in name


def read_archives(archives):
    """(submissions, skipped): every notebook the archives hold for a student, and [(file, why)]."""
    found, skipped = [], []
    for archive in archives:
        try:
            with zipfile.ZipFile(archive) as opened:
                infos = opened.infolist()
        except (OSError, zipfile.BadZipFile) as error:
            skipped.append((archive.name, f"not a readable zip ({error})"))
            continue
        for info in infos:
            name = entry_name(info)
            if info.is_dir():
                continue
            path = PurePosixPath(name)
            if path.is_absolute() or ".." in path.parts:
                skipped.append((name, "a path that leaves the archive"))
                continue
            if stat.S_ISLNK(info.external_attr >> 16):
                skipped.append((name, "a symbolic link"))
                continue
            if not name.endswith(".ipynb"):
                skipped.append((name, "not a notebook"))
                continue
            canvas, moodle = CANVAS.match(name), MOODLE.match(name)
            match, layout = (canvas, "canvas") if canvas else (moodle, "moodle")
            if match is None:
                skipped.append((name, "a name neither the Canvas nor the Moodle layout explains"))
                continue
            student = _student_id(match["student"], layout)
            file = unicodedata.normalize("NFC", match["file"]) + ".ipynb"
            if not (_safe(student) and _safe(file)):
                skipped.append((name, "a student id or file name that is not a plain name"))
                continue
            groups = match.groupdict()
            found.append(Submission(student, file, Path(archive), info, bool(groups.get("late")),
                                    int(groups.get("resubmission") or 0), match["user"], name))
    return found, skipped


def latest(found, skipped):
    """One file per student and file name: the highest resubmission; two LMS users with one id are refused."""
    users = {}
    for submission in found:
        users.setdefault(submission.student, set()).add(submission.user)
    clashes = {student for student, ids in users.items() if len(ids) > 1}
    chosen = {}
    for submission in found:
        if submission.student in clashes:
            skipped.append((submission.name, f"two LMS users ({', '.join(sorted(users[submission.student]))}) "
                                                      f"share the id {submission.student}"))
            continue
        key = (submission.student, submission.file)
        if key in chosen:
            older, newer = sorted([chosen[key], submission], key=lambda s: (s.resubmission, s.timestamp))
            skipped.append((older.name, f"superseded by resubmission {newer.resubmission}"))
            submission = newer
        chosen[key] = submission
    return sorted(chosen.values(), key=lambda s: (s.student, s.file))


def collect(course, assignment, archives=None, out=None):
    """Import the archives (default: every zip in autograder/downloaded/ASSIGNMENT/archive/) into
    autograder/submitted/; return (submissions, skipped).  NotebookError when nothing was collected."""
    import sys
    out = out or sys.stdout
    exercise = course.exercise(assignment)           # a misspelled assignment stops here
    folder = course.root / DOWNLOADED / assignment / "archive"
    archives = [Path(a) for a in archives] if archives else sorted(folder.glob("*.zip"))
    if not archives:
        raise NotebookError(f"no zip to collect: expected the LMS's export in {folder}/ (or name it: "
                            f"python -m autograder collect {assignment} FILE.zip)")
    missing = [str(a) for a in archives if not a.is_file()]
    if missing:
        raise NotebookError(f"no such file: {', '.join(missing)}")
    found, skipped = read_archives(archives)
    chosen = latest(found, skipped)
    if not chosen:
        raise NotebookError(f"collected nothing for {assignment} from {', '.join(a.name for a in archives)}: "
                            + "; ".join(f"{name} ({why})" for name, why in skipped[:10]))
    students = {}
    for submission in chosen:
        students.setdefault(submission.student, []).append(submission)
    for student, files in students.items():
        target = course.submitted / student / assignment
        target.mkdir(parents=True, exist_ok=True)
        for old in target.glob("*.ipynb"):
            old.unlink()                              # the LMS's latest state replaces an earlier import
        for submission in files:
            with zipfile.ZipFile(submission.archive) as opened:
                (target / submission.file).write_bytes(opened.read(submission.info))
        when = max(s.timestamp for s in files)
        (target / "timestamp.txt").write_text(when.strftime(TIMESTAMP_FORMAT))
        secret = target / "submission_secret.txt"     # what release_feedback names the feedback by
        if not secret.exists():
            secret.write_text(secrets.token_hex(64))
    late = sorted(s for s, files in students.items() if any(f.late for f in files))
    extra = sorted(f"{s}/{f.file}" for s, files in students.items() for f in files if f.file != exercise.notebook)
    print(f"collected {len(students)} submission(s) of {assignment} into {course.submitted}/"
          + (f"; marked late by the LMS: {', '.join(late)}" if late else ""), file=out)
    if extra:
        print(f"notebooks not named {exercise.notebook} (reported by grade): {', '.join(extra)}", file=out)
    if skipped:
        print(f"skipped {len(skipped)} file(s): " + "; ".join(f"{name} ({why})" for name, why in skipped), file=out)
    return chosen, skipped


# --------------------------------------------------------------------------- nbgrader's exchange
# nbgrader's exchange names each submission <student>+<assignment>+<timestamp>[+<random>] in the
# course's inbound folder, which every student can write.  `nbgrader collect` takes the student
# from that name (it only warns when the folder's owner differs) and copies the folder following
# links, with the instructor's rights.  Here the student is the folder's owner, and a submission
# holding a link, or a file its owner does not own, is refused.
_INBOUND = re.compile(r"^(?P<student>.+)\+(?P<assignment>[^+]+)\+(?P<timestamp>[^+]+?)(?:\+[^+]*)?$")


def _owner(uid):
    import pwd
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return None


def _files(folder, uid):
    """The regular files of a submission folder, or the reason to refuse it."""
    import os
    files = []
    for path in sorted(folder.rglob("*")):
        info = os.lstat(path)
        relative = path.relative_to(folder)
        if stat.S_ISLNK(info.st_mode):
            return None, f"holds a symbolic link ({relative})"
        if info.st_uid != uid:
            return None, f"holds {relative}, owned by {_owner(info.st_uid) or info.st_uid}"
        if stat.S_ISREG(info.st_mode):
            files.append(relative)
        elif not stat.S_ISDIR(info.st_mode):
            return None, f"holds {relative}, which is not a file"
    return files, None


def collect_exchange(course, inbound, assignment, out=None):
    """Collect the newest submission of each student from the exchange's ``inbound`` folder into
    autograder/submitted/; return (students, skipped).  NotebookError when nothing was collected."""
    import os
    import sys
    from nbgrader.utils import parse_utc
    out = out or sys.stdout
    course.exercise(assignment)
    inbound = Path(inbound)
    if not inbound.is_dir():
        raise NotebookError(f"no exchange inbound folder {inbound}/ (set c.Exchange.root and the course id)")
    newest, skipped = {}, []
    for entry in sorted(inbound.iterdir()):
        match = _INBOUND.match(entry.name)
        if match is None or match["assignment"] != assignment:
            continue
        info = os.lstat(entry)
        owner = _owner(info.st_uid)
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
            skipped.append((entry.name, "not a folder (a link?)"))
            continue
        if owner != match["student"]:
            skipped.append((entry.name, f"named after {match['student']} but owned by {owner or info.st_uid}"))
            continue
        files, refusal = _files(entry, info.st_uid)
        if refusal:
            skipped.append((entry.name, refusal))
            continue
        try:
            when = parse_utc(match["timestamp"])
        except Exception:
            skipped.append((entry.name, "an unreadable timestamp"))
            continue
        if owner not in newest or when > newest[owner][0]:
            if owner in newest:
                skipped.append((newest[owner][1].name, "an older submission"))
            newest[owner] = (when, entry, files)
        else:
            skipped.append((entry.name, "an older submission"))
    if not newest:
        raise NotebookError(f"collected nothing for {assignment} from {inbound}/"
                            + (": " + "; ".join(f"{n} ({why})" for n, why in skipped[:10]) if skipped else ""))
    for student, (_, entry, files) in sorted(newest.items()):
        target = course.submitted / student / assignment
        if target.exists():
            import shutil
            shutil.rmtree(target)
        for relative in files:
            destination = target / relative
            destination.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(entry / relative, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(descriptor, "rb") as source:
                destination.write_bytes(source.read())
    print(f"collected {len(newest)} submission(s) of {assignment} from {inbound}/ into {course.submitted}/",
          file=out)
    if skipped:
        print(f"skipped {len(skipped)} folder(s): " + "; ".join(f"{n} ({why})" for n, why in skipped), file=out)
    return sorted(newest), skipped
