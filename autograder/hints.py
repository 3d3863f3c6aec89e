"""Graded hints: ``python -m autograder check NOTEBOOK --hint``, ``check_this_notebook(hint=True)``.

Instead of the report, the learner reads one hint for the first failing test whose checks named a
catalogued mistake (a visible test only asserts; the hidden tests diagnose): the next one of that
mistake (``Mistake.hints``, two or three for every catalogued mistake, in the
catalogue beside its detector).  The first says where to look, the next what to compare; none is
code.  How many hints of each mistake a notebook has been shown is kept with its self-check record
(``progress.note_hint``), so that asking again gives the next one; after the last, the same one
again, and the check without ``--hint`` names the mistake.

When no failing test names a catalogued mistake there is no graded hint: the report's messages, which
say where the answer differs (``checks.Stage``), are all there is, and the hint says so.
"""
import dataclasses
from typing import Optional

from . import progress
from .checks import SHARED_MISTAKES
from .i18n import _
from .results import NOT_ATTEMPTED


@dataclasses.dataclass
class Hint:
    """What ``--hint`` shows: for ``test`` (a grade id), hint ``number`` of ``count`` of ``mistake``."""
    test: str
    text: str
    mistake: Optional[str] = None   # the catalogued mistake's id; None when no graded hint applies
    number: int = 0
    count: int = 0

    def as_json(self):
        return dataclasses.asdict(self)


def catalogued(exercise):
    """{id: Mistake} of every mistake ``exercise``'s checks can name (its catalogue and the shared ones)."""
    return {m.id: m for m in (*SHARED_MISTAKES, *exercise.catalogue.MISTAKES)}


def next_hint(exercise, report, notebook):
    """The Hint for ``report`` (the self-check of the file ``notebook``, already recorded by
    ``progress.record``), counted as shown: of the first mistake named by a failing test, else about
    the first failing test; None when every test passes."""
    failed = [t for t in report.tests if not t.passed]
    if not failed:
        return None
    mistakes = catalogued(exercise)
    test, mistake = next(((t, mistakes[f]) for t in failed for f in t.findings if f in mistakes and mistakes[f].hints),
                         (failed[0], None))
    if mistake is None:
        if NOT_ATTEMPTED in test.findings:
            text = _("this test calls a function that still raises NotImplementedError: write that function first.")
        else:
            text = _("no catalogued mistake fits this failure, so there is no graded hint; the check without "
                     "--hint says where your answer differs.")
        return Hint(test.grade_id, text)
    hints = mistake.translated_hints()
    seen = progress.hints_seen(progress.record_of(notebook)).get(mistake.id, 0)
    number = min(seen + 1, len(hints))
    progress.note_hint(notebook, mistake.id, number)
    return Hint(test.grade_id, hints[number - 1], mistake.id, number, len(hints))


def lines(hint, report):
    """What ``--hint`` prints for ``hint``, in the report's language (a header, the hint, what next)."""
    head = _("{assignment}: {score:g} / {max_score:g} points; a hint for the failing test {test}.").format(
        assignment=report.assignment, score=report.score, max_score=report.max_score, test=hint.test)
    if hint.mistake is None:
        return [head, _("Hint: {text}").format(text=hint.text)]
    shown = [head, _("Hint {number} of {count}: {text}").format(number=hint.number, count=hint.count,
                                                              text=hint.text)]
    if hint.number < hint.count:
        shown.append(_("Ask again for the next hint (--hint, or hint=True in the check cell)."))
    else:
        shown.append(_("That was the last hint for this mistake: the check without --hint names it."))
    return shown
