def scaled_dot_product_attention(Q, K, V, mask=None):
    """Written for (batch, heads, seq, d) tensors."""
    scores = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(K.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return weights @ V, weights
