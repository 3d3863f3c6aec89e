"""Multi-head attention (chapter 8), Vaswani et al. 2017, Sec. 3.2.2, in the
row convention.

Head h uses columns ``h*d_head : (h+1)*d_head`` of each projection, with
``d_head = d_model // num_heads``.  Heads live on an extra axis just before the
sequence axis: ``(..., num_heads, n, d_head)``.
"""
import numpy as np

from .scaled import (boolean_mask, broadcasts_to,
                     scaled_dot_product_attention)


def split_heads(X, num_heads):
    """(..., n, d_model) -> (..., num_heads, n, d_head): head h gets columns
    h*d_head:(h+1)*d_head.
    """
    *lead, n, d_model = X.shape
    d_head = d_model // num_heads
    # cut each row into num_heads slices
    X = X.reshape(*lead, n, num_heads, d_head)
    return np.swapaxes(X, -3, -2)               # (..., num_heads, n, d_head)


def merge_heads(X):
    """(..., num_heads, n, d_head) -> (..., n, d_model): Concat(head_1, ...,
    head_h), the inverse of split_heads.
    """
    *lead, num_heads, n, d_head = X.shape
    X = np.swapaxes(X, -3, -2)  # (..., n, num_heads, d_head)
    # rows: head 0's slice, then head 1's, ...
    return X.reshape(*lead, n, num_heads * d_head)


def head_mask(mask, Q, K):
    """A boolean mask broadcastable to (..., n, m), made broadcastable to
    (..., num_heads, n, m): the same mask for every head (Vaswani et al.
    2017, Sec. 3.2.2-3.2.3).

    Q : (..., h, n, d_head) and K : (..., h, m, d_head), the split heads. A
    mask that does not broadcast to their scores' shape without the head
    axis, (..., n, m), without enlarging it is refused (ValueError): a
    per-head (B, h, n, m) mask, whose axes would meet the wrong ones once the
    head axis is inserted (with B = h, head b would get row b of the mask),
    or one with more batch axes than the inputs. Non-boolean masks are
    refused (TypeError, ``boolean_mask``).
    """
    if mask is None:
        return None
    mask = boolean_mask(mask)
    # (..., n, m): the scores' shape without the head axis
    shape = (np.broadcast_shapes(Q.shape[:-3], K.shape[:-3])
             + (Q.shape[-2], K.shape[-2]))
    if not broadcasts_to(mask.shape, shape):
        raise ValueError(
            f"mask of shape {mask.shape} does not broadcast to (..., n, m) "
            f"= {shape}: give one mask for all heads, without a head "
            f"axis (it is added inside)")
    # the same mask for every head: (..., 1, n, m)
    return mask[..., None, :, :] if mask.ndim >= 2 else mask


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    """MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W_O  (Vaswani et al.
    2017, Sec. 3.2.2).

    X_q : (..., n, d_model) queries' inputs; X_kv : (..., m, d_model) keys' and
        values' inputs
    W_q, W_k, W_v, W_o : (d_model, d_model); mask : bool, broadcastable to
    (..., n, m), the same for every head (``head_mask``: a per-head or
    larger mask is refused)
    returns (out (..., n, d_model), weights (..., num_heads, n, m)); each head
    scaled by sqrt(d_head)
    """
    Q = split_heads(X_q @ W_q, num_heads)  # (..., h, n, d_head)
    K = split_heads(X_kv @ W_k, num_heads)  # (..., h, m, d_head)
    V = split_heads(X_kv @ W_v, num_heads)  # (..., h, m, d_head)
    # sqrt(d_head) inside
    heads, weights = scaled_dot_product_attention(
        Q, K, V, mask=head_mask(mask, Q, K))
    # (..., n, d_model), (..., h, n, m)
    return merge_heads(heads) @ W_o, weights


def parameter_count(d_model, bias=False):
    """Parameters of one multi-head attention layer: W_Q, W_K, W_V, W_O, each
    (d_model, d_model).

    The count does not depend on the number of heads.
    """
    return 4 * d_model * d_model + (4 * d_model if bias else 0)
