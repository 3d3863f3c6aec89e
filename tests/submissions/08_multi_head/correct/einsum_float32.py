def split_heads(X, num_heads):
    *lead, n, d_model = X.shape
    return np.einsum("...nhd->...hnd", X.reshape(*lead, n, num_heads, d_model // num_heads))


def merge_heads(X):
    *lead, h, n, d = X.shape
    return np.einsum("...hnd->...nhd", X).reshape(*lead, n, h * d)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    """einsum in float32, with the mask added as 0 / -inf."""
    X_q, X_kv = X_q.astype(np.float32), X_kv.astype(np.float32)
    Q = split_heads(X_q @ W_q.astype(np.float32), num_heads)
    K = split_heads(X_kv @ W_k.astype(np.float32), num_heads)
    V = split_heads(X_kv @ W_v.astype(np.float32), num_heads)
    scores = np.einsum("...hnd,...hmd->...hnm", Q, K) / np.float32(np.sqrt(Q.shape[-1]))
    if mask is not None:
        additive = np.where(np.asarray(mask), 0.0, -np.inf).astype(np.float32)
        scores = scores + np.expand_dims(additive, -3)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    out = np.einsum("...hnm,...hmd->...hnd", weights, V)
    return merge_heads(out) @ W_o.astype(np.float32), weights
