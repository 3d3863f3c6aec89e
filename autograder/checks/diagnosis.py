"""Diagnosis: ``expect`` judges an answer, names the mistake it shows, and inside
``collecting()`` records every failed call of a test so that ``summary`` reports them together."""
import contextlib
import contextvars
import dataclasses

import numpy as np

from ..i18n import N_, _, ngettext
from ..results import STOPPED
from .form import CONTRACT_MISTAKES
from .messages import raised
from .model import all_close, as_float_array, close
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


def _diagnosis(record, mistakes):
    """(key, message) for a wrong answer: the first catalogued mistake that matches, else a plain
    description; the key names the mistake (its id) or the kind of plain description."""
    for mistake in mistakes:
        found = mistake.shown_by(record)
        if found:
            return mistake.id, mistake.text(record, found)
    if record.error is not None:
        return "raised", raised(record.call, record.error)
    got = record.got if isinstance(record.got, tuple) else (record.got,)
    want = record.want if isinstance(record.want, tuple) else (record.want,)
    for index, (g, w) in enumerate(zip(got, want)):
        # Translators: put before "has shape ...", "contains NaN or inf", "has wrong values ...".
        label = _("output {index} ").format(index=index) if len(want) > 1 else ""
        if g.shape != np.shape(w):
            return "shape", _("{call}: {label}has shape {got}, expected {want}").format(
                call=record.call, label=label, got=g.shape, want=np.shape(w))
        if not np.all(np.isfinite(g)) and np.all(np.isfinite(w)):
            return "nan", _("{call}: {label}contains NaN or inf").format(call=record.call, label=label)
        if not close(g, w):
            error = np.nanmax(np.abs(g - w))
            return "values", _("{call}: {label}has wrong values (largest difference {difference:.3g} "
                               "from the expected result)").format(call=record.call, label=label, difference=error)
    return "wrong", _("{call}: wrong result").format(call=record.call)


_COLLECTING = contextvars.ContextVar("collecting", default=None)
MAX_SHOWN, MAX_LENGTH, MAX_TOTAL = 3, 1200, 1900   # diagnoses per test, characters per diagnosis, per test


@contextlib.contextmanager
def collecting():
    """While the block runs, ``expect`` records every failed call instead of stopping at the first;
    the block gets the list of (key, message) it fills."""
    found = []
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


def _fail(record, key, message):
    found = _COLLECTING.get()
    if found is None or (record.error or "").startswith(STOPPED):
        raise AssertionError(message)   # a timeout or a dead process ends the test: the next call would wait too
    found.append((key, message))
    _substitute(record)


def expect(record, mistakes, *, extra_check=None):
    """Raise AssertionError naming the mistake unless ``record`` holds the right answer.

    A wrong answer is named by the first mistake it shows; a right one may still
    show a mistake marked ``even_if_close``.  ``extra_check(record)`` may return
    a message for a property that no catalogued mistake covers.  Inside
    ``collecting()`` the failure is recorded and the check goes on.
    """
    mistakes = (*mistakes, *SHARED_MISTAKES)
    failure = None
    if record.error is not None or not all_close(record.got, record.want):
        failure = _diagnosis(record, mistakes)
    else:
        found = next(((m, f) for m in mistakes if m.even_if_close for f in [m.shown_by(record)] if f), None)
        if found:
            failure = found[0].id, found[0].text(record, found[1])
        else:
            problem = extra_check(record) if extra_check else None
            failure = ("property", f"{record.call}: {problem}") if problem else None
    for watch in _WATCHERS.get():
        # As judged, before a failed call's answer is replaced; without the learner's function,
        # which may no longer be callable when the watcher looks (the probe's findings are kept).
        watch(dataclasses.replace(record, callee=None))
    if failure:
        _fail(record, *failure)
