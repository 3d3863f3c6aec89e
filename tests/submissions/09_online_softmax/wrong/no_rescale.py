def online_softmax_attention(Q, K, V, block_size):
    n, d = Q.shape
    running_max = np.full(n, -np.inf)
    running_sum = np.zeros(n)
    out = np.zeros((n, V.shape[1]))
    for start in range(0, K.shape[0], block_size):
        S = Q @ K[start:start + block_size].T / np.sqrt(d)
        running_max = np.maximum(running_max, S.max(axis=1))   # max updated ...
        P = np.exp(S - running_max[:, None])
        running_sum += P.sum(axis=1)                           # ... but the old sums are not rescaled
        out += P @ V[start:start + block_size]
    return out / running_sum[:, None]
