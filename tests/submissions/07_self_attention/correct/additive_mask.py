def causal_mask(n):
    return ~np.triu(np.ones((n, n), dtype=bool), k=1)


def self_attention(X, W_q, W_k, W_v, causal=False):
    """An additive mask M (0 or -inf) as in softmax(Q K^T / sqrt(d_k) + M) V."""
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    M = np.zeros((len(X), len(X)))
    if causal:
        M[~causal_mask(len(X))] = -np.inf
    weights = softmax(Q @ K.T / np.sqrt(Q.shape[-1]) + M)
    return weights @ V, weights
