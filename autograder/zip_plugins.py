"""``nbgrader zip_collect`` as safe as ``python -m autograder collect`` (issue 24).

Stock ``zip_collect`` extracts every archive whole (links, ``../`` paths and zip bombs
included) and takes the student id from the file name with a regular expression, so
on Canvas the id was the learner's display name: renaming oneself like a classmate
took or dropped her submission.  The course's configuration (``nbgrader_config.py``)
plugs two classes into nbgrader's ``ZipCollectApp`` instead:

* ``BoundedExtractor`` (``ZipCollectApp.extractor_plugin``) reads each zip of
  ``autograder/downloaded/ASSIGNMENT/archive/`` with collect.py's own code:
  ``collect.choose`` (the bounded central directory; links, paths leaving the archive,
  encrypted and oversize entries, names no LMS layout explains or that read as two
  users refused; one file per student and name, the latest resubmission; at most 8
  notebooks a student; the run's total) and ``collect._copy_entry`` (each entry
  streamed to disk in chunks, stopped past 16 MiB whatever it declares).  Each chosen
  notebook is written as ``extracted/<student id>/<file>``: the LMS's id
  (``canvas-<user id>``, ``moodle-<participant id>``), never a display name, and a file
  name that is printable text (nbgrader logs it as it is).  With a roster
  (``python -m autograder roster import``), each submitter gets her roster id, as ``collect``
  gives it (``collect.apply_roster``), and the one it cannot map is a warning line.  Every
  entry skipped is one warning line with its reason,
  its name quoted.  As ``collect`` does, the LMS's name of each student becomes her
  ``last_name`` in the gradebook.  A zip with nothing to collect, one id given to two
  names in one archive (which no LMS writes) or a run larger than collect's bound is
  one error line and exit status 1, before anything is extracted;
* ``LmsIdCollector`` (``ZipCollectApp.collector_plugin``) reads that layout back: the
  student id is the folder's name (checked against ``collect.STUDENT_ID``), the file
  id its name, and no timestamp: an LMS's export gives every file the time of the
  download (collect.py's docstring), so, as with ``collect``, nbgrader writes no
  ``timestamp.txt`` and computes no late penalty.  Any other file in ``extracted/`` is
  skipped with a line.

nbgrader's app keeps its own rules around them: ``--force`` to extract or collect
over an earlier run, and no ``submission_secret.txt`` (``collect`` writes one, which
``release_feedback`` needs).
"""
import contextlib
import shutil
import sys
from pathlib import Path

from nbgrader.plugins import ExtractorPlugin, FileNameCollectorPlugin

from . import collect, roster, safe
from .course import Course
from .notebooks import NotebookError


class BoundedExtractor(ExtractorPlugin):
    """Extract an LMS's zips as ``python -m autograder collect`` reads them (module docstring)."""

    def extract(self, archive_path, extracted_path):
        coursedir = self.parent.coursedir
        course, assignment = Course.from_coursedir(coursedir), coursedir.assignment_id
        archives = []
        for path in sorted(Path(archive_path).iterdir()):
            if path.suffix == ".zip" and path.is_file():
                archives.append(path)
            else:
                self._skipped(path.name, "not a zip: only an LMS's zip export is read")
        if not archives:
            self.log.warning("No zip to extract in %s", archive_path)
            return
        try:
            notebook = course.exercise(assignment).notebook
            with contextlib.ExitStack() as stack:   # each archive open from its first check to its last entry read
                chosen, clashing, skipped = collect.choose(archives, assignment, notebook, stack)
                if clashing:
                    raise collect.clash_error(clashing)
                entries = roster.load(course)   # the roster's ids, as collect gives them
                chosen, unmapped, renamed = collect.apply_roster(course, entries, assignment, chosen, skipped)
                written = self._write(chosen, Path(extracted_path), skipped)
        except NotebookError as error:   # nothing to collect, a clash, a run too large: before anything is written
            self._fail(str(error))
        for name, why in skipped:
            self._skipped(name, why)
        students = {}
        for submission in written:
            students.setdefault(submission.student, []).append(submission)
        self.log.info("Extracted %d notebook(s) of %d student(s)", len(written), len(students))
        legacy = collect.legacy_folders(course, assignment, students)
        if legacy:
            self.log.warning("%s", safe.terminal(legacy))
        if unmapped:
            self.log.warning("%s", safe.terminal("could not map to the roster: " + "; ".join(
                f"{student}: {why}" for student, why in sorted(unmapped.items()))))
        if renamed:
            self.log.warning("%s", safe.terminal("named otherwise in the zip than in the roster: " + "; ".join(
                f"{student} is {safe.quoted(name)} in the zip" for student, name in sorted(renamed.items()))))
        names = {s: max(files, key=lambda f: f.timestamp).display for s, files in students.items()}
        failed = collect._record_names(course, names, {e.student: e for e in entries}) if names else None
        if failed:
            self.log.warning("%s", safe.terminal(f"could not record the students' names in the gradebook "
                                                 f"({failed}); the submissions are collected all the same"))

    def _write(self, chosen, extracted, skipped):
        """Stream each chosen entry to extracted/<student>/<file>; return the submissions written.
        An entry that cannot be read is its own line in ``skipped``; a student whose folder cannot
        be written (a full disk ...) is one line per file, and nothing of hers is left."""
        students, written = {}, []
        for submission in chosen:
            students.setdefault(submission.student, []).append(submission)
        for student, files in students.items():
            folder, hers = extracted / student, []
            try:
                folder.mkdir()
                for submission in files:
                    if not submission.file.isprintable():   # nbgrader's log shows the names it copies raw
                        skipped.append((submission.name, "a file name that is not printable text"))
                        continue
                    target = folder / submission.file
                    try:
                        collect._copy_entry(submission.opened, submission.info, target)
                    except collect._Unreadable as why:
                        target.unlink(missing_ok=True)
                        skipped.append((submission.name, str(why)))
                        continue
                    hers.append(submission)
            except OSError as error:   # that student's reason, never the end of the run
                shutil.rmtree(folder, ignore_errors=True)
                why = f"{student} not collected ({type(error).__name__}: {error.strerror or error})"
                skipped.extend((s.name, why) for s in files)
                continue
            if not hers:
                folder.rmdir()
            written.extend(hers)
        return written

    def _skipped(self, name, why):
        self.log.warning("%s", safe.terminal(f"Skipped {safe.quoted(name)} ({why})"))

    def _fail(self, message):
        """One error line and exit status 1, as nbgrader's own ``fail``."""
        self.log.error("%s", safe.terminal(message, limit=10_000))
        sys.exit(1)


class LmsIdCollector(FileNameCollectorPlugin):
    """The student id, file and timestamp of a notebook ``BoundedExtractor`` wrote (module docstring)."""

    def collect(self, submitted_file):
        path = Path(submitted_file)
        student, file = path.parent.name, path.name
        if not collect.STUDENT_ID.fullmatch(student) or path.suffix not in self.valid_ext \
                or not file.isprintable():
            self.log.warning("%s", safe.terminal(
                f"Skipped {safe.quoted(str(path))} (not extracted by autograder.zip_plugins.BoundedExtractor, "
                "which writes extracted/<student id>/<notebook>)"))
            return None
        return {"student_id": student, "file_id": file, "timestamp": None}   # the zip's time is the download's
