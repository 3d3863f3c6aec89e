"""Multi-head attention (chapter 8), Vaswani et al. 2017, Sec. 3.2.2, in the
row convention.

Head h uses columns ``h*d_head : (h+1)*d_head`` of each projection, with
``d_head = d_model // num_heads``.  Heads live on an extra axis just before the
sequence axis: ``(..., num_heads, n, d_head)``.
"""
import numpy as np

from .scaled import scaled_dot_product_attention


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


def head_mask(mask):
    """A mask broadcastable to (..., n, m), made broadcastable to (...,
    num_heads, n, m).
    """
    if mask is None:
        return None
    mask = np.asarray(mask, dtype=bool)
    # the same mask for every head
    return mask[..., None, :, :] if mask.ndim >= 2 else mask


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    """MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W_O  (Vaswani et al.
    2017, Sec. 3.2.2).

    X_q : (..., n, d_model) queries' inputs; X_kv : (..., m, d_model) keys' and
        values' inputs
    W_q, W_k, W_v, W_o : (d_model, d_model); mask : bool, broadcastable to
    (..., n, m)
    returns (out (..., n, d_model), weights (..., num_heads, n, m)); each head
    scaled by sqrt(d_head)
    """
    Q = split_heads(X_q @ W_q, num_heads)  # (..., h, n, d_head)
    K = split_heads(X_kv @ W_k, num_heads)  # (..., h, m, d_head)
    V = split_heads(X_kv @ W_v, num_heads)  # (..., h, m, d_head)
    # sqrt(d_head) inside
    heads, weights = scaled_dot_product_attention(Q, K, V,
                                                  mask=head_mask(mask))
    # (..., n, d_model), (..., h, n, m)
    return merge_heads(heads) @ W_o, weights


def parameter_count(d_model, bias=False):
    """Parameters of one multi-head attention layer: W_Q, W_K, W_V, W_O, each
    (d_model, d_model).

    The count does not depend on the number of heads.
    """
    return 4 * d_model * d_model + (4 * d_model if bias else 0)
