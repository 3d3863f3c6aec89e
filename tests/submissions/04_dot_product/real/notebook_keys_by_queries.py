"""Notebook "self masked attention" written as exp(K Q^T) normalised per column, weights kept as (m, n) (notebook pages).

Mistakes: dot_scores computes K Q^T, shape (m, n), one row per key; the attention normalises exp(K Q^T) down
its columns without subtracting the maximum, so large scores overflow to nan; the weights are returned in
that (m, n) layout, transposed (the output itself, weights.T @ V, is right); the column version normalises
K^T Q down its columns correctly but also without the maximum.
Names: no_max_subtraction, transposed_scores, weights_transposed
"""


def dot_scores(Q, K):
    return K @ Q.T


def dot_product_attention(Q, K, V):
    E = np.exp(dot_scores(Q, K))                    # (m, n)
    A = E / E.sum(axis=0, keepdims=True)            # each column (one query) sums to 1
    return A.T @ V, A


def dot_product_attention_columns(Q, K, V):
    E = np.exp(K.T @ Q)                             # (m, n)
    A = E / E.sum(axis=0, keepdims=True)
    return V @ A, A
