def online_softmax_attention(Q, K, V, block_size):
    n, d = Q.shape
    m = K.shape[0]
    mx, denom, out = np.full(n, -np.inf), np.zeros(n), np.zeros((n, V.shape[1]))
    start = 0
    while start + block_size <= m:                       # only whole blocks
        S = Q @ K[start:start + block_size].T / np.sqrt(d)
        new = np.maximum(mx, S.max(axis=1))
        P = np.exp(S - new[:, None])
        c = np.exp(mx - new)
        denom = denom * c + P.sum(axis=1)
        out = out * c[:, None] + P @ V[start:start + block_size]
        mx = new
        start += block_size
    return out / denom[:, None]
