def scaled_dot_product_attention(Q, K, V, mask=None):
    """Softmax first, then zero the masked weights and renormalise each row: the same weights."""
    scores = np.matmul(Q, np.moveaxis(K, -1, -2)) / np.sqrt(K.shape[-1])
    weights = softmax(scores, axis=-1)
    if mask is not None:
        weights = weights * mask
        weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.matmul(weights, V), weights
