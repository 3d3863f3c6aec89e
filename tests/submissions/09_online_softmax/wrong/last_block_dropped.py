def online_softmax_attention(Q, K, V, block_size):
    n, d = Q.shape
    m = K.shape[0]
    running_max = np.full(n, -np.inf)
    running_sum = np.zeros(n)
    out = np.zeros((n, V.shape[1]))
    for b in range(m // block_size):                  # misses the shorter last block
        K_block = K[b * block_size:(b + 1) * block_size]
        V_block = V[b * block_size:(b + 1) * block_size]
        S = Q @ K_block.T / np.sqrt(d)
        new_max = np.maximum(running_max, S.max(axis=1))
        correction = np.exp(running_max - new_max)
        P = np.exp(S - new_max[:, None])
        running_sum = running_sum * correction + P.sum(axis=1)
        out = out * correction[:, None] + P @ V_block
        running_max = new_max
    return out / running_sum[:, None]
