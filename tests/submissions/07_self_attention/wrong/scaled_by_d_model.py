def self_attention(X, W_q, W_k, W_v, causal=False):
    n, d = X.shape
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    scores = Q @ K.T / np.sqrt(d)
    if causal:
        scores = np.where(causal_mask(n), scores, -np.inf)
    weights = softmax(scores)
    return weights @ V, weights
