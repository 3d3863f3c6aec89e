def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    """One head at a time, in float32, heads stacked at the end."""
    X_q, X_kv = X_q.astype(np.float32), X_kv.astype(np.float32)
    d_head = W_q.shape[1] // num_heads
    outputs, weights = [], []
    for h in range(num_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        q = X_q @ W_q[:, cols].astype(np.float32)
        k = X_kv @ W_k[:, cols].astype(np.float32)
        v = X_kv @ W_v[:, cols].astype(np.float32)
        s = np.matmul(q, np.swapaxes(k, -1, -2)) / np.float32(np.sqrt(d_head))
        if mask is not None:
            s = np.where(mask, s, -np.inf)
        p = np.exp(s - s.max(axis=-1, keepdims=True))
        p = p / p.sum(axis=-1, keepdims=True)
        outputs.append(p @ v)
        weights.append(p)
    return np.concatenate(outputs, axis=-1) @ W_o.astype(np.float32), np.stack(weights, axis=-3)
