def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(X_q @ W_q, num_heads)
    K = split_heads(X_kv @ W_k, num_heads)
    V = split_heads(X_kv @ W_v, num_heads)
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(np.asarray(mask)[..., None, :, :], scores, -np.inf)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return merge_heads(weights @ V) @ W_o, weights
