def general_scores(Q, K, W):
    # score = q^T W k for every pair
    return Q @ W @ K.T


def general_attention(Q, K, V, W):
    weights = softmax(Q @ W @ K.T, axis=-1)
    return weights @ V, weights
