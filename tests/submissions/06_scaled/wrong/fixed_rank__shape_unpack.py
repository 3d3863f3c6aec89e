def scaled_dot_product_attention(Q, K, V, mask=None):
    batch, n, d_k = Q.shape
    m = K.shape[1]
    scores = np.zeros((batch, n, m))
    for b in range(batch):
        scores[b] = Q[b] @ K[b].T / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights
