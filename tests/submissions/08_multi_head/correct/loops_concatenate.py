def split_heads(X, num_heads):
    """Column slices stacked on a new axis."""
    d_head = X.shape[-1] // num_heads
    return np.stack([X[..., h * d_head:(h + 1) * d_head] for h in range(num_heads)], axis=-3)


def merge_heads(X):
    """Concat(head_1, ..., head_h) along the feature axis."""
    return np.concatenate([X[..., h, :, :] for h in range(X.shape[-3])], axis=-1)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    """An explicit loop over the heads, each with its own column slice of the projections."""
    d_model = W_q.shape[0]
    d_head = d_model // num_heads
    heads, maps = [], []
    for h in range(num_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        Q = X_q @ W_q[:, cols]                                  # (..., n, d_head)
        K = X_kv @ W_k[:, cols]                                 # (..., m, d_head)
        V = X_kv @ W_v[:, cols]
        scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_head)   # (..., n, m)
        if mask is not None:
            scores = np.where(mask, scores, -1e9)
        weights = softmax(scores, axis=-1)
        heads.append(weights @ V)
        maps.append(weights)
    return np.concatenate(heads, axis=-1) @ W_o, np.stack(maps, axis=-3)
