def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    """The square root taken twice: the scores are divided by d_head ** 0.25."""
    Q = split_heads(X_q @ W_q, num_heads)
    K = split_heads(X_kv @ W_k, num_heads)
    V = split_heads(X_kv @ W_v, num_heads)
    d_head = Q.shape[-1]
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(np.sqrt(d_head))
    if mask is not None:
        scores = np.where(np.expand_dims(mask, -3), scores, -np.inf)
    weights = softmax(scores)
    return merge_heads(weights @ V) @ W_o, weights
