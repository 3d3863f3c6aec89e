def general_scores(Q, K, W):
    """Project the keys into the query space instead: (K W)[j] = k_j^T W, then dot with the queries."""
    return Q @ (K @ W).T            # (n, d_q) @ (d_q, m)


def general_attention(Q, K, V, W):
    weights = softmax(general_scores(Q, K, W))
    return weights @ V, weights
