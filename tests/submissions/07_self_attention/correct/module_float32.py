def causal_mask(n):
    i, j = np.indices((n, n))
    return j <= i


class CausalSelfAttention:
    """One attention head, float32, the future filled with -1e9 before the softmax."""

    def __init__(self, W_q, W_k, W_v):
        self.W_q, self.W_k, self.W_v = (W.astype(np.float32) for W in (W_q, W_k, W_v))

    def __call__(self, x, causal=False):
        x = x.astype(np.float32)
        q, k, v = x @ self.W_q, x @ self.W_k, x @ self.W_v
        att = (q @ k.T) * (1.0 / np.sqrt(k.shape[-1]))
        if causal:
            att = np.where(causal_mask(len(x)), att, np.float32(-1e9))
        att = np.exp(att - att.max(axis=-1, keepdims=True))
        att = att / att.sum(axis=-1, keepdims=True)
        return att @ v, att


def self_attention(X, W_q, W_k, W_v, causal=False):
    return CausalSelfAttention(W_q, W_k, W_v)(X, causal)
