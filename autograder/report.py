"""The class misconception report: ``python -m autograder report ASSIGNMENT``.

For one assignment, how many students made each catalogued mistake, read from
the diagnostic messages in the autograded notebooks (the messages come from
the exercise's catalogue, so each one names exactly one mistake).  Writes a
Markdown page with a table and a bar chart (PNG) to
``autograder/reports/ASSIGNMENT/`` of the course, so an instructor sees what to teach again.

The feedback may be in any language the grader speaks (each notebook's own, see
``i18n``): a mistake is counted whichever language named it.  The report's
headings and the messages it quotes are in the language it is asked for
(``--lang``); the mistake ids stay as they are.
"""
import collections
from pathlib import Path

from . import i18n, notebooks
from .checks import SHARED_MISTAKES
from .i18n import N_, _
from .results import NOT_IMPLEMENTED, Kind

# What the rows that are not catalogued mistakes mean (their ids stay English, as the mistakes' ids).
EXTRA_ROWS = {"(not attempted)": N_("a function still raises NotImplementedError"),
              "(timeout or crash)": N_("the code was stopped: too slow, endless, or it killed its process"),
              "(other wrong answer)": N_("a failed test, and no catalogued mistake named for this student")}
# Fonts with Japanese glyphs, for the chart of a Japanese report (else its labels stay English).
CJK_FONTS = ("Noto Sans CJK JP", "Noto Sans JP", "IPAexGothic", "IPAGothic", "TakaoGothic", "VL Gothic",
             "Hiragino Sans", "Yu Gothic", "MS Gothic")


def count_mistakes(course, assignment):
    """(students, Counter mistake id -> students, dict id -> message) for the autograded class;
    the messages in the current language."""
    exercise = course.exercise(assignment)
    catalogued = {m.id: m for m in (*SHARED_MISTAKES, *exercise.catalogue.MISTAKES)}
    mistakes = {i: mistake.translated() for i, mistake in catalogued.items()}
    # Each mistake's message in every language, as the feedback may hold it.
    variants = {i: set(i18n.in_each_language(mistake.translated)) for i, mistake in catalogued.items()}
    not_implemented = set(i18n.in_each_language(lambda: _(NOT_IMPLEMENTED)))
    extra = {row: _(text) for row, text in EXTRA_ROWS.items()}
    counts = collections.Counter()
    students = sorted(p.parent.name for p in course.autograded.glob(f"*/{assignment}") if p.is_dir())
    if not students:
        raise notebooks.NotebookError(f"nothing graded for {assignment}: expected autograded notebooks in "
                                      f"{course.autograded / '<student>' / assignment}/ "
                                      f"(run python -m autograder grade {assignment} first)")
    for student in students:
        found, unexplained = set(), False
        for path in (course.autograded / student / assignment).glob("*.ipynb"):
            for _grade_id, ename, message in notebooks.test_cell_errors(path):
                named = {i for i, texts in variants.items() if any(text in message for text in texts)}
                if named:
                    found |= named
                elif Kind.from_error_name(ename) is not Kind.FAILED:
                    found.add("(timeout or crash)")
                elif any(text in message for text in not_implemented):
                    found.add("(not attempted)")
                else:
                    unexplained = True
        # a visible test fails too when a catalogued mistake was named: that is the same mistake
        if unexplained and not (found & set(mistakes)):
            found.add("(other wrong answer)")
        counts.update(found)
    return students, counts, {**mistakes, **extra}


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
                 "![{alt}](misconceptions.png)".format(alt=_("students per mistake")), "",
                 "| {} | {} | {} | {} |".format(_("mistake"), _("students"), _("share"), _("what the grader told them")),
                 "|---|---:|---:|---|"]
    for mistake in rows:
        text = messages[mistake].replace("|", "\\|")
        lines.append(f"| `{mistake}` | {counts[mistake]} | {100 * counts[mistake] / total:.0f}% | {text} |")
    path = out_dir / "misconceptions.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
