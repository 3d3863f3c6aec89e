"""Diagnosis: ``expect`` judges an answer, names the mistake it shows, and inside
``collecting()`` records every failed call of a test so that ``summary`` reports them together."""
import contextlib
import contextvars
import dataclasses
from typing import Any

import numpy as np

from ..i18n import N_, _, ngettext, pgettext
from ..results import STOPPED
from .form import CONTRACT_MISTAKES, GUESSED, adapted
from .formulas import pairs
from .messages import raised
from .inputs import reference_function
from .model import Unreturned, all_close, as_float_array, attempt, close
from .shared import modifies_input

_WATCHERS = contextvars.ContextVar("watchers", default=())


@contextlib.contextmanager
def watching(callback):
    """While the block runs, ``callback(record)`` sees every Attempt that ``expect`` judges (for tests)."""
    token = _WATCHERS.set((*_WATCHERS.get(), callback))
    try:
        yield
    finally:
        _WATCHERS.reset(token)


# Looked for after a catalogue's own mistakes, in every exercise.
SHARED_MISTAKES = (modifies_input(N_("`x -= x.max()` or `Q /= np.sqrt(d)`"), "`shifted = x - x.max()`"),
                   *CONTRACT_MISTAKES)


@dataclasses.dataclass
class Diagnosis:
    """What ``expect`` found wrong with one call."""
    record: Any            # the call as judged, before a substitute answer stood in for the learner's
    key: str               # the mistake's id, or the kind of a plain description ("values", "raised", ...)
    message: str
    mistake: Any = None    # the Mistake named, if any
    detail: Any = True     # what its detector said
    rank: int = 0          # where the computation meets it: its place among the mistakes looked for
    verify: Any = None     # for mistakes found together (``formulas.pairs``): does another call fit them too?
    stages: tuple = ()     # the probes that localise a wrong answer no mistake names (``Stage``)
    whole: bool = False    # a mistake of the form that explains the whole call (adapted, the answer is right)


ADAPTABLE = ("returns_single_array", "returns_tuple", "returns_wrong_count", "outputs_in_wrong_order",
             "missing_argument", "rounded", "fixed_rank", "written_for_batches")


def _diagnoses(record, mistakes, stages=()):
    """The Diagnoses of a wrong answer: the first mistake it shows, else a description that localises
    what is wrong; after a mistake of the contract's form, also what the maths of the call does once
    adapted to what the learner's code supports (``form.adapted``)."""
    for rank, mistake in enumerate(mistakes):
        found = mistake.shown_by(record)
        if found:
            named = Diagnosis(record, mistake.id, mistake.text(record, found), mistake, found, rank)
            if mistake.id == "modifies_input" and record.error is None:
                # the answer is wrong as well: what else it shows, or where it goes wrong
                rest = [m for m in mistakes if m.id != mistake.id]
                return [named, *(dataclasses.replace(d, rank=rank + (1 + d.rank) / (1 + len(mistakes)))
                                 for d in _diagnoses(record, rest, stages))]
            found = adapted(record, mistake.id) if mistake.id in ADAPTABLE else None
            if found is None:
                return [named]
            trial, right = found
            if right:
                return [dataclasses.replace(named, whole=True)]
            maths = [m for m in mistakes if m.id != mistake.id]   # the next form mistake, then the maths
            shown = _diagnoses(trial, maths, stages)
            if trial.adapted == GUESSED and not all(d.mistake is not None for d in shown):
                return [named]    # an array of no part's shape: taken for the output only if that names a mistake
            # what the adapted call shows comes right after the form's mistake, in the report's order
            return [named, *(dataclasses.replace(d, rank=rank + (1 + d.rank) / (1 + len(mistakes)))
                             for d in shown)]
    if record.error is not None:
        return [Diagnosis(record, "raised", raised(record.call, record.error), rank=len(mistakes))]
    for first, first_detail, second, second_detail, verify in pairs(record, mistakes):
        # a formula that isolates a stage (the block with the learner's own layer_norm) is the ground
        # the other mistake is found on, not a mistake to name beside it
        return [Diagnosis(record, m.id, m.text(record, detail), m, detail, list(mistakes).index(m), verify)
                for m, detail in ((first, first_detail), (second, second_detail))
                if not getattr(m.detect, "isolates", False)]
    return [Diagnosis(record, *localised(record, stages), rank=len(mistakes), stages=stages)]


def _parts(record):
    """Names of the parts of the contract's answer: "the output" and "the weights" for a pair."""
    if not isinstance(record.want, tuple):
        return ("",)
    if len(record.parts) == len(record.want):
        return tuple(_(part) for part in record.parts)
    if len(record.want) == 2:
        return (_("the output"), _("the weights"))
    return tuple(_("output {index}").format(index=index) for index in range(len(record.want)))


def localised(record, stages=()):
    """(key, message) saying where a wrong answer goes wrong, naming no mistake: which part of the
    answer is wrong and how (shape, NaN, values), which parts are right, and which stage of the
    computation the ``stages`` probes point to.  The words never depend on the draw, so the same code
    gets the same report."""
    key, text = _where_wrong(record)
    stage = _stage_told(record, stages) if key in ("values", "nan") else None
    return key, (f"{text}: {stage}" if stage else text)


def _stage_told(record, stages):
    """What the first informative probe of ``stages`` says about the learner's function, or None."""
    for stage in stages:
        if stage.function != record.function or record.callee is None:
            continue
        try:
            args, kwargs = stage.probe(record)
            with np.errstate(all="ignore"):
                want = (stage.reference or reference_function(record.function))(*args, **kwargs)
        except Exception:   # a probe this call cannot make
            continue
        trial = attempt(record.callee, record.function, args, kwargs, want=want, arg_names=record.arg_names)
        if trial.error is not None or not _same_form(trial.got, trial.want):
            continue   # another form: it tells nothing
        error, shown = _relative_error(trial), _relative_error(record)
        if error == np.inf and shown != np.inf:
            continue   # NaN or inf where the call it probes answered finite numbers: the probe's
            #            degenerate inputs (equal scores, a zero spread) caused it, not the mistake
        # Right or wrong by a clear margin only: a mistake that a probe nearly hides (a layer norm that
        # undoes a factor but for its eps) would otherwise tell one thing on one draw, another on the next.
        if all_close(trial.got, trial.want) and error <= shown * PROBE_MARGIN:
            told = stage.right
        elif not all_close(trial.got, trial.want) and error >= shown / 10:
            told = stage.wrong
        else:
            told = None
        if told:
            return _(told)
    return None


PROBE_MARGIN = 1e-3   # a probe is right when its error is this small beside the error of the call it probes


def _relative_error(record):
    """The largest difference between the returned parts and the right ones, over the right answer's scale
    (non-finite parts compared where finite); 0 when every part is right to the last digit."""
    got = record.got if isinstance(record.got, tuple) else (record.got,)
    want = record.want if isinstance(record.want, tuple) else (record.want,)
    worst = 0.0
    for g, w in zip(got, want):
        if isinstance(g, Unreturned):
            continue
        g, w = np.asarray(g, dtype=float), np.asarray(w, dtype=float)
        both = np.isfinite(g) & np.isfinite(w)
        if not np.array_equal(np.isfinite(g), np.isfinite(w)):
            return np.inf
        scale = max(1.0, float(np.max(np.abs(w[both]), initial=0.0)))
        worst = max(worst, float(np.max(np.abs(g[both] - w[both]), initial=0.0)) / scale)
    return worst


def _same_form(got, want):
    """Are the returned parts of ``got`` shaped like the parts of ``want``?"""
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    return len(got) == len(want) and all(np.shape(g) == np.shape(w) for g, w in zip(got, want)
                                         if not isinstance(g, Unreturned))


def _where_wrong(record):
    got = record.got if isinstance(record.got, tuple) else (record.got,)
    want = record.want if isinstance(record.want, tuple) else (record.want,)
    names = _parts(record)
    right = [name for name, g, w in zip(names, got, want) if close(g, w) and not isinstance(g, Unreturned)]
    for name, g, w in zip(names, got, want):
        if close(g, w) or isinstance(g, Unreturned):
            continue
        # Translators: put before "has shape ...", "contains NaN or inf", "has wrong values".
        label = _("{part} ").format(part=name) if name else ""
        if np.shape(g) != np.shape(w):
            return "shape", _("{call}: {label}has shape {got}, expected {want}").format(
                call=record.call, label=label, got=np.shape(g), want=np.shape(w))
        if not np.all(np.isfinite(g)) and np.all(np.isfinite(w)):
            key, text = "nan", _("{call}: {label}contains NaN or inf").format(call=record.call, label=label)
        else:
            key, text = "values", _("{call}: {label}has wrong values").format(call=record.call, label=label)
        if right:
            text += _(" ({parts} right)").format(parts=pgettext("parts", " and ").join(right))
        return key, text
    return "wrong", _("{call}: wrong result").format(call=record.call)


_COLLECTING = contextvars.ContextVar("collecting", default=None)
MAX_SHOWN, MAX_LENGTH, MAX_TOTAL = 3, 1200, 1900   # diagnoses per test, characters per diagnosis, per test


class Findings:
    """What one test's calls showed (``collecting``): iterating gives its (key, message) pairs, each
    named mistake verified against every call of the test, in the order the computation meets them."""

    def __init__(self):
        self.diagnoses = []     # Diagnosis, in call order
        self.wrong = []         # every wrong answer (a valued one: no exception), adapted ones included

    def add(self, diagnoses):
        self.diagnoses.extend(diagnoses)
        # a call adapted to the code's form counts as its adapted self (the pair swapped back, ...), and
        # adapted twice (a pair's output alone, rounded) as the last adaptation, whose maths is diagnosed
        # a call that the form's mistake explains whole is no wrong answer of the maths
        adapted = [d.record for d in diagnoses if d.record.adapted]
        records = [] if any(d.whole for d in diagnoses) else adapted[-1:] if adapted else [
            d.record for d in diagnoses if d.key != "property"]
        unique = {id(record): record for record in records}.values()   # a pair's two names share one call
        # (a right answer named for a mistake seen even when close, a changed input, is no wrong answer)
        self.wrong.extend(record for record in unique if record.error is None
                          and not all_close(record.got, record.want))

    def __bool__(self):
        return bool(self.diagnoses)

    def __len__(self):
        return len(self.diagnoses)

    def __iter__(self):
        verified = [self._verified(d) for d in self.diagnoses]
        named = [d for d in verified if d.mistake is not None and not d.mistake.even_if_close]
        for index, diagnosis in enumerate(verified):
            if diagnosis.mistake is None and diagnosis.record.error is None:
                # a call that another call's verified mistake explains is that mistake, not a new problem
                # (an adapted call is past the form's mistakes: what is left wrong there is not one of them)
                verified[index] = next((d for d in named if d.record.function == diagnosis.record.function
                                        and not (diagnosis.record.adapted and d.mistake.id in ADAPTABLE)
                                        and d.mistake.shown_by(diagnosis.record)), diagnosis)
        return iter([(d.key, d.message) for d in sorted(verified, key=lambda d: d.rank)])

    def _verified(self, diagnosis):
        """``diagnosis``, or where its call goes wrong when the mistake it names does not explain
        every wrong answer of that function in the test (one name from one call is a guess): another
        call explains it when the mistake reproduces its answer, alone or with the mistake found
        together with it there."""
        mistake, record = diagnosis.mistake, diagnosis.record
        if mistake is None or mistake.even_if_close or record.error is not None:
            return diagnosis
        for other in self.wrong:
            if other.function != record.function or other is record:
                continue
            if mistake.overflow and not mistake.hides(other):
                continue   # a finite answer: the overflow leaves no trace there
            if not mistake.overflow and any(d.record is other and d.mistake is not None and d.mistake.overflow
                                            for d in self.diagnoses):
                continue   # NaN where exp overflowed: no other mistake can show there
            if diagnosis.verify is not None:
                if not diagnosis.verify(other):
                    return Diagnosis(record, *localised(record, diagnosis.stages), rank=10_000)
                continue
            if any(d.record is other and d.mistake is mistake and d.verify is not None for d in self.diagnoses):
                continue   # named there together with another mistake
            if hasattr(diagnosis.detail, "explains"):   # a fitted value: the same value must explain the other call
                if not diagnosis.detail.explains(other, mistake.detect.family[0]):
                    return Diagnosis(record, *localised(record, diagnosis.stages), rank=10_000)
                continue
            shown = mistake.shown_by(other)
            if not shown or (mistake.same_detail and shown != diagnosis.detail):
                return Diagnosis(record, *localised(record, diagnosis.stages), rank=10_000)
        return diagnosis


@contextlib.contextmanager
def collecting():
    """While the block runs, ``expect`` records every failed call instead of stopping at the first;
    the block gets the ``Findings`` it fills (iterated: (key, message) pairs)."""
    found = Findings()
    token = _COLLECTING.set(found)
    try:
        yield found
    finally:
        _COLLECTING.reset(token)


def summary(found, extra=None):
    """One line for a test: the distinct diagnoses of ``found`` (at most MAX_SHOWN, each at most
    MAX_LENGTH characters), then ``extra`` (how the test itself ended), if any."""
    shown, seen, more = [], set(), 0
    for key, message in [*found, *([("end", extra)] if extra else [])]:
        if key in seen or message in shown:
            continue
        message = message if len(message) <= MAX_LENGTH else message[:MAX_LENGTH - 3] + "..."
        if shown and (len(shown) == MAX_SHOWN or sum(map(len, shown)) + len(message) > MAX_TOTAL):
            more += 1
            continue
        seen.add(key)
        shown.append(message)
    text = _(" | Also: ").join(shown)
    if more:
        text += ngettext(" | (and {count} more different problem)", " | (and {count} more different problems)",
                         more).format(count=more)
    return text


def _substitute(record):
    """Let a check go on after a wrong call: the reference answer stands in for the learner's."""
    want = record.want
    record.got = (tuple(as_float_array(np.asarray(w, dtype=float)) for w in want) if isinstance(want, tuple)
                  else as_float_array(np.asarray(want, dtype=float)))


def _fail(record, diagnoses):
    found = _COLLECTING.get()
    if found is None or (record.error or "").startswith(STOPPED):
        # a timeout or a dead process ends the test: the next call would wait too
        raise AssertionError(summary([(d.key, d.message) for d in diagnoses]))
    found.add([dataclasses.replace(d, record=dataclasses.replace(d.record)) if d.record is record else d
               for d in diagnoses])
    _substitute(record)


def expect(record, mistakes, *, extra_check=None, stages=()):
    """Raise AssertionError naming the mistake unless ``record`` holds the right answer.

    A wrong answer is named by the first mistake it shows; a right one may still
    show a mistake marked ``even_if_close``.  ``extra_check(record)`` may return
    a message for a property that no catalogued mistake covers.  Inside
    ``collecting()`` the failure is recorded and the check goes on.
    """
    # a rounded answer is recognised first: a formula may match it within the tolerance on one draw
    # and not on the next
    mistakes = (*(m for m in SHARED_MISTAKES if m.id == "rounded"), *mistakes,
                *(m for m in SHARED_MISTAKES if m.id != "rounded"))
    failure = None
    if record.error is not None or not all_close(record.got, record.want):
        failure = [dataclasses.replace(d, stages=tuple(stages)) for d in _diagnoses(record, mistakes, stages)]
    else:
        found = next(((rank, m, f) for rank, m in enumerate(mistakes) if m.even_if_close
                      for f in [m.shown_by(record)] if f), None)
        if found:
            rank, mistake, detail = found
            failure = [Diagnosis(record, mistake.id, mistake.text(record, detail), mistake, detail, rank)]
        else:
            problem = extra_check(record) if extra_check else None
            failure = [Diagnosis(record, "property", f"{record.call}: {problem}", rank=len(mistakes))] \
                if problem else None
    for watch in _WATCHERS.get():
        # As judged, before a failed call's answer is replaced; without the learner's function,
        # which may no longer be callable when the watcher looks (the probe's findings are kept).
        watch(dataclasses.replace(record, callee=None))
    if failure:
        _fail(record, failure)
