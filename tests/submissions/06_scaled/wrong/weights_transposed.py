def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    p_attn = softmax(scores, axis=-1)
    return p_attn @ V, np.swapaxes(p_attn, -1, -2)
