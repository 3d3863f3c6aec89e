def online_softmax_attention(Q, K, V, block_size):
    n, d = Q.shape
    m_i = np.full(n, -np.inf)
    l_i = np.zeros(n)
    acc = np.zeros((V.shape[1], n))                     # accumulated as columns
    for j in range(0, K.shape[0], block_size):
        S = Q @ K[j:j + block_size].T / np.sqrt(d)
        m_new = np.maximum(m_i, S.max(axis=1))
        P = np.exp(S - m_new[:, None])
        scale = np.exp(m_i - m_new)
        l_i = l_i * scale + P.sum(axis=1)
        acc = acc * scale + V[j:j + block_size].T @ P.T
        m_i = m_new
    return acc / l_i
