"""Tiled draft written for self-attention (CS336-style FlashAttention forward): key tiles counted from the number of queries, scores divided by d.

Mistakes: the number of key tiles is computed from the query length n, so when m > n the keys past the
last of those tiles are never seen; the scores are divided by d instead of sqrt(d). The online update itself
(running max from -inf, rescaled sum and accumulator, final division) is right.
Names: -
Localised: last_block_dropped, scale_by_d
"""


def online_softmax_attention(Q, K, V, block_size):
    n, d = Q.shape
    num_tiles = (n + block_size - 1) // block_size
    row_max = np.full(n, -np.inf)
    row_sum = np.zeros(n)
    O = np.zeros((n, V.shape[1]))
    for j in range(num_tiles):
        K_j = K[j * block_size:(j + 1) * block_size]
        V_j = V[j * block_size:(j + 1) * block_size]
        if K_j.shape[0] == 0:
            break
        S = Q @ K_j.T / d
        new_max = np.maximum(row_max, S.max(axis=1))
        P = np.exp(S - new_max[:, None])
        scale = np.exp(row_max - new_max)
        row_sum = row_sum * scale + P.sum(axis=1)
        O = O * scale[:, None] + P @ V_j
        row_max = new_max
    return O / row_sum[:, None]
