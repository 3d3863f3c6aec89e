"""Exercise 01, softmax: hidden checks and the misconception catalogue.

Each hidden test cell of ``solutions/01_softmax/softmax.ipynb`` calls one
``check_*`` function below with the learner's ``softmax``.  Inputs are random
(``checks.rng``), non-square, with large magnitudes, ``axis=0``, 3-D arrays and
``-inf`` entries.  A wrong answer is matched against ``MISTAKES`` in order; the
first symptom that fits names the mistake.  Every mistake has a wrong
implementation in ``tests/submissions/01_softmax/`` and a test that grading it
shows this message.
"""
import re

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
    """NumPy's AxisError: a reduction along an axis the input does not have (not any index out of range)."""
    return record.error is not None and re.search(r"axis -?\d+ is out of bounds for array of dimension",
                                                  record.error) is not None


def _whole_array(record):
    """All entries together sum to 1, and each slice along ``axis`` holds the right weights up to one
    factor: the right exponentials, divided by one sum over the whole array (whatever was subtracted
    first, the whole array's maximum or each slice's)."""
    x, got, axis = _x(record), record.got, _axis(record)
    if x.ndim < 2 or got is None or np.shape(got) != x.shape or not np.isclose(np.sum(got), 1.0):
        return False
    return close(got, record.want * np.sum(got, axis=axis, keepdims=True))


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
            _global_max,
            hints=("Look at the number your softmax subtracts from the scores before `np.exp`: over which "
                   "entries of the array is that maximum taken?",
                   "Build a 3 × 5 array whose rows lie far apart (add 0 to the first row and -1000 to the last) "
                   "and call your softmax on it: compare the last row's weights with those of that row softmaxed "
                   "on its own, which should be the same finite numbers.",
                   "Any number subtracted from a whole slice leaves its softmax unchanged in exact arithmetic, "
                   "but in floating point a slice far below the subtracted number underflows to 0 / 0. Each "
                   "slice along `axis` needs its own largest score.")),
    Mistake("no_max_subtraction",
            "overflow: `np.exp` of a large score is `inf`, and `inf / inf` is `nan`. Subtract the "
            "maximum along `axis` (with `keepdims=True`) before `np.exp`; softmax does not change "
            "when the same number is subtracted from every score.",
            _overflowed,
            hints=("Look at the values your softmax passes to `np.exp`: how large can they get when the scores "
                   "are in the hundreds or thousands?",
                   "Call it on the scores 1000, 0 and -1000 and print each intermediate result: `np.exp` of "
                   "anything above about 709 is `inf`, and `inf` divided by `inf` is `nan`. A right softmax "
                   "returns about 1, 0 and 0, with no `inf` or `nan` anywhere.",
                   "Softmax does not change when the same number is subtracted from every score of a slice "
                   "(shift invariance). Chosen as the slice's largest score, that number leaves every exponent "
                   "at most 0, so no exponential can overflow.")),
    Mistake("default_axis",
            "the default of `axis` must be the last axis, as in the contract's signature "
            "`def softmax(x, axis=-1)`; with `axis` given, your result is right.",
            _default_axis,
            hints=("Look at the signature of your softmax: what value does `axis` take when the caller leaves it "
                   "out?",
                   "Call it on a 3 × 4 array once without `axis` and once with `axis` -1, and compare the two "
                   "results: they should be identical, with each row summing to 1.",
                   "The contract's default is the last axis: in the book's row convention each query's scores "
                   "form a row, and the weights of each row sum to 1.")),
    Mistake("hard_argmax",
            "hard max: your weights are 1 at the largest score and 0 elsewhere (an argmax). Softmax "
            "gives every entry a positive weight exp(x_i) / sum_j exp(x_j); that soft weighting is "
            "what lets gradients reach every position.",
            _one_hot,
            hints=("Look at how your softmax turns the scores into weights: could any step make a weight exactly 0 "
                   "or exactly 1?",
                   "Call it on the scores 1, 2 and 3: a softmax gives about 0.090, 0.245 and 0.665, every weight "
                   "positive. Compare with your weights.",
                   "Softmax is the soft version of picking the maximum: each entry gets the exponential of its "
                   "score divided by the sum of all the exponentials, so only a score of minus infinity gets "
                   "weight 0.")),
    Mistake("axis_ignored",
            "the `axis` argument is ignored: the result is normalised along the last axis. Pass "
            "`axis=axis` to every reduction (`np.max` and `np.sum`).",
            _axis_ignored,
            hints=("Look at the reductions in your softmax (the sum, and the maximum if you subtract one): which "
                   "axis does each of them use when the caller passes `axis` 0?",
                   "Call it on a 4 × 7 array with `axis` 0 and add up the result down each column: with a right "
                   "softmax every column sums to 1. Add it up along each row too: which of the two gives ones?",
                   "The last axis is only the default: every reduction has to follow the `axis` argument, "
                   "whichever axis it names, negative values counting from the end.")),
    Mistake("fixed_axis",
            "the reductions use a fixed axis instead of the `axis` argument. Pass `axis=axis, "
            "keepdims=True` to `np.max` and `np.sum`.",
            _fixed_axis,
            hints=("Look at the axis along which your weights end up summing to 1: what in your code decides it, "
                   "and does the `axis` argument decide it?",
                   "Call it on a 3 × 4 array with `axis` 0 and again with the last axis, and compare the sums of "
                   "the weights along the axis you asked for with 1.",
                   "The slices that sum to 1 must lie along the axis that the `axis` argument names, for every "
                   "shape and every value of `axis`: the same function serves rows, columns and arrays with more "
                   "axes.")),
    Mistake("axis_hard_coded",
            "your softmax names a fixed axis (such as `axis=1`) that a 1-D input does not have. Use the "
            "`axis` argument in every reduction: `np.max(x, axis=axis, keepdims=True)`.",
            _axis_out_of_bounds,
            hints=("Call your softmax on a 1-D array of scores and read the error it raises: which axis or index "
                   "does it name, and where in your code is that number written?",
                   "Call it on a 1-D array of 7 scores and on a 2 × 3 × 5 array: a right softmax runs on both, "
                   "with the default axis and with every `axis` the array has. Note which call fails.",
                   "The contract accepts arrays of any shape, 1-D included, so no axis may be written into the "
                   "function: the one to reduce along is the `axis` argument.")),
    Mistake("whole_array",
            "normalised over the whole array: all entries together sum to 1, instead of each slice "
            "along `axis`. Reduce with `axis=axis, keepdims=True`.",
            _whole_array,
            hints=("Look at the sum you divide by: which entries of the array does it add up?",
                   "Call it on a 2 × 3 array and add up each row of the result: every row should sum to 1 on its "
                   "own. Compare with the total of the whole result.",
                   "Softmax normalises each slice along `axis` separately: one sum for each row of a matrix with "
                   "the last axis, never one for the whole array.")),
    Mistake("divide_by_max",
            "divided by the largest exponential instead of the sum: the largest weight is 1 and the "
            "weights do not sum to 1. Divide `np.exp(x - max)` by its sum along `axis`.",
            _divided_by_max,
            hints=("Look at the last step, the normalisation: what do you divide the exponentials by, if by "
                   "anything?",
                   "Call it on the scores 1, 2 and 3 and add up the weights: a softmax gives a sum of 1 (about "
                   "0.090, 0.245 and 0.665). Is your largest weight exactly 1 instead?",
                   "The denominator is the sum of the exponentials of all the scores along `axis`: that, and not "
                   "the largest of them, is what makes the weights sum to 1.")),
    Mistake("missing_keepdims",
            "missing `keepdims=True`: `np.sum(e, axis=axis)` drops the reduced axis, so the division "
            "lines the sums up with the wrong axis (or fails with 'operands could not be broadcast "
            "together'). Use `np.sum(e, axis=axis, keepdims=True)`, and the same for `np.max`.",
            _missing_keepdims,
            hints=("Look at the shapes in your division (and in the subtraction of the maximum): what shape does "
                   "each reduced array have next to the scores?",
                   "Take a 3 × 4 array and the last axis, and print the shape of each reduction you compute: to "
                   "pair each row with its own value it must keep the reduced axis, 3 × 1, not 3.",
                   "NumPy broadcasting lines shapes up from the right, so a reduced axis must stay in place, of "
                   "dimension 1, for each slice to meet its own value. On a square matrix a dropped axis fails "
                   "silently.")),
    Mistake("neg_inf_not_zero",
            "an entry equal to `-inf` must get weight exactly 0 (this is how masks work in later "
            "chapters), but yours is not 0. Do not clip the scores or add a small epsilon.",
            _neg_inf_not_zero, even_if_close=True,
            hints=("Follow one score of minus infinity through each step of your softmax: what does each step "
                   "turn it into?",
                   "Call it on a row holding 0, 1 and minus `np.inf`, and print the third weight at full "
                   "precision: it should be exactly 0.0, and the other two the softmax of 0 and 1 alone, about "
                   "0.269 and 0.731.",
                   "The exponential of minus infinity is exactly 0, and subtracting a finite maximum keeps minus "
                   "infinity as it is, so the plain formula already gives weight exactly 0. Masks in later "
                   "chapters rely on it.")),   # closeness is not enough: exactly 0
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
