"""Dot-product attention: Luong's dot score (Luong et al. 2015, Sec. 3.1),
chapter 4.

Row convention (one query, key or value per row), as in the rest of the book:

    Q : (n, d_q) queries      K : (m, d_k) keys      V : (m, d_v) values

``dot_product_attention_columns`` is the one exception: it follows the column
convention of Luong-style texts, ``V Softmax(K^T Q)`` with one vector per
column. Chapter 4 builds these functions step by step; later chapters import
them.
"""
import numpy as np

from .softmax import softmax


def dot_scores(Q, K):
    """Dot scores S = Q K^T, S[i, j] = q_i . k_j = k_j^T q_i  (Luong et al.
    2015, Sec. 3.1, "dot").

    Q : (n, d), K : (m, d)  ->  S : (n, m)
    """
    return Q @ np.swapaxes(K, -1, -2)                          # (n, m)


def dot_product_attention(Q, K, V):
    """Unscaled dot-product attention softmax(Q K^T) V, softmax over the keys
    (each row sums to 1).

    Q : (n, d), K : (m, d), V : (m, d_v)  ->  (out (n, d_v), weights (n, m))
    """
    weights = softmax(dot_scores(Q, K), axis=-1)  # (n, m)
    return weights @ V, weights                   # (n, d_v), (n, m)


def dot_product_attention_columns(Q, K, V):
    """Column convention: V Softmax(K^T Q) with a column-wise softmax (each
    column sums to 1).

    Q : (d, n), K : (d, m), V : (d_v, m)  ->  (out (d_v, n), weights (m, n))
    """
    weights = softmax(K.T @ Q, axis=0)  # (m, n): column i belongs to query i
    return V @ weights, weights         # (d_v, n), (m, n)
