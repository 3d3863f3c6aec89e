import math


def online_softmax_attention(Q, K, V, block_size):
    """One query at a time, one block of keys at a time: the online softmax on vectors."""
    n, d = Q.shape
    m, d_v = V.shape
    out = np.empty((n, d_v))
    for i in range(n):
        best = -math.inf                  # running maximum
        total = 0.0                       # running sum of exp(s - best)
        acc = np.zeros(d_v)               # running sum of exp(s - best) * v
        for start in range(0, m, block_size):
            scores = K[start:start + block_size] @ Q[i] / math.sqrt(d)     # (b,)
            new_best = max(best, float(scores.max()))
            shrink = math.exp(best - new_best)
            weights = np.exp(scores - new_best)                            # (b,)
            total = total * shrink + float(weights.sum())
            acc = acc * shrink + weights @ V[start:start + block_size]
            best = new_best
        out[i] = acc / total
    return out
