"""What hidden tests use to compare a learner's answer and name the mistake.

A hidden test calls the learner's function through ``attempt`` (which records
the inputs, the answer or the exception, and the reference answer), then
``expect`` compares.  When the answer is wrong, ``expect`` walks the exercise's
misconception catalogue (a list of ``Mistake``) and raises an AssertionError
whose message names the first mistake whose symptom matches, in words a
learner understands.  The same code runs inside a notebook kernel (plain
``nbgrader autograde``) and in the grading engine's own process, where the
learner's function is a proxy that returns plain NumPy arrays.
"""
import dataclasses
from typing import Any, Callable, Optional

import numpy as np

# Loose enough for a correct float32 implementation, far tighter than any mistake.
RTOL, ATOL = 1e-4, 1e-6


@dataclasses.dataclass(frozen=True)
class Mistake:
    """One entry of a misconception catalogue.

    ``detect(attempt)`` says whether a wrong answer shows this mistake's symptom;
    ``message`` is what the learner reads.
    """
    id: str
    message: str
    detect: Callable[["Attempt"], bool]


@dataclasses.dataclass
class Attempt:
    """One call of a learner's function, with everything needed to judge it."""
    call: str                       # how the call reads, e.g. "softmax(x, axis=0) with x of shape (4, 3)"
    args: tuple
    kwargs: dict
    want: Any                       # the reference answer
    got: Any = None                 # the learner's answer, as float arrays (None if it raised)
    error: Optional[str] = None     # "ValueError: ..." if it raised
    modified_input: bool = False    # True if it changed one of its input arrays


def softmax(x, axis=-1):
    """The softmax that mistake models use: exercise 01's reference solution, warnings silenced.

    (Mistake models feed it what a wrong formula produces, -inf rows included.)
    """
    from .notebooks import reference
    with np.errstate(invalid="ignore", over="ignore"):
        return reference("01_softmax").softmax(np.asarray(x, dtype=float), axis=axis)


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
        return "NotImplementedError: not implemented yet (replace `raise NotImplementedError()` with your code)"
    return text


def raised(call, error):
    """'softmax(x) raised ValueError: ...', or 'softmax(x): stopped: ...' for a timeout or a dead
    process (the engine marks those errors with "stopped:"; they are not the learner's exception)."""
    return f"{call}: {error}" if error.startswith("stopped:") else f"{call} raised {error}"


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


def attempt(function, name, args, kwargs=None, *, want, arg_names):
    """Call ``function(*args, **kwargs)`` on copies of the inputs and record what happened."""
    kwargs = dict(kwargs or {})
    copies = tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)
    record = Attempt(call=describe(name, args, kwargs, arg_names), args=args, kwargs=kwargs, want=want)
    try:
        result = function(*copies, **kwargs)
    except Exception as error:  # the learner's exception is a finding, not a crash
        record.error = describe_exception(error)
        return record
    record.modified_input = any(
        isinstance(a, np.ndarray) and not np.array_equal(a, c, equal_nan=True) for a, c in zip(args, copies))
    try:
        if isinstance(want, tuple):
            if not isinstance(result, (tuple, list)) or len(result) != len(want):
                raise ValueError(f"expected a tuple of {len(want)} arrays, got {type(result).__name__}")
            record.got = tuple(as_float_array(r) for r in result)
        else:
            record.got = as_float_array(result)
    except ValueError as error:
        record.error = f"returned something unusable: {error}"
    return record


def traced_call(function, *args, **kwargs):
    """Call ``function`` and return ``(value, peak_bytes)``, the peak of memory it allocated.

    Through the grading engine the peak is measured by tracemalloc inside the
    learner's process (NumPy reports its arrays to tracemalloc); in a kernel, here.
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


def _all_close(got, want):
    if isinstance(want, tuple):
        return got is not None and all(close(g, w) for g, w in zip(got, want))
    return got is not None and close(got, want)


def diagnose(record, mistakes):
    """The message for a wrong answer: the first catalogued mistake that matches, else a plain description."""
    for mistake in mistakes:
        try:
            if mistake.detect(record):
                return f"{record.call}: {mistake.message}"
        except Exception:  # a symptom check that does not apply to this answer
            continue
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


def message_of(mistakes, mistake_id):
    """The catalogue message of one mistake, for checks that test a property directly."""
    return next(m.message for m in mistakes if m.id == mistake_id)


def expect(record, mistakes, *, extra_check=None):
    """Raise AssertionError naming the mistake unless ``record`` holds the right answer.

    ``extra_check(record)`` may return a message for a property that the
    value comparison does not cover (for example "masked weights exactly 0").
    """
    if record.error is None and record.modified_input:
        for mistake in mistakes:
            if mistake.id == "modifies_input":
                raise AssertionError(f"{record.call}: {mistake.message}")
        raise AssertionError(f"{record.call}: the function changed its input array in place")
    if record.error is not None or not _all_close(record.got, record.want):
        raise AssertionError(diagnose(record, mistakes))
    problem = extra_check(record) if extra_check else None
    if problem:
        raise AssertionError(f"{record.call}: {problem}")
