def split_heads(X, num_heads):
    *lead, n, d_model = X.shape
    return np.swapaxes(X.reshape(*lead, n, num_heads, d_model // num_heads), -2, -3)


def merge_heads(X):
    *lead, h, n, d = X.shape
    return np.swapaxes(X, -2, -3).reshape(*lead, n, h * d)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q = split_heads(X_q @ W_q, num_heads)
    K = split_heads(X_kv @ W_k, num_heads)
    V = split_heads(X_kv @ W_v, num_heads)
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        blocked = ~np.asarray(mask, dtype=bool)[..., None, :, :]
        scores = scores - 40.0 * blocked          # pushes blocked scores down, not to -inf
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return merge_heads(weights @ V) @ W_o, weights
