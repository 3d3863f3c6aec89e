def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -30.0)     # "large enough" negative number
    weights = softmax(scores, axis=-1)
    return weights @ V, weights
