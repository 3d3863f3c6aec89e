def general_attention(Q, K, V, W):
    scores = Q @ W.T @ K.T
    e = np.exp(scores)
    weights = e / e.sum(-1, keepdims=True)
    return weights @ V, weights
