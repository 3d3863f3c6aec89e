def split_heads(X, num_heads):
    return X.reshape(*X.shape[:-1], num_heads, -1).swapaxes(-3, -2)


def merge_heads(X):
    X = X.swapaxes(-3, -2)
    return X.reshape(*X.shape[:-2], -1)


class MultiHeadAttention:
    def __init__(self, W_q, W_k, W_v, W_o, num_heads):
        self.W_q, self.W_k, self.W_v, self.W_o, self.h = W_q, W_k, W_v, W_o, num_heads

    def __call__(self, x_q, x_kv, mask=None):
        q = split_heads(x_q @ self.W_q, self.h)
        k = split_heads(x_kv @ self.W_k, self.h)
        v = split_heads(x_kv @ self.W_v, self.h)
        scores = np.einsum("...hnd,...hmd->...hnm", q, k) / np.sqrt(q.shape[-1])
        if mask is not None:
            scores = np.where(np.expand_dims(mask, -3), scores, -np.inf)
        attn = np.exp(scores - scores.max(axis=-1, keepdims=True))
        attn /= attn.sum(axis=-1, keepdims=True)
        return merge_heads(attn @ v) @ self.W_o, attn


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    return MultiHeadAttention(W_q, W_k, W_v, W_o, num_heads)(X_q, X_kv, mask)
