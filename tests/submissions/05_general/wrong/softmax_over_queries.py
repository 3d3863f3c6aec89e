def general_attention(Q, K, V, W):
    scores = Q @ W.T @ K.T
    weights = softmax(scores, axis=0)
    return weights @ V, weights
