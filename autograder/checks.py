"""What hidden tests use to compare a learner's answer and name the mistake.

A hidden test calls the learner's function through ``attempt`` (which records
the inputs, the answer or the exception, and the reference answer), then
``expect`` compares.  When the answer is wrong, ``expect`` walks the exercise's
misconception catalogue (a list of ``Mistake``) and raises an AssertionError
whose message names the first mistake whose symptom matches, in words a
learner understands.  The same code runs inside a notebook kernel (plain
``nbgrader autograde``) and in the grading engine's own process, where the
learner's function is a proxy that returns plain NumPy arrays.

The catalogue author's API, all of it here: ``attempt`` and ``expect``,
``Mistake`` and ``Attempt``, ``reference`` (the exercise's reference solution),
the shared mistakes (``modifies_input``, ``masked_weight_not_zero``) and the
shared property checks (``rows_sum_to_one``, ``masked_weights_are_zero``,
``close``).
"""
import contextlib
import contextvars
import dataclasses
from typing import Any, Callable, Optional

import numpy as np

from .results import NOT_IMPLEMENTED_LINE, STOPPED

# Loose enough for a correct float32 implementation, far tighter than any mistake.
RTOL, ATOL = 1e-4, 1e-6


@dataclasses.dataclass
class Attempt:
    """One call of a learner's function, with everything needed to judge it."""
    function: str                   # the learner's function that was called, e.g. "softmax"
    call: str                       # how the call reads, e.g. "softmax(x, axis=0) with x of shape (4, 3)"
    args: tuple
    kwargs: dict
    want: Any                       # the reference answer
    got: Any = None                 # the learner's answer, as float arrays (None if it raised)
    error: Optional[str] = None     # "ValueError: ..." if it raised
    modified_input: bool = False    # True if it changed one of its input arrays
    kinds: tuple = ()               # NumPy dtype kind of each returned array before conversion ("b", "f", ...)
    peak_bytes: Optional[int] = None    # memory the call allocated at its peak, when traced
    memory_bound: Optional[int] = None  # what the check allows for peak_bytes


@dataclasses.dataclass(frozen=True)
class Mistake:
    """One entry of a misconception catalogue.

    ``detect(attempt)`` says whether an answer shows this mistake's symptom (it
    may return a string instead of True: a detail put before ``message``).
    ``message`` is what the learner reads.  A mistake is looked for in wrong
    answers; one with ``even_if_close`` also in answers whose values are right
    within tolerance (a masked weight of 1e-13, a float mask, too much memory,
    a changed input).
    """
    id: str
    message: str
    detect: Callable[[Attempt], Any]
    even_if_close: bool = False

    def shown_by(self, record):
        """The detail string, True, or False: does ``record`` show this mistake?"""
        if not self.even_if_close and record.error is None and _all_close(record.got, record.want):
            return False  # a right answer shows no mistake but the ones marked even_if_close
        try:
            return self.detect(record) or False
        except Exception:  # a symptom check that does not apply to this answer
            return False

    def text(self, record, found=True):
        detail = f"{found}: " if isinstance(found, str) else ""
        return f"{record.call}: {detail}{self.message}"


def modifies_input(example, instead):
    """The shared mistake "your function changed its input", with an exercise's own example and fix."""
    return Mistake("modifies_input",
                   f"your function changed its input array in place (for example {example}); inputs must "
                   f"never be modified. Compute into a new array instead: {instead}.",
                   lambda record: record.modified_input, even_if_close=True)


MASKED_WEIGHT_NOT_ZERO = (
    "a masked weight is small but not exactly 0: a moderate negative fill (such as -30 or -100) "
    "leaves exp(fill) > 0. Fill masked scores with `-np.inf`, or a number so negative that exp "
    "underflows to 0 (such as -1e9), or multiply the weights by the mask and renormalise.")


def masked_weight_not_zero(visible):
    """The shared mistake for every exercise with masks: a blocked weight is close to 0, not 0.

    ``visible(record)`` gives the boolean mask (True = may attend) broadcastable to the
    weights ``record.got[1]``, or None when the call had no mask.
    """
    def detect(record):
        mask = visible(record)
        return mask is not None and record.got is not None and not masked_weights_are_zero(record.got[1], mask)
    return Mistake("masked_weight_not_zero", MASKED_WEIGHT_NOT_ZERO, detect, even_if_close=True)


# Looked for after a catalogue's own mistakes, in every exercise.
SHARED_MISTAKES = (modifies_input("`x -= x.max()` or `Q /= np.sqrt(d)`", "`shifted = x - x.max()`"),)


# --------------------------------------------------------------------------- the reference
_GRADING = contextvars.ContextVar("grading", default=None)


@contextlib.contextmanager
def grading(exercise):
    """While the block runs, ``reference`` answers from ``exercise``'s course (the engine sets it)."""
    token = _GRADING.set(exercise)
    try:
        yield
    finally:
        _GRADING.reset(token)


def reference(catalogue):
    """The reference solution of the exercise whose catalogue is the module named ``catalogue``.

    A catalogue passes its ``__name__``.  The solution comes from the source
    notebook of the course being graded, or of the default course outside the
    engine (in a notebook kernel run by stock nbgrader).
    """
    return _exercise(lambda e: e.catalogue_name == catalogue, catalogue).source.reference


def softmax(x, axis=-1):
    """The softmax that mistake models use: the softmax exercise's reference solution, warnings silenced.

    (Mistake models feed it what a wrong formula produces, -inf rows included.)
    """
    with np.errstate(invalid="ignore", over="ignore"):
        return _exercise(lambda e: e.name == "softmax", "softmax").source.reference.softmax(
            np.asarray(x, dtype=float), axis=axis)


_WATCHERS = contextvars.ContextVar("watchers", default=())


@contextlib.contextmanager
def watching(callback):
    """While the block runs, ``callback(record)`` sees every Attempt that ``expect`` judges (for tests)."""
    token = _WATCHERS.set((*_WATCHERS.get(), callback))
    try:
        yield
    finally:
        _WATCHERS.reset(token)


def _exercise(wanted, what):
    from .course import default_course
    graded = _GRADING.get()
    for course in ([graded.course] if graded is not None else []) + [default_course()]:
        for exercise in course.exercises:
            if wanted(exercise):
                return exercise
    raise LookupError(f"no exercise for {what} in the course being graded")


def as_float_array(value):
    """A learner's answer as a plain float64 ndarray, or ValueError.

    Objects that only pretend to be arrays (overriding ``__eq__``, ``__bool__``,
    ``__array_function__`` ...) are converted element by element into a new
    ndarray of floats, so no comparison below ever calls the learner's code.
    """
    if isinstance(value, np.ndarray) and type(value) is np.ndarray and value.dtype.kind in "biuf":
        return value.astype(np.float64)
    if isinstance(value, (list, tuple, int, float, np.generic)) or (
            isinstance(value, np.ndarray) and value.dtype.kind in "biuf"):
        try:
            array = np.array(np.asarray(value, dtype=np.float64), dtype=np.float64, copy=True)
        except (TypeError, ValueError) as error:
            raise ValueError(f"the result is not a numeric array ({error})") from None
        return np.asarray(array).view(np.ndarray)
    raise ValueError(f"the result is a {type(value).__name__}, not a NumPy array")


def describe_exception(error):
    """One line for an exception raised by the learner's code (directly or through the engine)."""
    text = getattr(error, "learner_error", None) or f"{type(error).__name__}: {error}"
    text = (text.strip().splitlines() or [type(error).__name__])[0][:300]
    if text.startswith("NotImplementedError"):
        return NOT_IMPLEMENTED_LINE
    return text


def raised(call, error):
    """'softmax(x) raised ValueError: ...', or 'softmax(x): stopped: ...' for a timeout or a dead
    process (the engine marks those errors with ``STOPPED``; they are not the learner's exception)."""
    return f"{call}: {error}" if error.startswith(STOPPED) else f"{call} raised {error}"


def describe(name, args, kwargs, arg_names):
    """'softmax(x, axis=0) with x of shape (4, 3)': how a call reads in a message."""
    parts, shapes = [], []
    for arg_name, value in zip(arg_names, args):
        parts.append(arg_name)
        if isinstance(value, np.ndarray):
            shapes.append(f"{arg_name} of shape {value.shape}")
        else:
            parts[-1] = f"{arg_name}={value!r}"
    for key, value in kwargs.items():
        if isinstance(value, np.ndarray):  # an array's repr spans lines: name its shape instead
            parts.append(key)
            shapes.append(f"{key} of shape {value.shape}")
        else:
            parts.append(f"{key}={value!r}")
    text = f"{name}({', '.join(parts)})"
    return text + (" with " + " and ".join(shapes) if shapes else "")


def attempt(function, name, args, kwargs=None, *, want, arg_names, memory_bound=None):
    """Call ``function(*args, **kwargs)`` on copies of the inputs and record what happened.

    With ``memory_bound`` (bytes) the call is traced and ``peak_bytes`` recorded.
    """
    kwargs = dict(kwargs or {})
    copies = tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)
    record = Attempt(function=name, call=describe(name, args, kwargs, arg_names), args=args, kwargs=kwargs,
                     want=want, memory_bound=memory_bound)
    try:
        if memory_bound is None:
            result = function(*copies, **kwargs)
        else:
            result, record.peak_bytes = traced_call(function, *copies, **kwargs)
    except Exception as error:  # the learner's exception is a finding, not a crash
        record.error = describe_exception(error)
        return record
    record.modified_input = bool(getattr(function, "changed_input", False)) or any(  # the engine's proxy knows
        isinstance(a, np.ndarray) and not np.array_equal(a, c, equal_nan=True) for a, c in zip(args, copies))
    try:
        if isinstance(want, tuple):
            if not isinstance(result, (tuple, list)) or len(result) != len(want):
                raise ValueError(f"expected a tuple of {len(want)} arrays, got {type(result).__name__}")
            parts = tuple(result)
        else:
            parts = (result,)
        record.kinds = tuple(getattr(np.asarray(p) if isinstance(p, (list, tuple)) else p, "dtype",
                                     np.dtype(float)).kind for p in parts)
        converted = tuple(as_float_array(p) for p in parts)
        record.got = converted if isinstance(want, tuple) else converted[0]
    except ValueError as error:
        record.error = f"returned something unusable: {error}"
    return record


def traced_call(function, *args, **kwargs):
    """Call ``function`` and return ``(value, peak_bytes)``, the peak of memory it allocated.

    Through the grading engine the kernel measures it from outside, for the whole
    sandboxed process tree (``engine._Session.measured_call``); in a notebook
    kernel (plain nbgrader), tracemalloc measures it here.
    """
    if hasattr(function, "traced_call"):
        return function.traced_call(*args, **kwargs)
    import tracemalloc
    tracemalloc.start()
    try:
        value = function(*args, **kwargs)
        return value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def close(got, want):
    """Same shape and values equal within tolerance; NaN never equals anything."""
    got, want = np.asarray(got), np.asarray(want)
    return got.shape == want.shape and bool(np.all(np.isclose(got, want, rtol=RTOL, atol=ATOL)))


# --------------------------------------------------------------------------- shared property checks
def rows_sum_to_one(weights, axis=-1):
    """Attention weights: non-negative, and each slice along ``axis`` sums to 1."""
    weights = np.asarray(weights)
    return bool(np.all(weights >= 0)) and bool(np.allclose(weights.sum(axis=axis), 1.0))


def masked_weights_are_zero(weights, visible):
    """Every weight where ``visible`` (broadcast to the weights) is False is exactly 0."""
    hidden = ~np.broadcast_to(np.asarray(visible, dtype=bool), np.shape(weights))
    return not np.any(np.asarray(weights)[hidden] != 0.0)


def weights_sum_to_one(what="row", axis=-1, index=1):
    """An ``extra_check`` for ``expect``: output ``index`` (the weights) is non-negative and each
    ``what`` ("row" or "column", along ``axis``) sums to 1."""
    def check(record):
        weights = record.got[index] if isinstance(record.got, tuple) else record.got
        if not rows_sum_to_one(weights, axis):
            return f"each {what} of the weights must be non-negative and sum to 1"
        return None
    return check


def _all_close(got, want):
    if isinstance(want, tuple):
        return got is not None and all(close(g, w) for g, w in zip(got, want))
    return got is not None and close(got, want)


def diagnose(record, mistakes):
    """The message for a wrong answer: the first catalogued mistake that matches, else a plain description."""
    for mistake in mistakes:
        found = mistake.shown_by(record)
        if found:
            return mistake.text(record, found)
    if record.error is not None:
        return raised(record.call, record.error)
    got = record.got if isinstance(record.got, tuple) else (record.got,)
    want = record.want if isinstance(record.want, tuple) else (record.want,)
    for index, (g, w) in enumerate(zip(got, want)):
        label = f"output {index} " if len(want) > 1 else ""
        if g.shape != np.shape(w):
            return f"{record.call}: {label}has shape {g.shape}, expected {np.shape(w)}"
        if not np.all(np.isfinite(g)) and np.all(np.isfinite(w)):
            return f"{record.call}: {label}contains NaN or inf"
        if not close(g, w):
            error = np.nanmax(np.abs(g - w))
            return f"{record.call}: {label}has wrong values (largest difference {error:.3g} from the expected result)"
    return f"{record.call}: wrong result"


def expect(record, mistakes, *, extra_check=None):
    """Raise AssertionError naming the mistake unless ``record`` holds the right answer.

    A wrong answer is named by the first mistake it shows; a right one may still
    show a mistake marked ``even_if_close``.  ``extra_check(record)`` may return
    a message for a property that no catalogued mistake covers.
    """
    mistakes = (*mistakes, *SHARED_MISTAKES)
    for watch in _WATCHERS.get():
        watch(record)
    if record.error is not None or not _all_close(record.got, record.want):
        raise AssertionError(diagnose(record, mistakes))
    for mistake in mistakes:
        found = mistake.even_if_close and mistake.shown_by(record)
        if found:
            raise AssertionError(mistake.text(record, found))
    problem = extra_check(record) if extra_check else None
    if problem:
        raise AssertionError(f"{record.call}: {problem}")
