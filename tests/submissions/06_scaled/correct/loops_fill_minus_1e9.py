import math


def scaled_dot_product_attention(Q, K, V, mask=None):
    """Loops over the batch axes and the queries; masked scores filled with -1e9."""
    batch = Q.shape[:-2]
    n, d_k = Q.shape[-2:]
    m = K.shape[-2]
    full_mask = np.ones(batch + (n, m), dtype=bool) if mask is None else np.broadcast_to(mask, batch + (n, m))
    out = np.zeros(batch + (n, V.shape[-1]))
    weights = np.zeros(batch + (n, m))
    for b in np.ndindex(*batch):
        for i in range(n):
            scores = [float(Q[b][i] @ K[b][j]) / math.sqrt(d_k) if full_mask[b][i, j] else -1e9
                      for j in range(m)]
            top = max(scores)
            exps = [math.exp(s - top) for s in scores]
            total = sum(exps)
            for j in range(m):
                weights[b][i, j] = exps[j] / total
                out[b][i] += weights[b][i, j] * V[b][j]
    return out, weights
