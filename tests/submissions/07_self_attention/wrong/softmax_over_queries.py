def self_attention(X, W_q, W_k, W_v, causal=False):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    scores = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        scores = np.where(causal_mask(X.shape[0]), scores, -np.inf)
    weights = softmax(scores, axis=0)
    return weights @ V, weights
