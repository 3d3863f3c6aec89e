def self_attention(X, W_q, W_k, W_v, causal=False):
    """The mask multiplied into the scores, as some tutorials do with 0/1 masks."""
    Q, K, V = X @ W_q, X @ W_k, X @ W_v
    scores = Q @ K.T / np.sqrt(K.shape[1])
    if causal:
        scores = scores * causal_mask(X.shape[0])
    weights = softmax(scores, axis=-1)
    return weights @ V, weights
