def causal_mask(n):
    return np.tril(np.ones((n, n), dtype=bool))


def self_attention(X, W_q, W_k, W_v):
    """Written for an encoder: no `causal` parameter at all."""
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    weights = softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(K.shape[-1]), axis=-1)
    return weights @ V, weights
