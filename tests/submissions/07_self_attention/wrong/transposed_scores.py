def self_attention(X, W_q, W_k, W_v, causal=False):
    """Keys against queries: the square matrix hides the order of the product."""
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    scores = K @ Q.T / np.sqrt(Q.shape[1])
    if causal:
        scores = np.where(causal_mask(len(X)), scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights
