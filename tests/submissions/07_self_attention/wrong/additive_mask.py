def causal_mask(n):
    """0 on and below the diagonal, -inf above: added to the scores."""
    return np.triu(np.full((n, n), -np.inf), k=1)


def self_attention(X, W_q, W_k, W_v, causal=False):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    scores = Q @ K.T / np.sqrt(K.shape[-1])
    if causal:
        scores = scores + causal_mask(X.shape[0])
    weights = softmax(scores, axis=-1)
    return weights @ V, weights
