def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    """Scaled by the square root of the number of heads."""
    Q = split_heads(X_q @ W_q, num_heads)
    K = split_heads(X_kv @ W_k, num_heads)
    V = split_heads(X_kv @ W_v, num_heads)
    scores = np.einsum("...qd,...kd->...qk", Q, K) / num_heads ** 0.5
    if mask is not None:
        scores = np.where(np.expand_dims(mask, -3), scores, -np.inf)
    weights = softmax(scores)
    return merge_heads(weights @ V) @ W_o, weights
