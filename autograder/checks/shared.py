"""The shared mistakes and property checks that several catalogues use: an input changed in
place, a masked weight that is not exactly 0, an additive mask, NaN where the answer is finite, a
softmax without the max subtracted; rows that sum to one; large scores for the overflow checks."""
import numpy as np

from ..i18n import N_, _
from .model import Mistake, Unreturned

def modifies_input(example, instead):
    """The shared mistake "your function changed its input", with an exercise's own example and fix
    (code; a marked message, ``N_``, when they hold words)."""
    return Mistake.formatted(
        "modifies_input",
        N_("your function changed its input array in place (for example {example}); inputs must "
           "never be modified. Compute into a new array instead: {instead}."),
        lambda record: record.modified_input, even_if_close=True, example=example, instead=instead,
        hints=("Look for a line of your function that changes one of its input arrays itself: an in-place "
               "operator, or an assignment into part of an argument.",
               "Keep a copy of each input, call your function, then compare every input with its copy: a "
               "function of the contract leaves them all exactly as they were."))


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
        if mask is None or record.got is None or masked_weights_are_zero(record.got[1], mask):
            return False
        # "small but not 0": a blocked weight of 0.3 is another mistake (a mask inverted, ignored ...)
        weights = np.asarray(record.got[1])
        blocked = weights[~np.broadcast_to(np.asarray(mask, dtype=bool), weights.shape)]
        return bool(np.all(np.abs(blocked) < 1e-3))
    return Mistake("masked_weight_not_zero", MASKED_WEIGHT_NOT_ZERO, detect, even_if_close=True, hints=(
        "Look at how your code keeps a query from attending to a masked key: what weight does that key end "
        "up with?",
        "Print the weight of one masked position: is it exactly 0, or only small? Follow it back through "
        "your code to the step that should make it 0.",
        "A masked key must get weight exactly 0, whatever the other scores are: its score has to be one "
        "whose exponential is 0."))


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
                   detect, hints=(
                       "Look at what your mask function returns: its dtype and the values in it.",
                       "Compare it with the contract: the mask says where a query may attend, True or "
                       "False, and the attention function turns it into scores, not the mask function."))


def nan_where_finite(id, message, *, output=None, overflows=None, hints=()):
    """A shared symptom under an exercise's own id and message: NaN or inf where the right answer
    is finite (an ``np.exp`` or a hand-written tanh that overflows on large inputs).  ``output``
    picks one output of a tuple (None: any).  ``overflows(record)``, where the catalogue gives it, says
    whether the call's inputs can overflow at all (``exp_out_of_range``): NaN from small inputs comes
    from another mistake (a fully masked column normalised over the wrong axis), never this one."""
    def detect(record):
        if record.got is None or (overflows is not None and not overflows(record)):
            return False
        got = record.got if isinstance(record.got, tuple) else (record.got,)
        want = record.want if isinstance(record.want, tuple) else (record.want,)
        pairs = list(zip(got, want)) if output is None else [(got[output], want[output])]
        return any(np.shape(g) == np.shape(w) and not isinstance(g, Unreturned)
                   and np.any(~np.isfinite(g) & np.isfinite(np.asarray(w, dtype=float))) for g, w in pairs)
    return Mistake(id, message, detect, overflow=True, hints=tuple(hints))


EXP_MAX, EXP_MIN = 709.0, -745.0   # beyond them np.exp gives inf, or 0 (float64)


def exp_out_of_range(scores, axis=-1):
    """Do the right ``scores`` (-inf where masked) take an unshifted softmax beyond exp's range, or one
    shifted by the whole array's maximum below it for some slice along ``axis`` (0 / 0)?"""
    scores = np.asarray(scores, dtype=float)
    finite = np.where(np.isfinite(scores), scores, -np.inf)
    if not np.any(np.isfinite(finite)):
        return False
    top = np.max(finite)
    slices = np.max(finite, axis=axis)
    return bool(top > EXP_MAX or np.any(np.isfinite(slices) & (slices - top < EXP_MIN)))


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
    "overflow: your softmax does not subtract each query's own largest score. Without it `np.exp` of a "
    "large score is `inf`, and `inf / inf` is `nan`; with the largest score of the whole array instead, a "
    "query whose scores all lie far below it underflows to 0, and `0 / 0` is `nan`. Subtract each query's "
    "largest score first (`scores - scores.max(axis=..., keepdims=True)` along the keys' axis; softmax does "
    "not change when the same number is subtracted from every score), or use the provided `softmax`.")


def no_max_subtraction(scores=None, axis=-1):
    """The shared mistake of the attention exercises: a softmax without the max overflows on large scores.
    ``scores(record)``: the call's right scores (-inf where masked), softmaxed along ``axis``; where a
    catalogue gives them, NaN is this mistake only when they are out of exp's range."""
    overflows = None if scores is None else (lambda record: exp_out_of_range(scores(record), axis))
    return nan_where_finite("no_max_subtraction", NO_MAX_SUBTRACTION, overflows=overflows, hints=(
        "Look at the step that takes the exponential of the scores, and at what is subtracted from them "
        "first: where can inf, or 0 divided by 0, appear?",
        "Call it with one query whose scores are in the thousands and another whose scores are near minus a "
        "thousand, and find the first array in which inf or NaN appears.",
        "Softmax does not change when the same number is subtracted from every score of one query: subtract "
        "each query's own largest score, so that its exponents are at most 0 and the largest is exactly 0."))


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
