def general_attention(Q, K, V, W):
    scores = Q @ W.T @ K.T / np.sqrt(K.shape[-1])
    weights = softmax(scores, axis=-1)
    return weights @ V, weights
