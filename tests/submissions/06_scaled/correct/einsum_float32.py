def scaled_dot_product_attention(Q, K, V, mask=None):
    """einsum over any number of batch axes, in float32."""
    Q, K, V = (np.asarray(a, dtype=np.float32) for a in (Q, K, V))
    scores = np.einsum("...nd,...md->...nm", Q, K) / np.float32(np.sqrt(Q.shape[-1]))
    if mask is not None:
        scores = np.where(mask, scores, np.float32(-np.inf))
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    weights = e / e.sum(axis=-1, keepdims=True)
    return np.einsum("...nm,...mv->...nv", weights, V), weights
