def self_attention(X, W_q, W_k, W_v, causal=False):
    Q, K = X @ W_q, X @ W_k
    scores = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        scores = np.where(causal_mask(X.shape[0]), scores, -np.inf)
    weights = softmax(scores)
    return weights @ X, weights
