def self_attention(X, W_q, W_k, W_v, causal=False):
    Q = X @ W_q
    K = X @ W_q
    V = X @ W_v
    scores = Q @ K.T / np.sqrt(Q.shape[1])
    if causal:
        scores = np.where(causal_mask(len(X)), scores, -np.inf)
    weights = softmax(scores)
    return weights @ V, weights
