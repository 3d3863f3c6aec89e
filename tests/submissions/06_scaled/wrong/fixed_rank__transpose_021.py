def scaled_dot_product_attention(Q, K, V, mask=None):
    """Written for (batch, seq, d) tensors."""
    d_k = Q.shape[-1]
    scores = np.matmul(Q, K.transpose(0, 2, 1)) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, scores, -1e9)
    weights = softmax(scores, axis=-1)
    return np.matmul(weights, V), weights
