"""Graded hints: ``python -m autograder check NOTEBOOK --hint``, ``check_this_notebook(hint=True)``.

Instead of the report, the learner reads the hints of the first mistake that a failing test names (a
visible test only asserts; the hidden tests diagnose): ``Mistake.hints``, two or three for every
catalogued mistake, in the catalogue beside its detector.  The first says where to look, the next
what to compare; none is code.  Each run adds the next one to those shown before (the count is kept
with the notebook's self-check record, ``progress.note_hint``, and starts again once the mistake is
fixed); after the last, the plain self-check names the mistake.

A syntax error or a failed import is said first, as the report says it.  When no failing test names
a catalogued mistake there is no graded hint: the report's messages, which say which call is wrong
and where it differs (``checks.Stage``), are all there is, and the hint says so.
"""
import dataclasses
from typing import Optional

from . import progress
from .checks import SHARED_MISTAKES
from .i18n import _
from .results import NOT_ATTEMPTED, Kind


@dataclasses.dataclass
class Hint:
    """What ``--hint`` shows: for ``test`` (a grade id), hint ``number`` of ``count`` of ``mistake``
    (``text``, after the ``earlier`` ones); without a mistake, one ``text`` that says why there is none."""
    test: str
    text: str
    mistake: Optional[str] = None   # the catalogued mistake's id; None when no graded hint applies
    number: int = 0
    count: int = 0
    earlier: tuple = ()             # the hints shown before this one, in order (a double run loses none)
    others: int = 0                 # the other mistakes the failing tests name
    kept: bool = True               # was the count saved beside the notebook (else the next run shows it again)

    def as_json(self):
        return {**dataclasses.asdict(self), "earlier": list(self.earlier)}


def catalogued(exercise):
    """{id: Mistake} of every mistake ``exercise``'s checks can name (its catalogue and the shared ones)."""
    return {m.id: m for m in (*SHARED_MISTAKES, *exercise.catalogue.MISTAKES)}


def next_hint(exercise, report, notebook):
    """The Hint for ``report`` (the self-check of the file ``notebook``, already recorded by
    ``progress.record``), counted as shown: of the first mistake named by a failing test, else about
    the first failing test; None when every test passes."""
    from .selfcheck import first_fix
    failed = [t for t in report.tests if not t.passed and t.kind is not Kind.NOT_MEASURED]   # unmeasured: no verdict
    if not failed:
        return None
    cause = first_fix(report)
    if cause:   # a syntax error or a failed import: the cause of every failure, before any mistake
        return Hint(failed[0].grade_id, cause)
    mistakes = catalogued(exercise)
    named = list(dict.fromkeys(f for t in failed for f in t.findings if f in mistakes and mistakes[f].hints))
    if not named:
        if NOT_ATTEMPTED in failed[0].findings:
            text = _("this test calls a function that still raises NotImplementedError: write that function first.")
        else:
            text = _("the grader recognises no known mistake in this failure, so there is no graded hint for it; "
                     "the check without the hint shows which call fails, and how.")
        return Hint(failed[0].grade_id, text)
    mistake = mistakes[named[0]]
    test = next(t for t in failed if mistake.id in t.findings)
    hints = mistake.translated_hints()
    seen = progress.hints_seen(progress.record_of(notebook)).get(mistake.id, 0)
    number = min(seen + 1, len(hints))
    kept = progress.note_hint(notebook, mistake.id, number)
    return Hint(test.grade_id, hints[number - 1], mistake.id, number, len(hints), tuple(hints[:number - 1]),
                len(named) - 1, kept)


def lines(hint, report):
    """What ``--hint`` prints for ``hint``, in the report's language: a header, the hints so far, what next."""
    head = _("{assignment}: {score:g} / {max_score:g} points; a hint for the failing test {test}.").format(
        assignment=report.assignment, score=report.score, max_score=report.max_score, test=hint.test)
    if hint.mistake is None:
        return [head, _("Hint: {text}").format(text=hint.text)]
    shown = [head] + [_("Hint {number} of {count}: {text}").format(number=number, count=hint.count, text=text)
                      for number, text in enumerate((*hint.earlier, hint.text), 1)]
    if hint.number < hint.count and not hint.kept:
        shown.append(_("The count of hints shown could not be saved beside the notebook (its folder cannot be "
                       "written, or {file} there is not a file we can replace), so the next run shows this hint "
                       "again.").format(file=progress.FILE))
    elif hint.number < hint.count:
        shown.append(_("Ask again for the next hint: run the same cell or command again."))
    else:
        shown.append(_("That was the last hint for this mistake: the self-check without the hint option names it."))
    if hint.others:
        shown.append(_("The failing tests name {count} other mistake(s) as well; their hints come once this one "
                       "is fixed.").format(count=hint.others))
    return shown
