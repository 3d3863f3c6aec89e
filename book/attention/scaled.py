"""Scaled dot-product attention (chapter 6), tuned; later chapters import it
from here.

It computes in float64 and makes no temporary of the size of the score matrix
beyond the weights themselves; the tuning is measured by
``benchmarks/attention_kernels.py`` and discussed in chapter 9.
"""
import numpy as np


# Scores (in base 2) whose absolute value is at most this need no shift before
# `exp2`: 2**300 ~ 2e90 cannot overflow, even summed over 1e200 keys, and
# 2**-300 ~ 5e-91 is a normal float64, so no row can sum to 0.
SHIFT_FREE_BOUND = 300.0
LOG2_E = 1.0 / np.log(2.0)
# Rows of the score matrix processed together: about 512 KiB of float64 per
# block, so the exponential, the row sums and the normalisation all run on
# cached data.
BLOCK_BYTES = 1 << 19


def boolean_mask(mask):
    """The book's masks are boolean, True = this query may attend to this key
    (Vaswani et al. 2017, Sec. 3.2.3, sets the scores of the others to -inf).

    returns mask as a bool array; refuses (TypeError) any other dtype: an
    additive 0 / -inf mask cast to bool would be inverted (0 -> False =
    masked, -inf -> True = kept), and a 0/1 mask is ambiguous.
    """
    mask = np.asarray(mask)
    if mask.dtype != np.bool_:
        raise TypeError(
            f"mask must be boolean (True = this query may attend to this "
            f"key), got dtype {mask.dtype}: for an additive mask M of 0 and "
            f"-inf pass M == 0, for a 0/1 mask with 1 = attend pass M == 1")
    return mask


def checked_mask(mask, scores_shape):
    """The boolean mask (``boolean_mask``), refused (ValueError) unless it
    broadcasts to the scores' shape (..., n, m) without enlarging it: a mask
    never adds batch axes to the output."""
    mask = boolean_mask(mask)
    if not broadcasts_to(mask.shape, tuple(scores_shape)):
        raise ValueError(
            f"mask of shape {mask.shape} does not broadcast to the scores' "
            f"shape (..., n, m) = {tuple(scores_shape)}")
    return mask


def broadcasts_to(shape, target):
    """True if an array of ``shape`` broadcasts to ``target`` unchanged."""
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False


def scaled_dot_product_attention(Q, K, V, mask=None):
    """Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V  (Vaswani et al. 2017,
    Eq. 1).

    Q    : (..., n, d_k) queries, one per row
    K    : (..., m, d_k) keys
    V    : (..., m, d_v) values
    mask : bool, broadcastable to (..., n, m), the scores' shape; True = this
        query may attend to this key; any other dtype, or a shape that would
        enlarge the scores, is refused (``checked_mask``). A (B, 1, m) padding
        mask against inputs with a head axis (B, h, n, d) needs its own head
        axis, mask[:, None]: with B = h it would broadcast, wrongly, by shape.
    returns (out (..., n, d_v), weights (..., n, m)); masked weights are
    exactly 0

    The softmax is the one of chapter 1, tuned (see
    ``benchmarks/attention_kernels.py``):

    * it works in place on the score matrix, in blocks of rows that fit in the
      cache;
    * exp(s) = 2 ** (s log2 e), so the factor log2(e) joins 1/sqrt(d_k) on the
      keys (m * d_k multiplications instead of n * m) and the faster
      ``np.exp2`` does the rest;
    * by shift invariance any per-row constant may be subtracted before the
      exponential, and subtracting the row maximum only matters for large
      scores. Cauchy-Schwarz bounds every score: |q_i . k_j| <= max|q| max|k|.
      When that bound (in base 2) is at most SHIFT_FREE_BOUND, nothing can
      overflow and no row can underflow to 0, so the shift, a full pass over
      the matrix, is skipped.
    """
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    # (..., m, d_k) keys times log2(e) / sqrt(d_k)
    K_scaled = K * (LOG2_E / np.sqrt(Q.shape[-1]))
    # (..., n, m) scores in base 2; a new array: work in place
    scores = Q @ np.swapaxes(K_scaled, -1, -2)
    if mask is not None:
        mask = checked_mask(mask, scores.shape)  # broadcasts to (..., n, m)
        # 2 ** -inf = 0: masked weights exactly 0
        np.copyto(scores, -np.inf, where=~mask)
    # max |q|^2
    squared_bound = (np.max(np.einsum("...i,...i->...", Q, Q), initial=0.0)
                     # max |k|^2 / d_k
                     * np.max(np.einsum("...i,...i->...", K_scaled, K_scaled),
                              initial=0.0))
    # also True for inf or NaN inputs
    shift = not squared_bound <= SHIFT_FREE_BOUND ** 2
    scores = np.ascontiguousarray(scores)  # already is: then no copy
    m = scores.shape[-1]
    # a view, so the blocks below write into scores
    rows = scores.reshape(-1, m)
    step = max(1, BLOCK_BYTES // (8 * max(m, 1)))
    # a fully masked row: 0 * (1/0) = nan, as before
    with np.errstate(divide="ignore"):
        for start in range(0, rows.shape[0], step):
            block = rows[start:start + step]  # (step, m), a view into scores
            if shift:
                block -= np.max(block, axis=-1, keepdims=True)
            np.exp2(block, out=block)  # = exp(q . k / sqrt(d_k) - shift)
            block *= 1.0 / np.einsum("ij->i", block)[:, None]  # rows sum to 1
    return scores @ V, scores  # (..., n, d_v), (..., n, m)
