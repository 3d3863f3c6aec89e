class ScaledDotProductAttention:
    """The attention layer of a Transformer tutorial, adapted to NumPy (float32)."""

    def __init__(self, d_k):
        self.temperature = np.float32(np.sqrt(d_k))

    def forward(self, q, k, v, mask=None):
        attn = np.matmul(q / self.temperature, k.swapaxes(-2, -1))
        if mask is not None:
            attn = np.where(mask == 0, np.float32(-1e9), attn)
        attn = attn - attn.max(axis=-1, keepdims=True)
        attn = np.exp(attn)
        attn = attn / attn.sum(axis=-1, keepdims=True)
        return np.matmul(attn, v), attn


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q, K, V = (np.asarray(a, dtype=np.float32) for a in (Q, K, V))
    return ScaledDotProductAttention(Q.shape[-1]).forward(Q, K, V, mask)
