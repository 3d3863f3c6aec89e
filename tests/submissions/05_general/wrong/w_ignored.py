def general_scores(Q, K, W):
    return Q @ K.T


def general_attention(Q, K, V, W):
    weights = softmax(Q @ K.T, axis=-1)
    return weights @ V, weights
