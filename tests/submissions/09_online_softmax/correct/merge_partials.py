from functools import reduce


def _partial(Q, K_block, V_block):
    """(max, sum, unnormalised output) of one block on its own."""
    S = Q @ K_block.T / np.sqrt(Q.shape[1])
    M = S.max(axis=1, keepdims=True)
    P = np.exp(S - M)
    return M, P.sum(axis=1, keepdims=True), P @ V_block


def _merge(a, b):
    """Combine two partial results: both are brought to the common maximum."""
    (Ma, La, Oa), (Mb, Lb, Ob) = a, b
    M = np.maximum(Ma, Mb)
    ca, cb = np.exp(Ma - M), np.exp(Mb - M)
    return M, La * ca + Lb * cb, Oa * ca + Ob * cb


def online_softmax_attention(Q, K, V, block_size):
    parts = (_partial(Q, K[s:s + block_size], V[s:s + block_size]) for s in range(0, len(K), block_size))
    _, L, O = reduce(_merge, parts)
    return O / L
