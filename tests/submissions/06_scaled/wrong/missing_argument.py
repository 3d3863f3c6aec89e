def scaled_dot_product_attention(Q, K, V):
    """No `mask` parameter, as in practice problems that never mask: right whenever nothing is masked."""
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    weights = softmax(scores, axis=-1)
    return weights @ V, weights
