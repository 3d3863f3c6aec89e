def online_softmax_attention(Q, K, V, block_size):
    d = Q.shape[1]
    out = np.zeros((Q.shape[0], V.shape[1]))
    for start in range(0, K.shape[0], block_size):
        S = Q @ K[start:start + block_size].T / np.sqrt(d)
        E = np.exp(S - S.max(axis=1, keepdims=True))
        W = E / E.sum(axis=1, keepdims=True)          # a softmax over this block only
        out += W @ V[start:start + block_size]
    return out
