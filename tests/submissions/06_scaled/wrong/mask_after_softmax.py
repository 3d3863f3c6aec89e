def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    weights = softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k), axis=-1)
    if mask is not None:
        weights = weights * mask          # zero out the masked keys
    return weights @ V, weights
