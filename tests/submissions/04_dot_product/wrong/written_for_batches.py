def dot_product_attention(Q, K, V):
    """Batched dot-product attention, (batch, n, d) tensors."""
    scores = np.matmul(Q, K.transpose(0, 2, 1))
    weights = softmax(scores, axis=-1)
    return np.matmul(weights, V), weights
