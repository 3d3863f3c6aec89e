"""Luong's general (bilinear) score (Luong et al. 2015, Sec. 3.1), chapter 5.

Row convention, as in the rest of the book: Q : (n, d_q) queries, K : (m, d_k)
keys,
V : (m, d_v) values, W : (d_k, d_q).
"""
import numpy as np

from .softmax import softmax


def general_scores(Q, K, W):
    """General (bilinear) scores S[i, j] = k_j^T W q_i, so S = Q W^T K^T
    (Luong et al. 2015, Sec. 3.1).

    Q : (n, d_q), K : (m, d_k), W : (d_k, d_q)  ->  S : (n, m)
    """
    # (n, d_q) (d_q, d_k) (d_k, m) -> (n, m)
    return Q @ W.T @ np.swapaxes(K, -1, -2)


def general_attention(Q, K, V, W):
    """General attention softmax(Q W^T K^T) V, softmax over the keys (each row
    sums to 1).

    Q : (n, d_q), K : (m, d_k), V : (m, d_v), W : (d_k, d_q)  ->  (out (n,
        d_v), weights (n, m))
    """
    weights = softmax(general_scores(Q, K, W), axis=-1)  # (n, m)
    return weights @ V, weights                          # (n, d_v), (n, m)
