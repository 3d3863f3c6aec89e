def self_attention(X, W_q, W_k, W_v, causal=False):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    scores = Q @ K.T
    if causal:
        scores[~causal_mask(len(X))] = -np.inf
    weights = softmax(scores)
    return weights @ V, weights
