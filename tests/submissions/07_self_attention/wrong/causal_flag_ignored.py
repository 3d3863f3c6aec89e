def self_attention(X, W_q, W_k, W_v, causal=False):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    scores = Q @ K.T / np.sqrt(K.shape[1])
    weights = softmax(scores, axis=-1)
    return weights @ V, weights
