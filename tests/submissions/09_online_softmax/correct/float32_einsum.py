def online_softmax_attention(Q, K, V, block_size):
    """Everything in float32, with einsum; the output is kept normalised after every block."""
    Q, K, V = (np.asarray(a, dtype=np.float32) for a in (Q, K, V))
    n, d = Q.shape
    scale = np.float32(1.0 / np.sqrt(d))
    m_run = np.full((n, 1), -np.inf, dtype=np.float32)
    l_run = np.zeros((n, 1), dtype=np.float32)
    o_run = np.zeros((n, V.shape[1]), dtype=np.float32)
    for start in range(0, K.shape[0], block_size):
        s = np.einsum("id,jd->ij", Q, K[start:start + block_size]) * scale
        m_new = np.maximum(m_run, s.max(axis=1, keepdims=True))
        p = np.exp(s - m_new)
        l_new = l_run * np.exp(m_run - m_new) + p.sum(axis=1, keepdims=True)
        # FlashAttention's Algorithm 1 keeps O normalised: undo the old division, redo it with l_new.
        o_run = (o_run * (l_run * np.exp(m_run - m_new)) + np.einsum("ij,jv->iv", p, V[start:start + block_size])) / l_new
        m_run, l_run = m_new, l_new
    return o_run.astype(np.float64)
