"""Masks and self-attention (chapter 7), in the row convention: one token per
row.

Masks are boolean and broadcast against the score matrix ``(..., n, m)``:
``True`` means "this query may attend to this key".  Every function builds on
``scaled_dot_product_attention`` (chapter 6), which fills blocked scores with
``-inf`` so that their weights are exactly 0.
"""
import numpy as np

from .scaled import scaled_dot_product_attention


def causal_mask(n):
    """Causal (look-ahead) mask of Vaswani et al. 2017, Sec. 3.2.3: ``True``
    where ``j <= i``.

    Query i may attend to keys 0..i (itself and the past), never to j > i (the
    future).
    returns bool (n, n), lower triangular including the diagonal
    """
    return np.tril(np.ones((n, n), dtype=bool))


def padding_mask(lengths, m):
    """Key padding mask for a batch of sequences padded to length ``m``.

    lengths : (B,) number of real tokens in each sequence (the rest is padding)
    returns bool (B, 1, m): ``True`` for the real keys; the middle axis of size
    1 broadcasts over the queries, so the result combines with ``causal_mask``
    by ``&``
    """
    lengths = np.asarray(lengths)
    return (np.arange(m) < lengths[:, None])[:, None, :]       # (B, 1, m)


def self_attention(X, W_q, W_k, W_v, causal=False):
    """Self-attention: Attention(X W_q, X W_k, X W_v) with queries, keys and
    values from one sequence.

    X : (n, d_model); W_q, W_k : (d_model, d_k); W_v : (d_model, d_v)
    causal : if True, query i sees only keys j <= i (``causal_mask``)
    returns (out (n, d_v), weights (n, n))
    """
    Q, K, V = X @ W_q, X @ W_k, X @ W_v  # (n, d_k), (n, d_k), (n, d_v)
    mask = causal_mask(X.shape[-2]) if causal else None
    return scaled_dot_product_attention(Q, K, V, mask=mask)


def cross_attention(X_q, X_kv, W_q, W_k, W_v, mask=None):
    """Cross-attention: queries from ``X_q`` (decoder), keys and values from
    ``X_kv`` (encoder).

    X_q : (..., n, d_model); X_kv : (..., m, d_model); returns (out (..., n,
        d_v), weights (..., n, m))
    """
    return scaled_dot_product_attention(X_q @ W_q, X_kv @ W_k, X_kv @ W_v,
                                        mask=mask)


def permutation_matrix(perm):
    """The permutation matrix P with ``(P @ X)[i] = X[perm[i]]``: row i of P is
    the unit vector e_perm[i].
    """
    perm = np.asarray(perm)
    return np.eye(perm.size)[perm]                              # (n, n)
