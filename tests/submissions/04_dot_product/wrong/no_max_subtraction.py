def dot_product_attention(Q, K, V):
    scores = Q @ K.T
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=1, keepdims=True)
    return weights @ V, weights


def dot_product_attention_columns(Q, K, V):
    scores = K.T @ Q
    weights = np.exp(scores) / np.exp(scores).sum(axis=0)
    return V @ weights, weights
