"""Exercise 06, scaled dot-product attention: hidden checks and the misconception catalogue.

Each hidden test cell of ``solutions/06_scaled/scaled.ipynb`` calls one
``check_*`` function below with the learner's ``scaled_dot_product_attention``.
Inputs are random (``checks.rng``) with n != m and d_k != d_v (so dividing by d_k or by
sqrt(d_v) instead of sqrt(d_k) changes the values), batch sizes that differ
from every other axis (so ``K.T``, which reverses *all* axes, cannot line up),
and masks whose every row has at least one visible and one hidden key (so an
inverted mask still gives finite weights that name the mistake).  A wrong
answer is matched against ``MISTAKES`` in order; the first symptom that fits
names the mistake.  Every mistake has a wrong implementation in
``tests/submissions/06_scaled/``.
"""
import re

import numpy as np

from ..checks import rng as hidden_inputs
from ..checks import (Batched, Mistake, attempt, close, expect, formula, large_factor, masked_weight_not_zero,
                      no_max_subtraction, reference, weights_sum_to_one, where)
from ..checks import softmax as _softmax


def _ref(Q, K, V, mask=None):
    return reference(__name__).scaled_dot_product_attention(Q, K, V, mask)


def _parts(record):
    """(Q, K, V, mask, raw scores Q K^T) of a recorded call."""
    Q, K, V = (np.asarray(a, dtype=float) for a in record.args[:3])
    mask = record.args[3] if len(record.args) > 3 else record.kwargs.get("mask")
    mask = None if mask is None else np.asarray(mask, dtype=bool)
    return Q, K, V, mask, Q @ np.swapaxes(K, -1, -2)


def _fill(S, mask, value=-np.inf):
    return S if mask is None else np.where(mask, S, value)


def _scale_after_softmax(record):
    Q, K, V, mask, S = _parts(record)
    unscaled = _softmax(_fill(S, mask))
    root = np.sqrt(Q.shape[-1])
    return record.got is not None and (close(record.got[1], unscaled / root)
                                       or close(record.got[0], unscaled @ V / root))


# --------------------------------------------------------------------------- mistaken formulas
def _attention(record, *, scale="sqrt_dk", mask="where", axis=-1):
    """(output, weights) of the record's call under one mistaken formula (Vaswani et al. 2017, eq. 1:
    softmax(Q K^T / sqrt(d_k)) V, the mask filling the blocked scores with -inf before the softmax).
    ``scale``: "none", "dk", "sqrt_dv", or "sqrt_axis1" (d_k read as ``Q.shape[1]``, the number of queries
    on batched inputs); ``mask``: "ignored", "after" (weights times the mask), "zero" (blocked scores set to
    0), "inverted", "added" (the booleans added to the scores); ``axis=-2`` normalises over the queries."""
    Q, K, V, visible, S = _parts(record)                 # S (..., n, m)
    root = {"sqrt_dk": np.sqrt(Q.shape[-1]), "none": 1.0, "dk": Q.shape[-1], "sqrt_dv": np.sqrt(V.shape[-1]),
            "sqrt_axis1": np.sqrt(Q.shape[1])}[scale]
    S = S / root
    if visible is not None and mask != "ignored":
        S = {"where": lambda: _fill(S, visible), "after": lambda: S, "zero": lambda: _fill(S, visible, 0.0),
             "inverted": lambda: _fill(S, ~visible), "added": lambda: S + visible}[mask]()
    weights = _softmax(S, axis=axis)                     # (..., n, m)
    if visible is not None and mask == "after":
        weights = weights * visible
    return weights @ V, weights


def _formula(**options):
    return formula(_attention, "scaled_dot_product_attention", **options)


def _with_mask(detect):
    """A mask mistake: shown only by a call with a mask."""
    def masked(record):
        return _parts(record)[3] is not None and detect(record)
    masked.family, masked.same_detail, masked.isolates, masked.pairs = (
        detect.family, detect.same_detail, detect.isolates, detect.pairs)
    return masked


_no_scaling = _formula(scale="none")
_divide_by_dk = _formula(scale="dk")
_scale_by_dv = _formula(scale="sqrt_dv")
_scale_from_axis1 = _formula(scale="sqrt_axis1")
_mask_after_softmax = _with_mask(_formula(mask="after"))
_mask_fill_zero = _with_mask(_formula(mask="zero"))
_inverted_mask = _with_mask(_formula(mask="inverted"))
_ignored_mask = _with_mask(_formula(mask="ignored"))
_mask_added = _with_mask(_formula(mask="added"))
_softmax_over_queries = _formula(axis=-2)


def _k_transpose_batched(record):
    if record.error is None or np.ndim(record.args[1]) < 3 or "not implemented" in record.error:
        return False
    line = where(record.error)[2]
    if line and not re.search(r"\.T\b|transpose\(\s*\w*\s*\)", line):
        return False  # the line that raised is not a full transpose: the rank probe says what it is
    text = record.error.lower()
    return any(word in text for word in ("mismatch", "broadcast", "aligned", "shape"))


MISTAKES = [
    Mistake("scale_after_softmax",
            "the factor 1/sqrt(d_k) is applied after the softmax: the weights (or the output) are shrunk, "
            "and the rows of the weights no longer sum to 1. The scaling belongs inside the softmax: "
            "`softmax(Q K^T / sqrt(d_k))`; it sets the softmax's temperature.",
            _scale_after_softmax,
            hints=("Look at where the factor 1 / √d_k enters your computation: on the scores, before the softmax, "
                   "or later?",
                   "On a small example, add up each row of your weights, and compare your output with your weights "
                   "times the values: in a right answer every row sums to 1 and the two agree.",
                   "The scaling divides the scores inside the softmax: it sets the softmax's temperature, and the "
                   "weights stay a distribution that sums to 1.")),
    Mistake("no_scaling",
            "the scores are not scaled: your weights are softmax(Q K^T), the unscaled dot-product attention "
            "of chapter 4. Divide the scores by sqrt(d_k) before the softmax, with d_k = `Q.shape[-1]`.",
            _no_scaling,
            hints=("Look at the scores just before the softmax: what are they divided by?",
                   "With d_k equal to 4, compute the dot product of one query with one key and compare it with the "
                   "score your code passes to the softmax: the score should be half of it, the dot product divided "
                   "by √4.",
                   "Equation 1 of Vaswani et al. divides every score by √d_k, the square root of the dimension of a "
                   "query and key vector, before the softmax.")),
    Mistake("divide_by_dk",
            "the scores are divided by d_k instead of sqrt(d_k). A dot product of d_k terms of variance 1 has "
            "variance d_k, so dividing by its standard deviation sqrt(d_k) brings it back to variance 1: "
            "use `/ np.sqrt(d_k)`.",
            _divide_by_dk,
            hints=("Look at the number your scores are divided by: how is it computed from d_k?",
                   "Call your function with `Q` and `K` of 9 columns, d_k equal to 9, and print the number your "
                   "code divides the scores by: it should be 3.",
                   "The scores are divided by the standard deviation of a dot product of d_k terms of variance 1: "
                   "its variance is d_k, its standard deviation √d_k.")),
    Mistake("scale_by_dv",
            "the scores are divided by sqrt(d_v), the size of the values (`V.shape[-1]`). The factor comes "
            "from the dimension of the vectors in the dot products q . k, so use d_k = `Q.shape[-1]` "
            "(equal to `K.shape[-1]`).",
            _scale_by_dv,
            hints=("Look at where your scaling factor takes its dimension from: which array's shape do you read it "
                   "from?",
                   "Call your function with d_k equal to 4 and d_v equal to 9, and print the number your code "
                   "divides the scores by: it should be 2, whatever the size of the values.",
                   "The factor comes from the dot products of queries with keys, which have d_k terms: the values "
                   "never enter the scores.")),
    Mistake("mask_after_softmax",
            "the mask is applied after the softmax without renormalising: the masked weights are 0, but the "
            "remaining weights of a row no longer sum to 1. Mask the scores before the softmax "
            "(`np.where(mask, scores, -np.inf)`), so that the softmax spreads the whole weight over the "
            "visible keys.",
            _mask_after_softmax,
            hints=("Look at where your code uses `mask`: on the scores, before the softmax, or on the weights, "
                   "after it?",
                   "Call it with a mask that hides some keys and add up each row of your weights: the masked "
                   "weights should be 0 and every row should still sum to 1.",
                   "The softmax has to see the mask: a blocked key's score is made minus infinity, so that the "
                   "softmax spreads the whole weight over the visible keys.")),
    Mistake("mask_fill_zero",
            "masked scores are set to 0 instead of -inf: exp(0) = 1, so masked keys still get a positive "
            "weight. Fill them with `-np.inf` (or a very large negative number such as -1e9) before the "
            "softmax: exp(-inf) = 0.",
            _mask_fill_zero,
            hints=("Look at the value a masked score gets before the softmax: what weight does the softmax give "
                   "that value?",
                   "Call it with a mask that hides one key of a query and print that query's weight for the hidden "
                   "key: it should be exactly 0. Then look at the scores your code passes to the softmax for that "
                   "query.",
                   "The softmax gives a score s a weight proportional to e^s, which is positive for every finite s: "
                   "only minus infinity gives exactly 0.")),
    Mistake("inverted_mask",
            "the mask is inverted: your weights attend exactly to the keys where the mask is False. In this "
            "book `True` means 'this query may attend to this key': keep the scores where the mask is True "
            "and set the others to -inf, `np.where(mask, scores, -np.inf)`.",
            _inverted_mask,
            hints=("Look at how you read `mask`: which value, True or False, marks a key the query may attend to?",
                   "Call it with a mask that is True only at key 0 for every query: all the weight should go to "
                   "key 0. See which keys your weights go to.",
                   "In this book `True` means this query may attend to this key: the scores where `mask` is True "
                   "are kept and the others blocked.")),
    Mistake("ignored_mask",
            "the mask is ignored: your weights are the same as without a mask, so masked keys get positive "
            "weights. Before the softmax, replace the scores where the mask is False by -inf: "
            "`np.where(mask, scores, -np.inf)` (it broadcasts the mask over the batch axes).",
            _ignored_mask,
            hints=("Look at what your function does with its `mask` argument: does it reach the scores before the "
                   "softmax?",
                   "Call it twice on the same inputs, without a mask and with a mask that hides some keys: the "
                   "weights should differ, and the hidden keys should get weight 0.",
                   "Where `mask` is False the key is blocked: its score is replaced before the softmax, so that its "
                   "weight is exactly 0, on every batch axis the mask broadcasts over.")),
    Mistake("mask_added",
            "the boolean mask is ADDED to the scores: True counts as 1 and False as 0, so every key stays "
            "visible and the visible ones just get a bonus. Replace the blocked scores instead: "
            "`np.where(mask, scores, -np.inf)` (or add `np.where(mask, 0.0, -np.inf)`).",
            _mask_added,
            hints=("Look at the operation that combines `mask` with the scores: what does NumPy make of True and "
                   "False in arithmetic?",
                   "Call it with a mask that hides one key, and compare the scores your code passes to the softmax "
                   "with the scores before masking: by how much did each one change? The hidden key's weight should "
                   "be exactly 0.",
                   "A boolean mask selects scores, it is not added to them: a blocked score has to become minus "
                   "infinity, and an added 0 or 1 never does that.")),
    Mistake("softmax_over_queries",
            "the softmax runs over the queries (axis -2), so each column of the weights sums to 1. Each "
            "query's scores must be normalised over the keys: `softmax(scores, axis=-1)`.",
            _softmax_over_queries,
            hints=("Look at the axis of your softmax: which axis of the scores, of shape n × m after the batch "
                   "axes, holds one query's scores?",
                   "On an unbatched example with n ≠ m, add up your weights along the last axis: every row, one "
                   "query, should sum to 1. Add them along the other axis too and compare.",
                   "Each query's scores are normalised over the keys, the last axis, whatever the number of leading "
                   "batch axes.")),
    Mistake("dk_from_fixed_axis",
            "d_k is read from `Q.shape[1]`, which is the number of queries once a batch axis leads (Q of "
            "shape (B, n, d_k)): the scores are divided by sqrt(n). The contract takes any number of leading "
            "batch axes, so count the axes from the end: `d_k = Q.shape[-1]`.",
            _scale_from_axis1,
            hints=("Look at how you get d_k: from which axis of `Q` do you read it, and is it still that axis when "
                   "batch axes lead?",
                   "Call it on `Q` of shape 2 × 3 × 5, a batch of 2 with 3 queries of dimension 5, and print the "
                   "d_k your code uses: it should be 5. Try 4 × 2 × 3 × 5 too.",
                   "The contract allows any number of leading batch axes: d_k, the dimension of a query vector, is "
                   "the last axis of `Q`, counted from the end.")),
    masked_weight_not_zero(lambda record: _parts(record)[3]),
    Mistake("k_transpose_batched",
            "`K.T` (or `np.transpose(K)`) reverses *all* the axes of a batched array: for K of shape "
            "(B, m, d_k) it gives (d_k, m, B), not (B, d_k, m), so the product with Q fails. Swap only the "
            "last two axes: `np.swapaxes(K, -1, -2)`, or write the product as "
            "`np.einsum('...nd,...md->...nm', Q, K)`.",
            _k_transpose_batched,
            hints=("Look at how you turn `K` around for the product with `Q`: which axes does that operation "
                   "reverse on a batched array?",
                   "Make `K` of shape 2 × 5 × 3, a batch of 2 with 5 keys of dimension 3, turn it around as your "
                   "code does and print the shape: it should be 2 × 3 × 5, the batch axis still first.",
                   "The batch axes lead and must stay in place: only the last two axes of `K`, the keys and d_k, "
                   "change places.")),
    no_max_subtraction(lambda record: _fill(_parts(record)[4] / np.sqrt(_parts(record)[0].shape[-1]),
                                            _parts(record)[3])),
]

# Q, K, V and the mask have two core axes each; any number of batch axes may lead.
BATCHED = Batched((2, 2, 2, 2), lambda *args, **kwargs: _ref(*args, **kwargs))


def _expect(function, Q, K, V, *mask):
    names = ("Q", "K", "V", "mask")[:3 + len(mask)]
    record = attempt(function, "scaled_dot_product_attention", (Q, K, V, *mask), want=_ref(Q, K, V, *mask),
                     arg_names=names, batched=BATCHED)
    expect(record, MISTAKES, extra_check=weights_sum_to_one())
    return record.got


def _inputs(rng, batch, n, m, d_k, d_v):
    return (rng.normal(size=(*batch, n, d_k)), rng.normal(size=(*batch, m, d_k)),
            rng.normal(size=(*batch, m, d_v)))


def _mask_with_both(rng, shape):
    """A random boolean mask whose every row has at least one True and at least one False."""
    mask = rng.random(shape) < 0.5
    rows = mask.reshape(-1, shape[-1])
    rows[~rows.any(axis=1), 0] = True
    rows[rows.all(axis=1), -1] = False
    return rows.reshape(shape)


def check_unbatched(scaled_dot_product_attention):
    """Unbatched (n, d_k) inputs, d_k != d_v, called without a mask and with mask=None."""
    rng = hidden_inputs("unbatched")
    for n, m, d_k, d_v in [(3, 5, 8, 2), (4, 2, 3, 6)]:
        _expect(scaled_dot_product_attention, *_inputs(rng, (), n, m, d_k, d_v))
    _expect(scaled_dot_product_attention, *_inputs(rng, (), 1, 6, 5, 3), None)
    Q, K, V = _inputs(rng, (), 4, 7, 3, 2)                  # scores above 1000: exp overflows without the max
    _expect(scaled_dot_product_attention, Q * large_factor(Q @ K.T / np.sqrt(3)), K, V)


def check_batched(scaled_dot_product_attention):
    """One leading batch axis, then two; batch sizes differ from n, m, d_k and d_v, and Q.shape[1] differs
    between the calls (3, then 2), so that no constant divisor passes for sqrt(Q.shape[1])."""
    rng = hidden_inputs("batched")
    _expect(scaled_dot_product_attention, *_inputs(rng, (2,), 3, 5, 4, 6))
    _expect(scaled_dot_product_attention, *_inputs(rng, (3, 2), 4, 6, 5, 7))


def check_mask(scaled_dot_product_attention):
    """A boolean (n, m) mask on unbatched inputs: masked weights exactly 0, rows sum to 1."""
    rng = hidden_inputs("mask")
    for n, m, d_k, d_v in [(4, 6, 5, 3), (3, 4, 2, 5)]:
        Q, K, V = _inputs(rng, (), n, m, d_k, d_v)
        _expect(scaled_dot_product_attention, Q, K, V, _mask_with_both(rng, (n, m)))


def check_mask_batched(scaled_dot_product_attention):
    """Masks broadcast over batch axes: one (n, m) mask for all, a padding mask (B, 1, m), a full (B, n, m)."""
    rng = hidden_inputs("mask_batched")
    B, n, m, d_k, d_v = 3, 4, 6, 5, 2
    Q, K, V = _inputs(rng, (B,), n, m, d_k, d_v)
    _expect(scaled_dot_product_attention, Q, K, V, _mask_with_both(rng, (n, m)))
    lengths = rng.choice(np.arange(1, m), size=B, replace=False)   # keys j >= length are padding
    padding = np.arange(m)[None, None, :] < lengths[:, None, None]  # (B, 1, m)
    _expect(scaled_dot_product_attention, Q, K, V, padding)
    # a full (B, n, m) mask with another number of queries (Q.shape[1] then differs between the calls)
    Q, K, V = _inputs(rng, (B,), 7, m, d_k, d_v)
    _expect(scaled_dot_product_attention, Q, K, V, _mask_with_both(rng, (B, 7, m)))
    # two batch axes: Q.shape[1] (2) is then neither n (7) nor d_k, so reading d_k from a fixed axis is
    # told from reading it from another axis counted from the end (Q.shape[-2])
    Q, K, V = _inputs(rng, (B, 2), 7, m, d_k, d_v)
    _expect(scaled_dot_product_attention, Q, K, V, _mask_with_both(rng, (7, m)))
