def scaled_dot_product_attention(Q, K, V, mask=None):
    """Also returns the raw scores, for plotting."""
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights, scores
