"""The class misconception report: ``python -m autograder report ASSIGNMENT``.

For one assignment, how many students made each catalogued mistake, read from
the diagnostic messages in the autograded notebooks (the messages come from
the exercise's catalogue, so each one names exactly one mistake).  Writes a
Markdown page with a table and a bar chart (PNG) to
``autograder/reports/ASSIGNMENT/`` of the course, so an instructor sees what to teach again.
"""
import collections
from pathlib import Path

from . import notebooks
from .checks import SHARED_MISTAKES
from .results import NOT_IMPLEMENTED, Kind


def count_mistakes(course, assignment):
    """(students, Counter mistake id -> students, dict id -> message) for the autograded class."""
    exercise = course.exercise(assignment)
    mistakes = {m.id: m.message for m in (*SHARED_MISTAKES, *exercise.catalogue.MISTAKES)}
    extra = {"(not attempted)": "a function still raises NotImplementedError",
             "(timeout or crash)": "the code was stopped: too slow, endless, or it killed its process",
             "(other wrong answer)": "a failed test, and no catalogued mistake named for this student"}
    counts = collections.Counter()
    students = sorted(p.parent.name for p in course.autograded.glob(f"*/{assignment}") if p.is_dir())
    if not students:
        raise notebooks.NotebookError(f"nothing graded for {assignment}: expected autograded notebooks in "
                                      f"{course.autograded / '<student>' / assignment}/ "
                                      f"(run python -m autograder grade {assignment} first)")
    for student in students:
        found, unexplained = set(), False
        for path in (course.autograded / student / assignment).glob("*.ipynb"):
            for _, ename, message in notebooks.test_cell_errors(path):
                named = {i for i, text in mistakes.items() if text in message}
                if named:
                    found |= named
                elif Kind.from_error_name(ename) is not Kind.FAILED:
                    found.add("(timeout or crash)")
                elif NOT_IMPLEMENTED in message:
                    found.add("(not attempted)")
                else:
                    unexplained = True
        # a visible test fails too when a catalogued mistake was named: that is the same mistake
        if unexplained and not (found & set(mistakes)):
            found.add("(other wrong answer)")
        counts.update(found)
    return students, counts, {**mistakes, **extra}


def write_report(course, assignment, out_dir=None):
    """Write misconceptions.md and misconceptions.png (in the course's reports folder); return the Markdown path."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    students, counts, messages = count_mistakes(course, assignment)
    out_dir = Path(out_dir) if out_dir else course.reports / assignment
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = sorted(messages, key=lambda i: (-counts[i], i))
    total = max(1, len(students))

    fig, ax = plt.subplots(figsize=(7.5, 0.35 * len(rows) + 1.2))
    ax.barh(range(len(rows)), [counts[i] for i in rows], color="#4c72b0")
    ax.set_yticks(range(len(rows)), rows)
    ax.invert_yaxis()
    ax.set_xlabel(f"students (of {len(students)})")
    ax.set_title(f"{assignment}: catalogued mistakes in the class")
    ax.xaxis.get_major_locator().set_params(integer=True)
    fig.tight_layout()
    fig.savefig(out_dir / "misconceptions.png", dpi=100)
    plt.close(fig)

    lines = [f"# {assignment}: what the class got wrong", "",
             f"{len(students)} autograded submissions. A student counts once per mistake, "
             "however many tests showed it.", "",
             "![students per mistake](misconceptions.png)", "",
             "| mistake | students | share | what the grader told them |", "|---|---:|---:|---|"]
    for mistake in rows:
        text = messages[mistake].replace("|", "\\|")
        lines.append(f"| `{mistake}` | {counts[mistake]} | {100 * counts[mistake] / total:.0f}% | {text} |")
    path = out_dir / "misconceptions.md"
    path.write_text("\n".join(lines) + "\n")
    return path
