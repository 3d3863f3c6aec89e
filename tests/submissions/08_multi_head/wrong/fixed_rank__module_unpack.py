class MultiHeadAttention:
    """A batched multi-head attention layer, as in a framework tutorial."""

    def __init__(self, W_q, W_k, W_v, W_o, num_heads):
        self.W_q, self.W_k, self.W_v, self.W_o = W_q, W_k, W_v, W_o
        self.h = num_heads
        self.d_k = W_q.shape[0] // num_heads

    def _heads(self, x):
        b, t, _ = x.shape
        return x.reshape(b, t, self.h, self.d_k).transpose(0, 2, 1, 3)

    def __call__(self, x_q, x_kv, mask=None):
        b, n, _ = x_q.shape
        q, k, v = self._heads(x_q @ self.W_q), self._heads(x_kv @ self.W_k), self._heads(x_kv @ self.W_v)
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(self.d_k)
        if mask is not None:
            scores = np.where(np.asarray(mask)[..., None, :, :], scores, -1e9)
        attn = softmax(scores, axis=-1)
        out = (attn @ v).transpose(0, 2, 1, 3).reshape(b, n, -1)
        return out @ self.W_o, attn


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    return MultiHeadAttention(W_q, W_k, W_v, W_o, num_heads)(X_q, X_kv, mask)
