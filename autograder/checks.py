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
``rng`` (the generator of a check's hidden inputs), ``Batched`` (the contract's
leading batch axes, for the rank probe), the shared mistakes
(``modifies_input``, ``masked_weight_not_zero``, ``additive_mask``,
``nan_where_finite`` and the contract-shape mistakes of ``CONTRACT_MISTAKES``)
and the shared property checks (``rows_sum_to_one``, ``masked_weights_are_zero``,
``close``).

Hidden inputs.  ``rng(label)`` seeds a generator from the *draw* the engine
grades with (``grading(exercise, draw=...)``): the class run draws from a
secret the instructor's course holds (``course_secret.class_draw``), so that nobody can
predict them and a regrade with the same secret gives the same inputs and the
same scores; each self-check makes a fresh draw (``self_check_draw``).

Every mistake a test can show.  Inside ``collecting()`` (the engine runs every
test cell in it) ``expect`` does not stop the test at the first wrong call: it
records the diagnosis, lets the check go on with the reference answer in place
of the learner's, and the engine reports the distinct diagnoses together
(``summary``).
"""
import contextlib
import contextvars
import dataclasses
import functools
import hashlib
import re
import secrets
from typing import Any, Callable, Optional

import numpy as np

from .i18n import ENGLISH, N_, _, current, ngettext, pgettext
from .results import NOT_IMPLEMENTED, NOT_IMPLEMENTED_LINE, NOT_IMPLEMENTED_TEMPLATE, STOPPED

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
            entries = [reference(*(a[index] if c is not None and isinstance(a, np.ndarray) else a
                                   for a, c in zip(args, cores)), **kwargs)
                       for index in np.ndindex(*next(a.shape[:lead] for a, c in zip(args, cores)
                                                     if c is not None and isinstance(a, np.ndarray)))]
            if isinstance(entries[0], tuple):
                return tuple(np.stack([e[i] for e in entries]) for i in range(len(entries[0])))
            return np.stack(entries)
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
    template: Optional[str] = dataclasses.field(default=None, repr=False)   # msgid of a message with values
    fields: tuple = dataclasses.field(default=(), repr=False)              # (name, value) pairs it is filled with

    @classmethod
    def formatted(cls, id, template, detect, even_if_close=False, **fields):
        """A mistake whose message is ``template`` (a marked format string) filled with ``fields``."""
        return cls(id, template.format(**fields), detect, even_if_close, template, tuple(sorted(fields.items())))

    def translated(self):
        """The message in the grading's language (``message`` itself in English)."""
        if self.template is None:
            return _(self.message)
        return _(self.template).format(**{name: _(value) for name, value in self.fields})

    def shown_by(self, record):
        """The detail string, True, or False: does ``record`` show this mistake?"""
        if not self.even_if_close and record.error is None and _all_close(record.got, record.want):
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


def modifies_input(example, instead):
    """The shared mistake "your function changed its input", with an exercise's own example and fix
    (code; a marked message, ``N_``, when they hold words)."""
    return Mistake.formatted(
        "modifies_input",
        N_("your function changed its input array in place (for example {example}); inputs must "
           "never be modified. Compute into a new array instead: {instead}."),
        lambda record: record.modified_input, even_if_close=True, example=example, instead=instead)


MASKED_WEIGHT_NOT_ZERO = N_(
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


def additive_mask(function="causal_mask"):
    """The shared mistake "the mask is an additive float mask (0 and -1e9 or -inf)" for a function
    whose contract returns a boolean mask."""
    def detect(record):
        got = record.got
        if record.function != function or got is None or np.asarray(record.want).dtype != bool:
            return False
        blocked = got < 0
        nothing_blocked = np.all(got == 0) and np.all(record.want)   # causal_mask(1): an additive mask is all 0
        if not (np.all((got == 0) | (got <= -1e4)) and (np.any(blocked) or nothing_blocked)):
            return False
        if not np.any(blocked):
            return _("you returned an additive float mask (0 where the query may attend)")
        fill = "-inf" if np.all(np.isneginf(got[blocked])) else f"{got[blocked].max():g}"
        return _("you returned an additive float mask, 0 where the query may attend and {fill} where it "
                 "may not").format(fill=fill)
    return Mistake("additive_mask",
                   "that is the form some libraries ADD to the scores. The contract asks for a boolean mask, "
                   "True where the query may attend (j <= i for a causal mask): "
                   "`np.tril(np.ones((n, n), dtype=bool))`, applied with `np.where(mask, scores, -np.inf)`.",
                   detect)


def nan_where_finite(id, message, *, output=None):
    """A shared symptom under an exercise's own id and message: NaN or inf where the right answer
    is finite (an ``np.exp`` or a hand-written tanh that overflows on large inputs).  ``output``
    picks one output of a tuple (None: any)."""
    def detect(record):
        if record.got is None:
            return False
        got = record.got if isinstance(record.got, tuple) else (record.got,)
        want = record.want if isinstance(record.want, tuple) else (record.want,)
        pairs = list(zip(got, want)) if output is None else [(got[output], want[output])]
        return any(np.shape(g) == np.shape(w) and np.any(~np.isfinite(g) & np.isfinite(np.asarray(w, dtype=float)))
                   for g, w in pairs)
    return Mistake(id, message, detect)


# --------------------------------------------------------------------------- the reference
_GRADING = contextvars.ContextVar("grading", default=None)


_DRAW = contextvars.ContextVar("draw", default=None)


@contextlib.contextmanager
def grading(exercise, draw=None):
    """While the block runs, ``reference`` answers from ``exercise``'s course and ``rng`` draws the
    hidden inputs of ``draw`` (the engine sets both; see ``course_secret.class_draw`` and ``self_check_draw``)."""
    token, draw_token = _GRADING.set(exercise), _DRAW.set(draw)
    try:
        yield
    finally:
        _DRAW.reset(draw_token)
        _GRADING.reset(token)


# --------------------------------------------------------------------------- hidden inputs
# Outside the engine (a notebook kernel, stock nbgrader): fresh inputs.  Never the course's secret: there
# the learner's code shares the process (and its environment) with the tests.
_LOCAL_DRAW = f"local:{secrets.token_hex(16)}"


def self_check_draw():
    """A learner's self-check: inputs drawn afresh for every run, never the class run's."""
    return f"self-check:{secrets.token_hex(16)}"


def rng(label):
    """The generator of a check's hidden inputs: ``label`` names the check (e.g. "softmax/random").

    Seeded from the draw being graded and the exercise, so that values cannot be predicted from the
    published catalogue and differ between a self-check and the class run.  Shapes stay the
    catalogue's choice; only the values are drawn.
    """
    exercise = _GRADING.get()
    draw = _DRAW.get() or _LOCAL_DRAW
    assignment = exercise.assignment if exercise is not None else "-"
    digest = hashlib.sha256(f"{draw}\0{assignment}\0{label}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


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
            raise ValueError(NOT_NUMERIC.format(error=error)) from None
        return np.asarray(array).view(np.ndarray)
    raise ValueError(NOT_AN_ARRAY.format(type=type(value).__name__))


def describe_exception(error):
    """One line for an exception raised by the learner's code (directly or through the engine)."""
    text = getattr(error, "learner_error", None) or f"{type(error).__name__}: {error}"
    text = (text.strip().splitlines() or [type(error).__name__])[0][:500]
    if text.startswith("NotImplementedError"):
        return NOT_IMPLEMENTED_LINE
    return text


# How the worker says where in the learner's code an exception was raised (see worker.py).
WHERE = re.compile(r" \(in your function (?P<function>[\w<>]+)(?:, called from (?P<callers>[\w<>, ]+))?"
                   r"(?:: `(?P<line>.*)`)?\)$")


def where(error):
    """(function, callers, line) of the learner's code that raised ``error`` (a one-line description),
    or (None, (), None) when the description does not say."""
    found = WHERE.search(error or "")
    if not found:
        return None, (), None
    callers = tuple(c.strip() for c in (found["callers"] or "").split(",") if c.strip())
    return found["function"], callers, found["line"]


def raised(call, error):
    """'softmax(x) raised ValueError: ...', or 'softmax(x): stopped: ...' for a timeout or a dead
    process (the engine marks those errors with ``STOPPED``; they are not the learner's exception).

    When the exception came from another of the learner's functions (a helper the
    called one uses), the message names that function: the bug is there.
    """
    if error.startswith(STOPPED + " "):
        return _("{call}: stopped: {reason}").format(call=call, reason=error[len(STOPPED) + 1:])
    if error.startswith(STOPPED):
        return f"{call}: {error}"
    function, callers, line = where(error)
    bare = learner_error(WHERE.sub("", error))
    called = call.split("(", 1)[0]
    if function and function != called and function != "<module>":
        if line:
            return _("{call}: your function {function} (called by {called}) raised {error} at `{line}`").format(
                call=call, function=function, called=called, error=bare, line=line)
        return _("{call}: your function {function} (called by {called}) raised {error}").format(
            call=call, function=function, called=called, error=bare)
    if line:
        return _("{call} raised {error} at `{line}`").format(call=call, error=bare, line=line)
    return _("{call} raised {error}").format(call=call, error=bare)


# What the grader itself says about a call or a cell, kept in English where the checks read it
# (``Attempt.error``, a cell's error line: the worker's, the engine's) and written in the grading's
# language by ``learner_error``.  The learner's own exception text, and Python's, stay as they are.
UNUSABLE = N_("returned something unusable: {problem}")
NOT_A_TUPLE = N_("expected a tuple of {count} arrays, got {type}")
NOT_AN_ARRAY = N_("the result is a {type}, not a NumPy array")
NOT_NUMERIC = N_("the result is not a numeric array ({error})")
_GRADER_ERRORS = (
    UNUSABLE, NOT_A_TUPLE, NOT_AN_ARRAY, NOT_NUMERIC,
    # worker.py's (it runs in the sandbox, without this package)
    N_("WireError: the function returned None (is a `return` missing?)"),
    N_("WireError: the function returned {type}, not a numeric array"),
    N_("WireError: an array of dtype {dtype} is not numeric"),
    N_("WireError: cannot send an object of type {type}"),
    N_("could not send the result back: {problem}"),
    N_("cannot send an object of type {type}"),
    N_("an array of dtype {dtype} is not numeric"),
)


@functools.lru_cache(maxsize=None)
def _pattern(template):
    """A regex matching what ``template`` gives once filled in, one named group per field."""
    pieces = re.split(r"\{(\w+)\}", template)
    return re.compile("".join(re.escape(piece) if i % 2 == 0 else f"(?P<{piece}>.*?)"
                              for i, piece in enumerate(pieces)) + r"\Z", re.S)


def _where_text(function, callers, line):
    """The worker's ' (in your function f, called from g: `line`)', in the grading's language."""
    values = {"function": function, "callers": ", ".join(callers), "line": line}
    if callers:
        template = (N_(" (in your function {function}, called from {callers}: `{line}`)") if line
                    else N_(" (in your function {function}, called from {callers})"))
    else:
        template = N_(" (in your function {function}: `{line}`)") if line else N_(" (in your function {function})")
    return _(template).format(**values)


def _grader_words(text):
    """``text`` in the grading's language when it is one of ``_GRADER_ERRORS`` (or another marked
    message), else unchanged."""
    for template in _GRADER_ERRORS:
        match = _pattern(template).match(text)
        if match:
            values = {name: (_grader_words(value) if name == "problem" else value)
                      for name, value in match.groupdict().items()}
            return _(template).format(**values)
    return _(text)


def learner_error(error):
    """A one-line error description as the learner reads it: the grader's own words in the grading's
    language (``NOT_IMPLEMENTED_LINE``, "returned something unusable", the worker's); the learner's
    exception text and Python's unchanged."""
    if not error or current() == ENGLISH:
        return error
    found = WHERE.search(error)
    text = error[:found.start()] if found else error
    if text == NOT_IMPLEMENTED_LINE:
        text = _(NOT_IMPLEMENTED_TEMPLATE).format(not_implemented=_(NOT_IMPLEMENTED))
    else:
        text = _grader_words(text)
    if found:
        text += _where_text(*where(error))
    return text


def describe(name, args, kwargs, arg_names):
    """'softmax(x, axis=0) with x of shape (4, 3)': how a call reads in a message."""
    parts, shapes = [], []
    for arg_name, value in zip(arg_names, args):
        parts.append(arg_name)
        if isinstance(value, np.ndarray):
            shapes.append(_("{name} of shape {shape}").format(name=arg_name, shape=value.shape))
        else:
            parts[-1] = f"{arg_name}={value!r}"
    for key, value in kwargs.items():
        if isinstance(value, np.ndarray):  # an array's repr spans lines: name its shape instead
            parts.append(key)
            shapes.append(_("{name} of shape {shape}").format(name=key, shape=value.shape))
        else:
            parts.append(f"{key}={value!r}")
    text = f"{name}({', '.join(parts)})"
    if not shapes:
        return text
    # Translators: joins "X of shape (4, 3)" and "W of shape (3, 5)" in a call's description.
    return _("{call} with {shapes}").format(call=text, shapes=pgettext("shapes", " and ").join(shapes))


def attempt(function, name, args, kwargs=None, *, want, arg_names, memory_bound=None, batched=None):
    """Call ``function(*args, **kwargs)`` on copies of the inputs and record what happened.

    With ``memory_bound`` (bytes) the call is traced and ``peak_bytes`` recorded.
    With ``batched`` (a ``Batched``) a wrong shape or a crash is probed on the
    other numbers of batch axes the contract allows.
    """
    kwargs = dict(kwargs or {})
    copies = tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)
    record = Attempt(function=name, call=describe(name, args, kwargs, arg_names), args=args, kwargs=kwargs,
                     want=want, memory_bound=memory_bound, batched=batched, callee=function)
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
        record.kinds = tuple(getattr(np.asarray(p) if isinstance(p, (list, tuple)) else p, "dtype",
                                     np.dtype(float)).kind for p in parts)
        converted = tuple(as_float_array(p) for p in parts)
        record.got = converted if isinstance(want, tuple) else converted[0]
    except ValueError as error:
        record.error = UNUSABLE.format(problem=error)
    return record


def _as_floats(result):
    """A returned value as float arrays (a tuple stays a tuple), None where that is impossible."""
    try:
        if isinstance(result, (tuple, list)) and not isinstance(result, np.ndarray) and result and all(
                isinstance(part, np.ndarray) for part in result):
            return tuple(as_float_array(part) for part in result)
        return as_float_array(result)
    except (ValueError, TypeError):
        return None


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


def weights_sum_to_one(what=N_("row"), axis=-1, index=1):
    """An ``extra_check`` for ``expect``: output ``index`` (the weights) is non-negative and each
    ``what`` (a marked word, "row" or "column", along ``axis``) sums to 1."""
    def check(record):
        weights = record.got[index] if isinstance(record.got, tuple) else record.got
        if not rows_sum_to_one(weights, axis):
            return _("each {what} of the weights must be non-negative and sum to 1").format(what=_(what))
        return None
    return check


NO_MAX_SUBTRACTION = N_(
    "overflow: `np.exp` of a large score is `inf`, and `inf / inf` is `nan`: your softmax does not subtract "
    "the maximum. Subtract each query's largest score first (`scores - scores.max(axis=..., keepdims=True)` "
    "along the keys' axis; softmax does not change when the same number is subtracted from every score), "
    "or use the provided `softmax`.")


def no_max_subtraction():
    """The shared mistake of the attention exercises: a softmax without the max overflows on large scores."""
    return nan_where_finite("no_max_subtraction", NO_MAX_SUBTRACTION)


LARGE_SCORE, LARGE_GAP = 1000.0, 40.0


def large_factor(scores, axis=-1):
    """The factor f (possibly negative) for large-magnitude inputs in the exercises whose contract
    involves exp: the largest entry of ``f * scores`` is at least 1000 (far beyond exp's range, which
    ends near 709.8), and along ``axis`` the two largest entries of every slice differ by at least 40,
    so that the right weights are one-hot within any tolerance, even computed in float32."""
    scores = np.asarray(scores, dtype=float)
    sign = 1.0 if scores.max() > 0 else -1.0
    signed = np.moveaxis(sign * scores, axis, -1)
    top = np.sort(signed, axis=-1)
    gap = np.min(top[..., -1] - top[..., -2]) if signed.shape[-1] > 1 else np.inf
    return sign * max(LARGE_SCORE / signed.max(), LARGE_GAP / max(gap, 1e-9))


# --------------------------------------------------------------------------- contract-shape mistakes
def _pair(record):
    """(want as a tuple, returned as a tuple or None)."""
    want = record.want if isinstance(record.want, tuple) else (record.want,)
    returned = record.returned
    return want, (returned if isinstance(returned, tuple) else None)


def _returned_single(record):
    want, _returned = _pair(record)
    got = record.returned
    if not isinstance(record.want, tuple) or not isinstance(got, np.ndarray):
        return False
    names = ((_("the output"), _("the weights")) if len(want) == 2
             else tuple(_("output {index}").format(index=i) for i in range(len(want))))
    for name, part in zip(names, want):
        if close(got, part):
            return _("your function returned only {name}, a single array of shape {shape}").format(
                name=name, shape=got.shape)
    return _("your function returned a single array of shape {shape}").format(shape=got.shape)


def _returned_tuple(record):
    got = record.returned
    if isinstance(record.want, tuple) or not isinstance(got, tuple):
        return False
    if close(got[0], record.want):
        return _("your function returned a tuple of {count} arrays (its first array is the right answer)").format(
            count=len(got))
    return _("your function returned a tuple of {count} arrays").format(count=len(got))


def _returned_wrong_count(record):
    want, got = _pair(record)
    if not isinstance(record.want, tuple) or got is None or len(got) == len(want):
        return False
    return _("your function returned {count} arrays").format(count=len(got))


def _swapped_order(record):
    want, got = _pair(record)
    if len(want) != 2 or got is None or len(got) != 2 or record.got is None:
        return False
    return np.shape(got[0]) == np.shape(want[1]) and np.shape(got[1]) == np.shape(want[0]) and (
        close(got[0], want[1]) and close(got[1], want[0]))


def _transposed(got, want):
    got, want = np.asarray(got), np.asarray(want, dtype=float)
    return want.ndim >= 2 and not close(got, want) and close(got, np.swapaxes(want, -1, -2))


def _weights_transposed(record):
    want, got = _pair(record)
    if len(want) != 2 or got is None or len(got) != 2:
        return False
    return close(got[0], want[0]) and _transposed(got[1], want[1])


def _output_transposed(record):
    want, got = _pair(record)
    if got is None:
        got = (record.returned,) if isinstance(record.returned, np.ndarray) else None
    if got is None or len(got) != len(want):
        return False
    return _transposed(got[0], want[0]) and all(close(g, w) for g, w in zip(got[1:], want[1:]))


def _flattened(record):
    want, got = _pair(record)
    got = got if got is not None else (record.returned,) if isinstance(record.returned, np.ndarray) else None
    if got is None or len(got) != len(want):
        return False
    wrong = [(g, w) for g, w in zip(got, want) if not close(g, w)]
    return bool(wrong) and all(np.shape(g) != np.shape(w) and np.size(g) == np.size(w)
                               and close(np.ravel(g), np.ravel(w)) for g, w in wrong) and (
        _("your result has shape {got} instead of {want}").format(got=np.shape(wrong[0][0]),
                                                                  want=np.shape(wrong[0][1])))


# ........................................................................... the rank probe
_RANK_WORDS = {0: N_("no batch axis"), 1: N_("one batch axis"), 2: N_("two batch axes"), 3: N_("three batch axes")}


def _lead(record):
    """Number of leading batch axes of the record's call (of its first batched argument)."""
    for value, core in zip(record.args, record.batched.cores):
        if core is not None and isinstance(value, np.ndarray):
            return value.ndim - core
    return 0


def _with_batch(args, cores, batch):
    """The record's arguments rebuilt with leading batch shape ``batch``: the first entry of each
    batched argument, rolled along its rows from one batch entry to the next."""
    out = []
    for value, core in zip(args, cores):
        if core is None or not isinstance(value, np.ndarray) or value.ndim < core:
            out.append(value)
            continue
        base = value.reshape(-1, *value.shape[value.ndim - core:])[0] if value.ndim > core else value
        count = int(np.prod(batch)) if batch else 1
        rows = [np.roll(base, k, axis=-2) if base.ndim >= 2 else base for k in range(count)]
        out.append(np.stack(rows).reshape(*batch, *base.shape) if batch else base.copy())
    return tuple(out)


def _probe(record, lead):
    """'works', or what goes wrong, when the record's computation runs with ``lead`` batch axes
    (a result that breaks only the contract's return structure counts as working: that mistake
    is named by its own entry)."""
    spec = record.batched
    batch = (2, 3, 2)[:lead] if spec.any_rank else (3,)[:lead]
    args = _with_batch(record.args, spec.cores, batch)
    try:
        with np.errstate(all="ignore"):
            want = spec.reference(*args, **record.kwargs)
    except Exception:
        return None
    trial = attempt(record.callee, record.function, args, record.kwargs, want=want, arg_names=())
    if (trial.error is not None or not _all_close(trial.got, trial.want)) and trial.returned is not None and any(
            mistake.shown_by(trial) for mistake in _STRUCTURE_MISTAKES):
        return "works"
    if trial.error is not None:
        return "raises"
    if not _all_close(trial.got, trial.want):
        got = trial.got if isinstance(trial.got, tuple) else (trial.got,)
        want = want if isinstance(want, tuple) else (want,)
        return "wrong shape" if any(np.shape(g) != np.shape(w) for g, w in zip(got, want)) else "wrong values"
    return "works"


def _rank_hint(line, error):
    """Why a line of the learner's code fits only one number of axes, and what works for any."""
    line, error = line or "", error or ""
    fixed = re.search(r"(?:\.transpose|np\.transpose)\(\s*(?:[A-Za-z_][\w.\[\]]*,\s*)?\(?\s*(\d+(?:\s*,\s*\d+)+)",
                      line)
    if fixed:
        count = len(fixed.group(1).split(","))
        snippet = fixed.group(0) + ")" * (fixed.group(0).count("(") - fixed.group(0).count(")"))
        return _("`{snippet}` lists the axes one by one, so it only fits arrays with exactly {count} axes; "
                 "`np.swapaxes(x, -1, -2)` (or `np.moveaxis`) works for any number of leading axes").format(
                     snippet=snippet, count=count)
    if re.search(r"\.T\b|np\.transpose\(\s*\w+\s*\)|\.transpose\(\s*\)", line):
        return _("`.T` (or `np.transpose(x)`) reverses ALL the axes; swap only the last two: "
                 "`np.swapaxes(x, -1, -2)`, which works for any number of leading axes")
    if "values to unpack" in error:
        return _("unpacking `x.shape` into a fixed number of names assumes that many axes; take what you need "
                 "from the end: `*batch, n, d = x.shape`, or `x.shape[:-1]` and `x.shape[-1]`")
    if "reshape" in error or re.search(r"\.reshape\(", line):
        return _("a reshape to a fixed list of sizes assumes a number of axes; keep the leading ones: "
                 "`x.reshape(*x.shape[:-1], num_heads, d_head)`")
    if "einstein" in error.lower() or "subscripts" in error or "einsum" in line:
        return _("einsum subscripts with one letter per axis fix the number of axes; let `...` stand for the "
                 "batch axes: `np.einsum('...nd,...md->...nm', Q, K)`")
    return _("count the axes from the end (`-1`, `-2`, ...) so that any number of leading batch axes works: "
             "`np.swapaxes(x, -1, -2)`, `x.shape[-1]`, `np.einsum('...nd,...md->...nm', ...)`")


def _rank_bound(record):
    """The rank probe's finding (computed once per record: it calls the learner's function again)."""
    if "rank" not in record.probed:
        if record.callee is None:   # a watcher's copy: only what the grading found
            return False
        record.probed["rank"] = _probe_ranks(record)
    return record.probed["rank"]


def _probe_ranks(record):
    spec = record.batched
    if spec is None or record.callee is None:
        return False
    if record.error is None:
        want, got = _pair(record)
        got = got if got is not None else (record.returned,)
        if all(np.shape(g) == np.shape(w) for g, w in zip(got, want)):
            return False  # a wrong value at the right shape: a mistake of the formula, not of the rank
    elif record.error.startswith(STOPPED) or "not implemented" in record.error:
        return False
    lead = _lead(record)
    ranks = {0, 1, 2, lead} if spec.any_rank else {0, 1}
    if not spec.any_rank and lead != 0:
        return False
    outcomes = {rank: (_probe(record, rank) if rank != lead else "fails") for rank in sorted(ranks)}
    works = [rank for rank, outcome in outcomes.items() if outcome == "works"]
    fails = [rank for rank, outcome in outcomes.items() if outcome in ("raises", "wrong shape", "fails")]
    if not works or lead in works:
        return False
    function, _callers, line = where(record.error)
    if record.error is None:
        what = _("the result has the wrong shape")
    else:
        error = learner_error(WHERE.sub("", record.error))
        inside = function and function not in ("<module>", record.function)
        if inside:
            what = (_("it raised {error} in your {function} at `{line}`") if line
                    else _("it raised {error} in your {function}")).format(error=error, function=function, line=line)
        else:
            what = (_("it raised {error} at `{line}`") if line else _("it raised {error}")).format(error=error, line=line)
    if not spec.any_rank:
        return _("{what}. Your {function} works on inputs with a leading batch axis but not on the "
                 "contract's inputs, which have none: {hint}").format(
                     what=what, function=record.function, hint=_unbatched_hint(line, record.error))
    return _("{what}. Your {function} works with {works} and fails with {fails}: {hint}").format(
        what=what, function=record.function, works=_join(works), fails=_join(fails),
        hint=_rank_hint(line, record.error))


def _unbatched_hint(line, error):
    """What to write instead of code that assumes a (batch, n, d) tensor."""
    line, error = line or "", error or ""
    if re.search(r"transpose\(", line):
        return _("for an (n, d) array write `K.T` (or `np.swapaxes(K, -1, -2)`, which works with or without a "
                 "batch axis)")
    if "values to unpack" in error:
        return _("unpack two axes, `n, d = X.shape` (or take `X.shape[-1]`, which works with or without a batch "
                 "axis)")
    if "einstein" in error.lower() or "subscripts" in error or "einsum" in line:
        return _("drop the batch letter from the einsum subscripts, or write `...` for it: `'...nd,...md->...nm'`")
    return _("index the axes from the end (`-1`, `-2`) so that the code runs with or without a batch axis")


def _join(ranks):
    words = [_(_RANK_WORDS[rank]) if rank in _RANK_WORDS else _("{count} batch axes").format(count=rank)
             for rank in ranks]
    if len(words) == 1:
        return words[0]
    # Translators: "works with no batch axis, one batch axis and with two batch axes".
    return pgettext("ranks", ", ").join(words[:-1]) + pgettext("ranks", " and with ") + words[-1]


RANK_MESSAGE = N_("the contract takes any number of leading batch axes (the `...` in its shapes), so count the "
                "axes from the end.")

BATCHES_MESSAGE = N_("the contract's shapes have no batch axis (one sequence at a time, such as Q of shape (n, d)); "
                   "code written for (batch, n, d) tensors must be adapted, not wrapped.")

CONTRACT_MISTAKES = (
    Mistake("returns_single_array",
            "the contract asks for the pair `(output, weights)`, in that order: `return out, weights`.",
            _returned_single),
    Mistake("returns_tuple",
            "the contract returns a single array here: return only it (for example `return H`, not "
            "`return H, h`).",
            _returned_tuple),
    Mistake("returns_wrong_count",
            "the contract asks for exactly the pair `(output, weights)`, in that order: `return out, weights`.",
            _returned_wrong_count),
    Mistake("outputs_in_wrong_order",
            "the two results are in the wrong order: the contract returns `(output, weights)`, the output first.",
            _swapped_order),
    Mistake("weights_transposed",
            "the weights are transposed: one row per key. The contract wants shape (..., n, m), row i holding "
            "query i's weights over the keys (each row sums to 1).",
            _weights_transposed),
    Mistake("output_transposed",
            "the result is transposed (its last two axes are swapped). In the row convention each row is one "
            "query or token: check the order of the factors (`Q @ K.T`, `weights @ V`) and the shapes in the "
            "contract.",
            _output_transposed),
    Mistake("flattened_result",
            "the numbers are right but the array is flattened or reshaped: keep one row per query or token "
            "(`np.stack(rows)` or `np.array(rows)` builds a 2-D array from a list of rows; `np.concatenate` "
            "glues them into one long vector).",
            _flattened),
    Mistake("fixed_rank", RANK_MESSAGE, lambda record: record.batched is not None and record.batched.any_rank
            and _rank_bound(record)),
    Mistake("written_for_batches", BATCHES_MESSAGE, lambda record: record.batched is not None
            and not record.batched.any_rank and _rank_bound(record)),
)
_STRUCTURE_MISTAKES = CONTRACT_MISTAKES[:6]

# Looked for after a catalogue's own mistakes, in every exercise.
SHARED_MISTAKES = (modifies_input(N_("`x -= x.max()` or `Q /= np.sqrt(d)`"), "`shifted = x - x.max()`"),
                   *CONTRACT_MISTAKES)


# --------------------------------------------------------------------------- judging
def _all_close(got, want):
    if isinstance(want, tuple):
        return got is not None and all(close(g, w) for g, w in zip(got, want))
    return got is not None and close(got, want)


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
    if record.error is not None or not _all_close(record.got, record.want):
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
