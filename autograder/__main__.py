"""Command line of the grading engine.

  python -m autograder check NOTEBOOK [--hint] [--json] [--model-answers] [--reference] [--lang ja]   the self-check
  python -m autograder progress [FOLDER] [--lang ja]   the learner's last self-check of each exercise
  python -m autograder grade ASSIGNMENT          the instructor's class run, in parallel
  python -m autograder report ASSIGNMENT [--lang ja]   the class report: mistakes, scores per test, errors, late and missing
  python -m autograder collect ASSIGNMENT [ZIP]  import an LMS's zip (Canvas or Moodle) into autograder/submitted/
  python -m autograder move-gradebook --from URL [--to URL]   carry every grade over to another gradebook
  python -m autograder roster import FILE        the class list an LMS exports (Canvas or Moodle)
  python -m autograder export ASSIGNMENT --to canvas|moodle FILE      grades, as the LMS's gradebook imports them
  python -m autograder release_feedback ASSIGNMENT --to canvas|moodle ZIP   feedback, as the LMS uploads it
  python -m autograder similarity ASSIGNMENT     pairs of submissions whose code is alike

Exit status: 0 when the work was done (whatever the scores), non-zero with a
one-line reason on stderr when it could not be.  The self-check's language:
``--lang``, else the notebook's metadata, else the locale environment, else
English (``autograder.i18n``).
"""
import argparse
import json
import os
import signal
import sys
from pathlib import Path

from . import course, hints, i18n, notebooks, safe, selfcheck
from .i18n import _
from .notebooks import NotebookError


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not a usage dump
        _exit(f"autograder: {message} (see python -m autograder --help)")


def _parser():
    parser = _Parser(prog="python -m autograder", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    check = commands.add_parser("check", help="grade one exercise notebook with the hidden tests")
    check.add_argument("notebook", help="path to the exercise notebook (.ipynb)")
    check.add_argument("--json", action="store_true", help="print one JSON object and nothing else")
    check.add_argument("--course-root", help="grade against this course's source (default: the book's course, "
                                             "installed with the package)")
    check.add_argument("--model-answers", action="store_true",
                       help="after grading, print the model answer of each written question (for self-learners; "
                            "only where the course offers them)")
    check.add_argument("--reference", action="store_true",
                       help="once every test passes, print the book's implementation to compare with yours "
                            "(only where the course offers it)")
    check.add_argument("--hint", action="store_true",
                       help="instead of the report, the next graded hint about the first mistake found (where to "
                            "look, then what to compare; never the code)")
    check.add_argument("--lang", help="the report's language, en or ja (default: the notebook's metadata "
                                      "attention_book.language, else LANGUAGE, LC_ALL, LC_MESSAGES, LANG, else en)")
    progress = commands.add_parser("progress", help="list the exercises in a folder with their last self-check")
    progress.add_argument("folder", nargs="?", default=".", help="the folder (and its subfolders) holding your "
                                                                 "exercise notebooks (default: this one)")
    progress.add_argument("--course-root", help="the course (default: the book's)")
    progress.add_argument("--lang", help="the language, en or ja (default: LANGUAGE, LC_ALL, LC_MESSAGES, LANG, else en)")
    grade = commands.add_parser("grade", help="grade every submission of an assignment, in parallel")
    grade.add_argument("assignment", help="e.g. 01_softmax")
    grade.add_argument("--jobs", type=int, default=None, help="worker processes (default: one per core)")
    grade.add_argument("--force", action="store_true", help="grade every submission again, even unchanged ones")
    grade.add_argument("--student", action="append", help="grade only this student (repeatable)")
    grade.add_argument("--course-root", help="course folder (default: the repository)")
    grade.add_argument("--db-url", help="gradebook URL (default: gradebook.db in the course root, or $ATTENTION_GRADEBOOK_URL)")
    grade.add_argument("--no-progress", action="store_true", help="no progress bar")
    grade.add_argument("--shard", help="K/N: grade only the K-th of N equal shares of the students "
                                       "(several machines sharing one PostgreSQL gradebook)")
    report = commands.add_parser("report", help="the class report: catalogued mistakes, scores per test, errors by cause, late and missing submissions (Markdown, CSV, charts)")
    report.add_argument("assignment", help="e.g. 01_softmax")
    report.add_argument("--course-root", help="course folder (default: the repository)")
    report.add_argument("--lang", help="the report's language, en or ja (default: the locale environment, else en)")
    collect = commands.add_parser("collect", help="import an LMS's zip of submissions (Canvas or Moodle layout)")
    collect.add_argument("assignment", help="e.g. 01_softmax")
    collect.add_argument("zips", nargs="*", help="the zip(s) (default: autograder/downloaded/ASSIGNMENT/archive/*.zip)")
    collect.add_argument("--exchange", action="store_true",
                         help="collect from nbgrader's exchange (c.Exchange.root) instead, the student "
                              "being the owner of each inbound folder; links refused")
    collect.add_argument("--course-root", help="course folder (default: the repository)")
    move = commands.add_parser("move-gradebook", help="copy every grade, manual score and comment into "
                                                      "another, empty gradebook (switching gradebooks midway)")
    move.add_argument("--from", dest="from_url", required=True, help="the gradebook URL the grades are in, "
                                                                     "e.g. sqlite:////abs/path/gradebook.db (retired "
                                                                     "once moved: the class run no longer compares "
                                                                     "with it)")
    move.add_argument("--to", dest="to_url", help="the gradebook URL to copy them into (default: the one the "
                                                  "course's commands use: $ATTENTION_GRADEBOOK_URL, else its SQLite file)")
    move.add_argument("--course-root", help="course folder, which must exist (default: the repository)")
    for module in _term_modules():   # each adds its own subcommands
        module.add_parsers(commands)
    return parser


def _term_modules():
    """The modules of the instructor's term (roster, the way back to the LMS, similarity): each has
    ``add_parsers(commands)`` and ``main(args) -> exit status``, and names its commands in ``COMMANDS``."""
    from . import lms, roster, similarity
    return (roster, lms, similarity)


def _exit(message):
    """Stop with one line on stderr (it may quote the submission: made safe)."""
    sys.exit(safe.terminal(message, encoding=getattr(sys.stderr, "encoding", None)))

def _collect(args):
    from . import collect
    try:
        config = course.load_config(args.course_root)
        if args.exchange:
            from nbgrader.exchange.default.exchange import Exchange

            from . import exchange
            root = Exchange(config=config).root
            inbound = Path(root) / config.CourseDirectory.course_id / "inbound"
            exchange.collect_exchange(course.from_config(config), inbound, args.assignment,
                                      ignore=course.coursedir(config).ignore)
        else:
            collect.collect(course.from_config(config), args.assignment, args.zips)
    except NotebookError as error:
        _exit(f"autograder: {error}")
    except Exception as error:
        _exit(f"autograder: could not collect {args.assignment}: {type(error).__name__}: {error}".splitlines()[0])
    return 0


def _move_gradebook(args):
    from . import gradebooks
    to_url = args.to_url
    try:
        if args.course_root:   # before load_config, which makes the course's folders, and before any write
            if not Path(args.course_root).is_dir():
                raise NotebookError(f"--course-root {args.course_root}: no such folder")
            course.course_at(args.course_root).exercises   # NotebookError: not a course
        graded_course = course.from_config(course.load_config(args.course_root))
        graded_course.exercises   # the configured course (default: the repository) must be one too
        to_url = to_url or graded_course.gradebook_url
        moved = gradebooks.move(args.from_url, to_url)
    except NotebookError as error:   # the URLs may carry passwords: never printed
        _exit(f"autograder: {gradebooks.scrub(error, args.from_url, to_url)}")
    except Exception as error:
        _exit(f"autograder: could not move the gradebook: {type(error).__name__}: "
              f"{gradebooks.scrub(error, args.from_url, to_url)}")
    try:
        if to_url == graded_course.gradebook_url:   # the course's gradebook now (the class run's check reads it)
            gradebooks.remember(graded_course, to_url)
        gradebooks.retire(graded_course, args.from_url)   # stale from now on: never compared again
    except OSError as error:   # moved all the same: say so, the next move would be refused
        _exit(f"autograder: {gradebooks.summary(moved, args.from_url, to_url)}, but could not record it in "
              f"{graded_course.grading_log}: {type(error).__name__}: {gradebooks.scrub(error, args.from_url, to_url)}")
    print(gradebooks.summary(moved, args.from_url, to_url, retired=True))
    return 0


def _grade_class(args):
    from . import classrun
    try:
        config = course.load_config(args.course_root, args.db_url)
        outcomes = classrun.grade_class(args.assignment, jobs=args.jobs, force=args.force, students=args.student,
                                        shard=args.shard, config=config, progress=not args.no_progress)
    except (classrun.Interrupted, classrun.GradebookMismatch, NotebookError) as error:
        _exit(_without_password(f"autograder: {error}", args))
    except Exception as error:
        _exit(_without_password(f"autograder: could not grade {args.assignment}: {type(error).__name__}: {error}",
                                args))
    classrun.print_summary(args.assignment, outcomes, course=course.from_config(config))
    return 0


def _without_password(message, args):
    """``message`` on one line, without the password of the gradebook URL in use (a driver's error may
    quote it in pieces)."""
    import os
    from .gradebooks import scrub
    return scrub(message, args.db_url, os.environ.get(course.GRADEBOOK_URL_VARIABLE))


def _language(args):
    """The language ``--lang`` names (else the environment's, else English); one line and exit if unsupported."""
    try:
        return i18n.choose(args.lang)
    except i18n.UnsupportedLanguage as error:
        _exit(f"autograder: --lang: {error}")


def _report(args):
    from . import report
    language = _language(args)
    try:
        path = report.write_report(course.from_config(course.load_config(args.course_root)), args.assignment,
                                   language=language)
    except NotebookError as error:
        _exit(f"autograder: {error}")
    except Exception as error:
        _exit(f"autograder: could not write the report: {type(error).__name__}: {error}".splitlines()[0])
    _print(path.read_text(encoding="utf-8"), end="")
    with i18n.language(language):
        _print("\n" + _("(written to {markdown} and {chart})").format(markdown=path, chart=path.with_suffix('.png')))
    return 0


def _print(text, end="\n"):
    """Print ``text`` as this output can encode it (what it cannot is replaced): a Japanese report on an
    ASCII terminal is printed, not a UnicodeEncodeError."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    print(text.encode(encoding, errors="replace").decode(encoding), end=end)


def main(argv=None):
    if hasattr(signal, "SIGPIPE"):  # `... | head` ends the output quietly, without a traceback
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    # nbgrader creates a new gradebook by running the `alembic` command: the one beside this Python
    # (its environment's, as if activated), so `.venv/bin/python -m autograder ...` works unactivated.
    here = os.path.dirname(sys.executable)
    if here not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = os.pathsep.join([here, os.environ.get("PATH", "")])
    args = _parser().parse_args(argv)
    if args.command == "grade":
        return _grade_class(args)
    if args.command == "report":
        return _report(args)
    if args.command == "collect":
        return _collect(args)
    if args.command == "move-gradebook":
        return _move_gradebook(args)
    if args.command == "progress":
        return _progress(args)
    for module in _term_modules():
        if args.command in getattr(module, "COMMANDS", ()):
            try:
                return module.main(args)
            except NotebookError as error:
                _exit(f"autograder: {error}")
            except Exception as error:   # never a traceback for the instructor either
                _exit(f"autograder: {args.command}: {type(error).__name__}: {error}".splitlines()[0])
    language = _language(args)   # --lang (checked here), else the environment: until the notebook is read
    requested = language if args.lang else None
    if os.name != "posix":   # the worker's limits are POSIX ones (resource, setsid, select on pipes)
        with i18n.language(language):
            _exit(_("autograder: the self-check runs your code in a separate process with limits that only Linux "
                    "and macOS give; on Windows, use WSL (the Linux steps of the learners page) or Colab"))
    from . import progress
    graded_digest = progress.digest(args.notebook)   # before grading: a save meanwhile is not what was graded
    with i18n.language(language):
        try:
            graded_course = course.course_at(args.course_root) if args.course_root else None
            exercise, report = selfcheck.grade(args.notebook, course=graded_course, language=requested)
        except NotebookError as error:
            _exit(f"autograder: {error}")
        except Exception as error:  # never a traceback for the learner
            _exit(_("autograder: could not grade {notebook}: {error}").format(
                notebook=args.notebook, error=f"{type(error).__name__}: {error}").splitlines()[0])
    # Model answers only where the course offers them ([course] model_answers in its registry).
    offered = args.model_answers and exercise.course.offers_model_answers
    try:
        answers = exercise.model_answers if offered else None
    except NotebookError as error:   # the wheel's model_answers.json damaged
        _exit(f"autograder: {error}")
    full = selfcheck.full_marks(report)
    progress.record(args.notebook, report, full, graded_digest)   # beside the notebook; none if not writable
    hint = None
    if args.hint:
        with i18n.language(report.language):
            hint = hints.next_hint(exercise, report, args.notebook)
    if args.json:
        result = report.as_json(args.notebook)
        if hint is not None:
            result["hint"] = hint.as_json()
        if answers is not None:
            result["model_answers"] = answers
        if args.reference and full and selfcheck.offers_reference(exercise):
            try:
                result["reference"] = selfcheck.reference_code(exercise)
            except NotebookError as error:
                _exit(f"autograder: {error}")
        print(json.dumps(notebooks.without_surrogates(result)))   # valid Unicode, whatever the path holds
    else:
        if hint is not None:   # the hint instead of the report, which would name the mistake
            with i18n.language(report.language):
                _print("\n".join(safe.terminal(i18n.tidy(line)) for line in hints.lines(hint, report)))
        else:
            print(selfcheck.report_text(exercise, report, args.notebook))
        with i18n.language(report.language):
            if args.hint and full:
                _print(_("Every test passes: there is nothing to hint."))
            for grade_id, text in (answers or {}).items():
                print("\n" + _("Model answer ({grade_id}); compare it with yours, your instructor grades yours:").format(
                    grade_id=grade_id) + "\n" + text)
            if full:
                _print("\n".join(selfcheck.after_full_marks(exercise, report, args.notebook)))
            if args.reference and full and selfcheck.offers_reference(exercise):
                try:
                    _print("\n" + _("The book's implementation, to compare with yours:") + "\n"
                           + selfcheck.reference_code(exercise))
                except NotebookError as error:
                    _exit(f"autograder: {error}")
            _print(safe.terminal(progress.summary_line(exercise.course, args.notebook, exercise)))
    if args.model_answers and not offered:   # asked for, not given: says so, and the status says so too
        with i18n.language(report.language):
            _exit(_("autograder: --model-answers: this course does not offer model answers"))
    if args.reference and not (full and selfcheck.offers_reference(exercise)):
        with i18n.language(report.language):
            _exit(_("autograder: --reference: this course does not offer the book's implementation")
                  if not selfcheck.offers_reference(exercise) else
                  _("autograder: --reference: the book's implementation is shown once every test passes "
                    "({score:g} / {max_score:g} points now)").format(score=report.score, max_score=report.max_score))
    return 0


def _progress(args):
    from . import progress
    language = _language(args)
    with i18n.language(language):
        try:
            readable = Path(args.folder).is_dir() and os.access(args.folder, os.R_OK | os.X_OK)
        except OSError:
            readable = False
        if not readable:
            _exit(_("autograder: progress: {folder}: no such folder, or it cannot be read").format(
                folder=safe.quoted(args.folder)))
        try:
            graded_course = course.course_at(args.course_root) if args.course_root else course.default_course()
            lines = progress.table(graded_course, Path(args.folder))
        except NotebookError as error:
            _exit(f"autograder: {error}")
        except Exception as error:
            _exit(f"autograder: could not list the progress: {type(error).__name__}: {error}".splitlines()[0])
    _print("\n".join(safe.terminal(line) for line in lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
