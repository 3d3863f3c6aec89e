def online_softmax_attention(Q, K, V, block_size):
    n, d = Q.shape
    Q /= np.sqrt(d)                      # scale once, in place: changes the caller's Q
    running_max = np.full(n, -np.inf)
    running_sum = np.zeros(n)
    out = np.zeros((n, V.shape[1]))
    for start in range(0, K.shape[0], block_size):
        S = Q @ K[start:start + block_size].T
        new_max = np.maximum(running_max, S.max(axis=1))
        correction = np.exp(running_max - new_max)
        P = np.exp(S - new_max[:, None])
        running_sum = running_sum * correction + P.sum(axis=1)
        out = out * correction[:, None] + P @ V[start:start + block_size]
        running_max = new_max
    return out / running_sum[:, None]
