def online_softmax_attention(Q, K, V, block_size):
    """Keeps the running log-sum-exp of the scores instead of a max and a sum."""
    n = Q.shape[0]
    lse = np.full(n, -np.inf)                                  # log sum_j exp(s_j) so far
    out = np.zeros((n, V.shape[1]))                            # normalised output so far
    for start in range(0, len(K), block_size):
        s = Q @ K[start:start + block_size].T / np.sqrt(Q.shape[1])
        block_lse = np.logaddexp.reduce(s, axis=1)             # log sum_j exp(s_j) over this block
        new_lse = np.logaddexp(lse, block_lse)
        p = np.exp(s - new_lse[:, None])                       # weights relative to everything seen so far
        out = out * np.exp(lse - new_lse)[:, None] + p @ V[start:start + block_size]
        lse = new_lse
    return out
