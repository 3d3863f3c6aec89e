"""Exercise 01, softmax: hidden checks and the misconception catalogue.

Each hidden test cell of ``solutions/01_softmax/softmax.ipynb`` calls one
``check_*`` function below with the learner's ``softmax``.  Inputs are random
(``checks.rng``), non-square, with large magnitudes, ``axis=0``, 3-D arrays and
``-inf`` entries.  A wrong answer is matched against ``MISTAKES`` in order; the
first symptom that fits names the mistake.  Every mistake has a wrong
implementation in ``tests/submissions/01_softmax/`` and a test that grading it
shows this message.
"""
import numpy as np

from ..checks import rng as hidden_inputs
from ..checks import Mistake, attempt, close, expect, modifies_input, probed_once, reference
from ..i18n import _


def _ref(x, axis=-1):
    return reference(__name__).softmax(x, axis=axis)


def _axis(record):
    return record.kwargs.get("axis", -1)


def _x(record):
    return np.asarray(record.args[0], dtype=float)


def _global_max(record):
    """The maximum of the whole array was subtracted: rows far below it underflow to 0 / 0."""
    x, axis = _x(record), _axis(record)
    if x.ndim < 2 or record.got is None:
        return False
    with np.errstate(all="ignore"):
        e = np.exp(x - np.max(x))
        mistaken = e / np.sum(e, axis=axis, keepdims=True)
    if close(mistaken, record.want):
        return False  # on these inputs the global maximum does no harm
    return bool(np.all(np.isclose(record.got, mistaken, rtol=1e-4, atol=1e-6, equal_nan=True)))


def _overflowed(record):
    return (record.got is not None and not np.all(np.isfinite(record.got)) and np.all(np.isfinite(record.want))
            and np.nanmax(np.abs(_x(record)[np.isfinite(_x(record))])) > 700)


def _one_hot(record):
    """Weight 1 at the largest score along ``axis`` and 0 elsewhere (ties: 1 at each maximum, or at the
    first).  Verified against ``x`` itself: large scores normalised along another axis are 0/1 too."""
    got, x, axis = record.got, _x(record), _axis(record)
    if got is None or np.shape(got) != x.shape or np.all((record.want == 0) | (record.want == 1)):
        return False
    at_each_max = (x == np.max(x, axis=axis, keepdims=True)).astype(float)
    at_first_max = np.zeros_like(x)
    np.put_along_axis(at_first_max, np.expand_dims(np.argmax(x, axis=axis), axis), 1.0, axis=axis)
    return bool(np.array_equal(got, at_each_max) or np.array_equal(got, at_first_max))


def _axis_ignored(record):
    return _x(record).ndim > 1 and _axis(record) % _x(record).ndim != _x(record).ndim - 1 and close(record.got, _ref(_x(record), axis=-1))


def _fixed_axis(record):
    """Normalised along one fixed axis whatever ``axis`` says: the axis that fits, if any."""
    x, axis = _x(record), _axis(record)
    for other in range(x.ndim):
        if other != axis % x.ndim and close(record.got, _ref(x, axis=other)):
            return _("your result is normalised along axis {other}, not along axis={axis}").format(other=other,
                                                                                                      axis=axis)
    return False


def _default_axis(record):
    """Called without ``axis``, normalised along another axis; given ``axis=-1``, right: the default
    of the learner's signature is not the contract's."""
    x = _x(record)
    if "axis" in record.kwargs or x.ndim < 2:
        return False
    other = next((k for k in range(x.ndim - 1) if close(record.got, _ref(x, axis=k))), None)
    if other is None:
        return False
    def right_with_axis_given(record):
        given = attempt(record.callee, "softmax", (x,), {"axis": -1}, want=record.want, arg_names=("x",))
        return given.error is None and close(given.got, record.want)
    if not probed_once(record, "axis given", right_with_axis_given):
        return False
    return _("called without `axis`, your softmax normalises along axis {other}").format(other=other)


def _axis_out_of_bounds(record):
    return record.error is not None and "out of bounds" in record.error


def _whole_array(record):
    x = _x(record)
    return x.ndim > 1 and close(record.got, _ref(x.reshape(-1)).reshape(x.shape))


def _divided_by_max(record):
    want = record.want
    return close(record.got, want / np.max(want, axis=_axis(record), keepdims=True))


def _missing_keepdims(record):
    if record.error is not None:
        return "broadcast" in record.error
    x, axis = _x(record), _axis(record)
    e = np.exp(x - np.max(x))
    return close(record.got, e / np.sum(e, axis=axis))  # the reduced axis lined up with the wrong one


def _neg_inf_not_zero(record):
    x = _x(record)
    return record.got is not None and np.any(np.isneginf(x)) and np.any(record.got[np.isneginf(x)] != 0)


MISTAKES = [
    modifies_input("`x -= x.max()`", "`shifted = x - x.max(...)`"),
    Mistake("global_max_subtraction",
            "you subtract the maximum of the WHOLE array (`np.max(x)` without `axis`): a slice whose scores "
            "are all far below that maximum underflows, exp gives 0 everywhere in it, and 0 / 0 is `nan`. "
            "Subtract each slice's own maximum: `x - np.max(x, axis=axis, keepdims=True)`.",
            _global_max),
    Mistake("no_max_subtraction",
            "overflow: `np.exp` of a large score is `inf`, and `inf / inf` is `nan`. Subtract the "
            "maximum along `axis` (with `keepdims=True`) before `np.exp`; softmax does not change "
            "when the same number is subtracted from every score.",
            _overflowed),
    Mistake("default_axis",
            "the default of `axis` must be the last axis, as in the contract's signature "
            "`def softmax(x, axis=-1)`; with `axis` given, your result is right.",
            _default_axis),
    Mistake("hard_argmax",
            "hard max: your weights are 1 at the largest score and 0 elsewhere (an argmax). Softmax "
            "gives every entry a positive weight exp(x_i) / sum_j exp(x_j); that soft weighting is "
            "what lets gradients reach every position.",
            _one_hot),
    Mistake("axis_ignored",
            "the `axis` argument is ignored: the result is normalised along the last axis. Pass "
            "`axis=axis` to every reduction (`np.max` and `np.sum`).",
            _axis_ignored),
    Mistake("fixed_axis",
            "the reductions use a fixed axis instead of the `axis` argument. Pass `axis=axis, "
            "keepdims=True` to `np.max` and `np.sum`.",
            _fixed_axis),
    Mistake("axis_hard_coded",
            "your softmax names a fixed axis (such as `axis=1`) that a 1-D input does not have. Use the "
            "`axis` argument in every reduction: `np.max(x, axis=axis, keepdims=True)`.",
            _axis_out_of_bounds),
    Mistake("whole_array",
            "normalised over the whole array: all entries together sum to 1, instead of each slice "
            "along `axis`. Reduce with `axis=axis, keepdims=True`.",
            _whole_array),
    Mistake("divide_by_max",
            "divided by the largest exponential instead of the sum: the largest weight is 1 and the "
            "weights do not sum to 1. Divide `np.exp(x - max)` by its sum along `axis`.",
            _divided_by_max),
    Mistake("missing_keepdims",
            "missing `keepdims=True`: `np.sum(e, axis=axis)` drops the reduced axis, so the division "
            "lines the sums up with the wrong axis (or fails with 'operands could not be broadcast "
            "together'). Use `np.sum(e, axis=axis, keepdims=True)`, and the same for `np.max`.",
            _missing_keepdims),
    Mistake("neg_inf_not_zero",
            "an entry equal to `-inf` must get weight exactly 0 (this is how masks work in later "
            "chapters), but yours is not 0. Do not clip the scores or add a small epsilon.",
            _neg_inf_not_zero, even_if_close=True),   # closeness is not enough: exactly 0
]


def _expect(softmax, x, axis=None):
    kwargs = {} if axis is None else {"axis": axis}
    record = attempt(softmax, "softmax", (x,), kwargs, want=_ref(x, **kwargs), arg_names=("x",))
    expect(record, MISTAKES)
    return record.got


def check_random(softmax):
    """Random non-square inputs along the default axis; rows sum to 1; shift invariance."""
    rng = hidden_inputs("random")
    for shape in [(7,), (4, 9), (6, 3)]:
        x = rng.normal(scale=2.0, size=shape)
        got = _expect(softmax, x)
        assert np.all(got >= 0), _("softmax: weights must be non-negative")
        assert np.allclose(got.sum(axis=-1), 1.0), _("softmax: each row must sum to 1")
        shifted = _expect(softmax, x + 5.0)
        assert np.allclose(shifted, got, rtol=1e-4, atol=1e-6), (
            _("softmax: adding the same constant to every score must not change the weights"))


def check_large(softmax):
    """Scores of large magnitude: no overflow, no NaN."""
    rng = hidden_inputs("large")
    # As the visible test's [1000, 0, -1000], but drawn: one score far above, one far below, in any order.
    large = rng.uniform(900.0, 1500.0)
    _expect(softmax, rng.permutation([large, rng.uniform(-5.0, 5.0), -large]))
    _expect(softmax, rng.normal(scale=800.0, size=(5, 4)))
    # Two huge scores about 1 apart (weights near 0.73 and 0.27) and one far below them; all exact in float32,
    # so that a correct float32 softmax is right within tolerance whatever the draw.
    top, gap = float(rng.integers(5000, 20000)), float(rng.choice([0.5, 0.75, 1.0, 1.25, 1.5]))
    _expect(softmax, rng.permutation([top, top - gap, -top])[None, :], axis=-1)
    # Rows far apart: each needs its own maximum (a row 1100 below the largest score underflows with the global one).
    offsets = np.array([[800.0], [-300.0], [-1800.0]]) + rng.uniform(-50.0, 50.0, size=(3, 1))
    _expect(softmax, rng.normal(scale=3.0, size=(3, 5)) + offsets)


def check_axis(softmax):
    """axis=0 on a non-square matrix, and every axis of a 3-D array."""
    rng = hidden_inputs("axis")
    got = _expect(softmax, rng.normal(size=(4, 7)), axis=0)
    assert np.allclose(got.sum(axis=0), 1.0), _("softmax(x, axis=0): each column must sum to 1")
    x = rng.normal(scale=3.0, size=(2, 3, 5))
    for axis in (0, 1, 2, -2):
        _expect(softmax, x, axis=axis)


def check_neg_inf(softmax):
    """-inf entries get weight exactly 0; the others still sum to 1."""
    rng = hidden_inputs("neg_inf")
    x = rng.normal(scale=2.0, size=(3, 4))
    x[0, 1] = x[1, 0] = x[1, 1] = x[2, 3] = -np.inf         # every row keeps finite entries
    x[1, 3] = x[1, 2]                                        # a tie among the finite ones
    got = _expect(softmax, x)
    assert np.allclose(got.sum(axis=-1), 1.0), _("softmax: each row must sum to 1")
    _expect(softmax, x.T.copy(), axis=0)
