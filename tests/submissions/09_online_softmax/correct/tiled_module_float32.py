class TiledAttention:
    """Key/value tiles streamed through a running (max, sum, output) state, in float32."""

    def __init__(self, block_size):
        self.block_size = block_size

    def __call__(self, Q, K, V):
        Q, K, V = (np.asarray(a, dtype=np.float32) for a in (Q, K, V))
        n, d = Q.shape
        scale = np.float32(1.0 / np.sqrt(d))
        m_i = np.full((n, 1), -np.inf, dtype=np.float32)
        l_i = np.zeros((n, 1), dtype=np.float32)
        o_i = np.zeros((n, V.shape[1]), dtype=np.float32)
        for start in range(0, K.shape[0], self.block_size):
            s = (Q @ K[start:start + self.block_size].T) * scale
            m_new = np.maximum(m_i, s.max(axis=1, keepdims=True))
            p = np.exp(s - m_new)
            alpha = np.exp(m_i - m_new)
            l_i = alpha * l_i + p.sum(axis=1, keepdims=True)
            o_i = alpha * o_i + p @ V[start:start + self.block_size]
            m_i = m_new
        return o_i / l_i


def online_softmax_attention(Q, K, V, block_size):
    return TiledAttention(block_size)(Q, K, V)
