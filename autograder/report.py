"""The class misconception report: ``python -m autograder report ASSIGNMENT``.

For one assignment, how many students made each catalogued mistake.  What is
counted are the findings the grader recorded with each test's result when it
graded (``preprocessors.record``): the ids of the mistakes its checks named, how
the test ended, whether a function was not written yet; never text matched in
the feedback, which quotes the learner's own exceptions.  The records are sealed
with the course's secret, so a record a submission brings is not believed, and
a notebook graded without them (an older grader, stock nbgrader) is counted as
unknown, in one line, never guessed from its text.  Writes a Markdown page with
a table and a bar chart (PNG) to ``autograder/reports/ASSIGNMENT/`` of the
course, so an instructor sees what to teach again.

The ids do not depend on the language the feedback was written in.  The
report's headings and the messages it quotes are in the language it is asked
for (``--lang``); the mistake ids stay as they are.
"""
import collections
from pathlib import Path

from . import course_secret, i18n, notebooks
from .checks import SHARED_MISTAKES
from .i18n import N_, _
from .preprocessors import read_record
from .results import NOT_ATTEMPTED, Kind

UNKNOWN = "(findings not recorded)"
MAX_AUTOGRADED_BYTES = 64 << 20   # an autograded notebook larger than this was not written by this grader
# What the rows that are not catalogued mistakes mean (their ids stay English, as the mistakes' ids).
EXTRA_ROWS = {NOT_ATTEMPTED: N_("a function still raises NotImplementedError"),
              "(timeout or crash)": N_("the code was stopped: too slow, endless, or it killed its process"),
              "(other wrong answer)": N_("a failed test, and no catalogued mistake named for this student")}
UNKNOWN_ROW = N_("graded without the findings this grader records (an older version, or stock nbgrader): "
                 "not counted in the other rows")
# Fonts with Japanese glyphs, for the chart of a Japanese report (else its labels stay English).
CJK_FONTS = ("Noto Sans CJK JP", "Noto Sans JP", "IPAexGothic", "IPAGothic", "TakaoGothic", "VL Gothic",
             "Hiragino Sans", "Yu Gothic", "MS Gothic")


def count_mistakes(course, assignment):
    """(students, Counter mistake id -> students, dict id -> message) for the autograded class;
    the messages in the current language.  A student whose notebook holds no verified record of every
    test counts only under UNKNOWN (that row is listed only when someone is in it)."""
    exercise = course.exercise(assignment)
    catalogued = {m.id: m for m in (*SHARED_MISTAKES, *exercise.catalogue.MISTAKES)}
    mistakes = {i: mistake.translated() for i, mistake in catalogued.items()}
    extra = {row: _(text) for row, text in EXTRA_ROWS.items()}
    counts = collections.Counter()
    students = sorted(p.parent.name for p in course.autograded.glob(f"*/{assignment}") if p.is_dir())
    if not students:
        raise notebooks.NotebookError(f"nothing graded for {assignment}: expected autograded notebooks in "
                                      f"{course.autograded / '<student>' / assignment}/ "
                                      f"(run python -m autograder grade {assignment} first)")
    key = course_secret.seal_key(course)
    if key is None:
        raise notebooks.NotebookError(
            f"the findings of {assignment} are sealed with the course's grading secret, which this machine does "
            f"not have: copy {course_secret.SECRET_FILE} from the machine that graded, or set "
            f"{course_secret.SECRET_VARIABLE}")
    for student in students:
        results = _recorded_results(key, exercise, course.autograded / student / assignment, student)
        if results is None:
            counts[UNKNOWN] += 1
            continue
        found, unexplained = set(), False
        for kind, findings in results:
            named = set(findings) & set(catalogued)
            if named:
                found |= named
            elif kind in (Kind.TIMEOUT, Kind.CRASHED):
                found.add("(timeout or crash)")
            elif NOT_ATTEMPTED in findings:
                found.add(NOT_ATTEMPTED)
            elif kind is Kind.FAILED:
                unexplained = True
        # a visible test fails too when a catalogued mistake was named: that is the same mistake
        if unexplained and not (found & set(mistakes)):
            found.add("(other wrong answer)")
        counts.update(found)
    if counts[UNKNOWN]:
        extra[UNKNOWN] = _(UNKNOWN_ROW)
    return students, counts, {**mistakes, **extra}


def _recorded_results(key, exercise, folder, student):
    """[(Kind, findings)] of every test of ``exercise`` that the grader recorded in the student's autograded
    notebook (a failed test's only), or None unless every test holds a record whose seal verifies."""
    source = exercise.source
    path = folder / f"{source.name}.ipynb"
    try:
        if path.stat().st_size > MAX_AUTOGRADED_BYTES:
            return None
        notebook = notebooks.read_notebook(path)
    except (OSError, notebooks.NotebookError, RecursionError):
        return None
    recorded = {}
    for cell in notebook.cells:
        grade_id = notebooks.meta(cell).get("grade_id")
        if notebooks.is_test_cell(cell) and isinstance(grade_id, str) and grade_id not in recorded:
            result = read_record(key, (exercise.assignment, source.name, student, grade_id), cell)
            if result is not None:
                recorded[grade_id] = result
    if any(test.grade_id not in recorded for test in source.tests):
        return None
    return [recorded[test.grade_id] for test in source.tests if recorded[test.grade_id][0] is not Kind.PASSED]


def _cjk_font():
    """The name of an installed font with Japanese glyphs, or None."""
    from matplotlib import font_manager
    for name in CJK_FONTS:
        try:
            font_manager.findfont(font_manager.FontProperties(family=name), fallback_to_default=False)
            return name
        except ValueError:
            continue
    return None


def write_report(course, assignment, out_dir=None, language=i18n.ENGLISH):
    """Write misconceptions.md and misconceptions.png (in the course's reports folder), headings and
    messages in ``language``; return the Markdown path."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with i18n.language(language):
        students, counts, messages = count_mistakes(course, assignment)
    out_dir = Path(out_dir) if out_dir else course.reports / assignment
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = sorted(messages, key=lambda i: (-counts[i], i))
    total = max(1, len(students))

    font = _cjk_font() if language != i18n.ENGLISH else None
    chart_language = language if language == i18n.ENGLISH or font else i18n.ENGLISH   # no glyphs: English labels
    style = {"font.family": [font, "DejaVu Sans"]} if font else {}
    with i18n.language(chart_language), matplotlib.rc_context(style):
        fig, ax = plt.subplots(figsize=(7.5, 0.35 * len(rows) + 1.2))
        ax.barh(range(len(rows)), [counts[i] for i in rows], color="#4c72b0")
        ax.set_yticks(range(len(rows)), rows)
        ax.invert_yaxis()
        ax.set_xlabel(_("students (of {count})").format(count=len(students)))
        ax.set_title(_("{assignment}: catalogued mistakes in the class").format(assignment=assignment))
        ax.xaxis.get_major_locator().set_params(integer=True)
        fig.tight_layout()
        fig.savefig(out_dir / "misconceptions.png", dpi=100)
        plt.close(fig)

    with i18n.language(language):
        lines = ["# " + _("{assignment}: what the class got wrong").format(assignment=assignment), "",
                 _("{count} autograded submissions. A student counts once per mistake, "
                   "however many tests showed it.").format(count=len(students)), "",
                 *([_("{count} of them hold no findings recorded by this grader (graded by an older version or "
                      "by stock nbgrader): counted as `{row}` only; grade them again with `python -m autograder "
                      "grade {assignment} --force`.").format(count=counts[UNKNOWN], row=UNKNOWN,
                                                            assignment=assignment), ""]
                   if counts[UNKNOWN] else []),
                 "![{alt}](misconceptions.png)".format(alt=_("students per mistake")), "",
                 "| {} | {} | {} | {} |".format(_("mistake"), _("students"), _("share"), _("what the grader told them")),
                 "|---|---:|---:|---|"]
    for mistake in rows:
        text = messages[mistake].replace("|", "\\|")
        lines.append(f"| `{mistake}` | {counts[mistake]} | {100 * counts[mistake] / total:.0f}% | {text} |")
    path = out_dir / "misconceptions.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
