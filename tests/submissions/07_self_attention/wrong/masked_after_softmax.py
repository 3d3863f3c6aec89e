def self_attention(X, W_q, W_k, W_v, causal=False):
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    weights = softmax(Q @ K.T / np.sqrt(Q.shape[1]))
    if causal:
        weights = weights * causal_mask(X.shape[0])   # zero out the future
    return weights @ V, weights
