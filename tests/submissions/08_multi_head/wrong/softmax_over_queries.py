def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q, K, V = split_heads(X_q @ W_q, num_heads), split_heads(X_kv @ W_k, num_heads), split_heads(X_kv @ W_v, num_heads)
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])          # (..., h, n, m)
    if mask is not None:
        scores = np.where(np.expand_dims(mask, -3), scores, -np.inf)
    weights = softmax(scores, axis=-2)                                  # over the queries, not the keys
    return merge_heads(weights @ V) @ W_o, weights
