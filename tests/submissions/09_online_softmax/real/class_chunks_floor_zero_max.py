"""Class-based FlashAttention practice code wrapped in the contract's function: `loop_n = N // chunk` key chunks and a running max initialised with zeros.

Mistakes: the number of chunks is `m // block_size`, so a last, shorter block of keys is never processed;
the running maximum starts at 0 instead of -inf, so a query whose scores are all far below 0 underflows to
0 / 0 = nan. The rescaling of the running sum and of the accumulator is right.
Names: max_init_zero
Localised: last_block_dropped
"""


def online_softmax_attention(Q, K, V, block_size):
    n, d = Q.shape
    loop_n = K.shape[0] // block_size
    m_i = np.zeros((n, 1))
    l_i = np.zeros((n, 1))
    acc = np.zeros((n, V.shape[1]))
    for j in range(loop_n):
        k_chunk = K[j * block_size:(j + 1) * block_size]
        v_chunk = V[j * block_size:(j + 1) * block_size]
        s = Q @ k_chunk.T / np.sqrt(d)
        m_new = np.maximum(m_i, s.max(axis=1, keepdims=True))
        p = np.exp(s - m_new)
        alpha = np.exp(m_i - m_new)
        l_i = l_i * alpha + p.sum(axis=1, keepdims=True)
        acc = acc * alpha + p @ v_chunk
        m_i = m_new
    return acc / l_i
