def split_heads(X, num_heads):
    """transpose with an explicit axes tuple."""
    *lead, n, d_model = X.shape
    k = len(lead)
    Y = X.reshape(*lead, n, num_heads, d_model // num_heads)
    return Y.transpose(*range(k), k + 1, k, k + 2)


def merge_heads(X):
    *lead, h, n, d = X.shape
    k = len(lead)
    return X.transpose(*range(k), k + 1, k, k + 2).reshape(*lead, n, h * d)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    """Loops over heads after splitting; the mask is reshaped by hand."""
    Q = split_heads(X_q @ W_q, num_heads)
    K = split_heads(X_kv @ W_k, num_heads)
    V = split_heads(X_kv @ W_v, num_heads)
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(W_q.shape[1] // num_heads)
    if mask is not None:
        mask = np.asarray(mask)
        mask = mask.reshape(mask.shape[:-2] + (1,) + mask.shape[-2:])
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores)
    return merge_heads(weights @ V) @ W_o, weights
