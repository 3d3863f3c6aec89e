"""The data model of a check: one call of the learner's function (``Attempt``), a catalogued
mistake (``Mistake``), the contract's batch axes (``Batched``), and how an answer is compared
(``close``, with the tolerance of a correct float32 implementation)."""
import dataclasses
from typing import Any, Callable, Optional

import numpy as np

from ..i18n import _
from ..worker import UNUSABLE_PART
from .messages import NOT_A_TUPLE, NOT_AN_ARRAY, NOT_NUMERIC, PART_NOT_AN_ARRAY, UNUSABLE, describe, describe_exception

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
    returned: Any = None            # what came back as float arrays, even when it breaks the contract's structure
    batched: Any = None             # a Batched: the contract allows leading batch axes (for the rank probe)
    callee: Any = dataclasses.field(default=None, repr=False, compare=False)   # the learner's function
    probed: dict = dataclasses.field(default_factory=dict, repr=False, compare=False)  # rank probe, computed once
    arg_names: tuple = ()           # the names of the positional arguments, for a message about a related call
    adapted: str = ""               # how the call was adapted to what the learner's code supports ("" for none)
    decimals: Optional[int] = None  # the answer is rounded to so many decimals: formulas are rounded alike
    parts: tuple = ()               # what a message calls each part of a tuple answer (marked words; default:
                                    # "the output" and "the weights" for a pair, else "output 0", "output 1", ...)


@dataclasses.dataclass(frozen=True)
class Batched:
    """How the contract treats leading batch axes, for the rank probe.

    ``cores[i]`` is the number of trailing axes of positional argument ``i`` that
    are not batch axes (None: the argument is never batched, e.g. a weight
    matrix or an int); ``reference(*args)`` is the right answer for any rank.
    With ``any_rank`` the contract takes any number of leading batch axes;
    without, it takes none, and the probe only tells code written for batched
    tensors (``(batch, n, d)``) from code that is wrong whatever the rank.
    """
    cores: tuple
    reference: Callable
    any_rank: bool = True

    @classmethod
    def unbatched(cls, cores, reference):
        """A contract without batch axes; the probe's batched answer is the reference per batch entry."""
        def per_entry(*args, **kwargs):
            lead = next(a.ndim - c for a, c in zip(args, cores) if c is not None and isinstance(a, np.ndarray))
            if lead == 0:
                return reference(*args, **kwargs)
            batch = next(a.shape[:lead] for a, c in zip(args, cores) if c is not None and isinstance(a, np.ndarray))
            entries = [reference(*(a[index] if c is not None and isinstance(a, np.ndarray) else a
                                   for a, c in zip(args, cores)), **kwargs)
                       for index in np.ndindex(*batch)]

            def stacked(parts):   # (*batch, *entry shape)
                return np.stack(parts).reshape(*batch, *np.shape(parts[0]))
            if isinstance(entries[0], tuple):
                return tuple(stacked([e[i] for e in entries]) for i in range(len(entries[0])))
            return stacked(entries)
        return cls(tuple(cores), per_entry, any_rank=False)


@dataclasses.dataclass(frozen=True)
class Mistake:
    """One entry of a misconception catalogue.

    ``detect(attempt)`` says whether an answer shows this mistake's symptom (it
    may return a string instead of True: a detail put before ``message``).
    ``message`` is what the learner reads, in English (the msgid of its
    translations, see ``i18n``; ``translated()`` in the grading's language).
    A mistake is looked for in wrong answers; one with ``even_if_close`` also
    in answers whose values are right within tolerance (a masked weight of
    1e-13, a float mask, too much memory, a changed input).  A message with
    values (code snippets, numbers) is made by ``Mistake.formatted``: its
    template is translated, then filled in.
    """
    id: str
    message: str
    detect: Callable[[Attempt], Any]
    even_if_close: bool = False
    # A mistake with a parameter (``shared.fitted``): its detail names the value fitted, and every
    # call of a test must give the same value for the mistake to be named.
    same_detail: bool = False
    # A mistake seen only where exp overflows (NaN or inf where the right answer is finite): a call whose
    # answer is finite neither shows nor refutes it, and a call it makes NaN can show no other mistake.
    overflow: bool = False
    template: Optional[str] = dataclasses.field(default=None, repr=False)   # msgid of a message with values
    fields: tuple = dataclasses.field(default=(), repr=False)              # (name, value) pairs it is filled with
    # Two or three graded hints, shown one at a time by ``check --hint`` (``autograder.hints``) before
    # the message: where to look, then what to compare; never code.  Plain strings, not ``N_``: babel
    # cannot extract strings nested in a call, so ``i18n.extract`` collects them from the catalogues.
    hints: tuple = dataclasses.field(default=(), repr=False)

    def __post_init__(self):
        if getattr(self.detect, "same_detail", False):    # a fitted formula (``formulas.Fit``)
            object.__setattr__(self, "same_detail", True)

    def hides(self, record):
        """Is ``record``'s answer NaN or inf somewhere (the only trace this overflow mistake leaves)?"""
        got = record.got if isinstance(record.got, tuple) else (record.got,)
        return any(not isinstance(g, Unreturned) and not np.all(np.isfinite(g)) for g in got if g is not None)

    @classmethod
    def formatted(cls, id, template, detect, even_if_close=False, *, hints=(), **fields):
        """A mistake whose message is ``template`` (a marked format string) filled with ``fields``."""
        return cls(id, template.format(**fields), detect, even_if_close, template=template,
                   fields=tuple(sorted(fields.items())), hints=tuple(hints))

    def translated(self):
        """The message in the grading's language (``message`` itself in English)."""
        if self.template is None:
            return _(self.message)
        return _(self.template).format(**{name: _(value) for name, value in self.fields})

    def translated_hints(self):
        """The hints in the grading's language."""
        return tuple(_(hint) for hint in self.hints)

    def shown_by(self, record):
        """The detail string, True, or False: does ``record`` show this mistake?"""
        if not self.even_if_close and record.error is None and all_close(record.got, record.want):
            return False  # a right answer shows no mistake but the ones marked even_if_close
        try:
            with np.errstate(all="ignore"):   # mistaken formulas may divide 0 by 0: that is their point
                return self.detect(record) or False
        except Exception:  # a symptom check that does not apply to this answer
            return False

    def text(self, record, found=True):
        """The diagnosis of ``record``: its call, the detector's detail if any, the message."""
        detail = f"{found}: " if isinstance(found, str) else ""
        return f"{record.call}: {detail}{self.translated()}"




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
            raise ValueError(NOT_NUMERIC.format(error=error)) from None
        return np.asarray(array).view(np.ndarray)
    raise ValueError(NOT_AN_ARRAY.format(type=type(value).__name__))


def attempt(function, name, args, kwargs=None, *, want, arg_names, memory_bound=None, batched=None):
    """Call ``function(*args, **kwargs)`` on copies of the inputs and record what happened.

    With ``memory_bound`` (bytes) the call is traced and ``peak_bytes`` recorded.
    With ``batched`` (a ``Batched``) a wrong shape or a crash is probed on the
    other numbers of batch axes the contract allows.
    """
    kwargs = dict(kwargs or {})
    copies = tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)
    record = Attempt(function=name, call=describe(name, args, kwargs, arg_names), args=args, kwargs=kwargs,
                     want=want, memory_bound=memory_bound, batched=batched, callee=function,
                     arg_names=tuple(arg_names))
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
    record.returned = _as_floats(result)
    try:
        if isinstance(want, tuple):
            if not isinstance(result, (tuple, list)) or len(result) != len(want):
                raise ValueError(NOT_A_TUPLE.format(count=len(want), type=type(result).__name__))
            parts = tuple(result)
        else:
            parts = (result,)
        for index, part in enumerate(parts, 1):
            if isinstance(part, str) and part == UNUSABLE_PART:   # the worker's stand-in (``worker._as_plain_part``)
                raise ValueError(PART_NOT_AN_ARRAY.format(index=index))
        record.kinds = tuple(getattr(np.asarray(p) if isinstance(p, (list, tuple)) else p, "dtype",
                                     np.dtype(float)).kind for p in parts)
        converted = tuple(as_float_array(p) for p in parts)
        record.got = converted if isinstance(want, tuple) else converted[0]
    except ValueError as error:
        record.error = UNUSABLE.format(problem=error)
    return record


def _as_floats(result):
    """A returned value as float arrays (a tuple stays a tuple), None where that is impossible.

    In a tuple that holds an array, a part that is no array (a cache of the backward pass, a list of
    tuples) becomes an empty ``Unreturned``: the form is still seen (``(h, cache)`` for ``h``)."""
    if isinstance(result, (tuple, list)) and result and any(isinstance(part, np.ndarray) for part in result):
        return tuple(_as_float_part(part) for part in result)
    try:
        return as_float_array(result)
    except (ValueError, TypeError):
        return None


def _as_float_part(part):
    try:
        return as_float_array(part)
    except (ValueError, TypeError):
        return np.empty((0,)).view(Unreturned)


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


class Unreturned(np.ndarray):
    """A part of the contract's answer that the learner's code does not return (a pair asked for, one
    array returned): when a call is adapted to what the code returns (``form.adapted``), it stands
    in for the missing part.  ``close`` never takes it for equal to anything (a detector that looks
    only at that part finds nothing), and ``parts_match`` leaves it out (a formula is compared with
    the parts that were returned)."""


def unreturned(like):
    """An ``Unreturned`` of ``like``'s shape."""
    return np.full(np.shape(like), np.nan).view(Unreturned)


def close(got, want, equal_nan=False):
    """Same shape and values equal within tolerance; NaN (and an ``Unreturned`` part) never equals
    anything, unless ``equal_nan`` (a mistaken formula that predicts the NaN it reproduces)."""
    if isinstance(got, Unreturned) or isinstance(want, Unreturned):
        return False
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return False
    # the absolute tolerance grows with the answer's scale: a correct float32 computation of values of
    # size 10 is off by about 1e-6 everywhere, also on the entries that happen to be near 0
    finite = np.abs(want[np.isfinite(want)]) if want.size else want
    atol = ATOL * max(1.0, float(finite.max()) if finite.size else 1.0)
    return bool(np.all(np.isclose(got, want, rtol=RTOL, atol=atol, equal_nan=equal_nan)))


def all_close(got, want):
    """The answer is right: every part close, an ``Unreturned`` part left out (see ``parts_match``)."""
    return got is not None and parts_match(got, want)



@dataclasses.dataclass(frozen=True)
class Stage:
    """A probe that isolates one stage of a composite function, for a wrong answer that no mistake
    names: ``probe(record)`` gives the (args, kwargs) of another call of the learner's function, on
    inputs that switch the other stages off (one head, a zero feed-forward network, all scores equal,
    an empty cache); ``right`` and ``wrong`` are what the learner's answer there tells (marked
    messages; None: that outcome tells nothing, and the next stage is probed).  ``reference`` gives the
    right answer to the probe in the form the record compares (default: the contract's function)."""
    function: str
    probe: Callable
    right: Optional[str] = None
    wrong: Optional[str] = None
    reference: Optional[Callable] = None


def parts_match(got, want, equal_nan=False):
    """Every part of ``got`` that the learner's code returned is ``close`` to its part of ``want``
    (a tuple or one array), and at least one was returned."""
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    returned = [(g, w) for g, w in zip(got, want) if not isinstance(g, Unreturned)]
    return len(got) == len(want) and bool(returned) and all(close(g, w, equal_nan) for g, w in returned)



def probed_once(record, key, compute, unknown=False):
    """What ``compute(record)`` finds by calling the learner's function again (a verification: the same
    call with ``axis`` given, on square inputs, on one slice), computed once and kept in ``record.probed``,
    which the record's copies share; ``unknown`` where it cannot be computed (a watcher's copy has no
    callee: it knows only what the grading found)."""
    if key not in record.probed:
        if record.callee is None:
            return unknown
        record.probed[key] = compute(record)
    return record.probed[key]


def learner_function(record, name):
    """The learner's function ``name`` beside the one ``record`` called (the engine's proxy for it,
    or the function of the same name in a notebook kernel), or None."""
    callee = getattr(record.callee, "__wrapped__", record.callee)   # a check's wrapper around it
    if callee is None:
        return None
    if hasattr(callee, "sibling"):
        return callee.sibling(name)
    return getattr(callee, "__globals__", {}).get(name)
