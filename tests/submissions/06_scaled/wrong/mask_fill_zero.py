def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        scores = scores * mask            # masked scores become 0
    weights = softmax(scores, axis=-1)
    return weights @ V, weights
