def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))


def self_attention(X, W_q, W_k, W_v, causal=False):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    scores = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        scores = np.where(causal_mask(len(X)), scores, -50.0)   # "small enough"
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights
