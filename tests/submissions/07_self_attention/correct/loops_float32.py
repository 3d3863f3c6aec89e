import math


def causal_mask(n):
    """Explicit loops."""
    mask = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in range(n):
            mask[i, j] = j <= i
    return mask


def self_attention(X, W_q, W_k, W_v, causal=False):
    """One query at a time, in float32; the causal case only ever looks at keys 0..i."""
    X = np.asarray(X, dtype=np.float32)
    Q = X @ W_q.astype(np.float32)
    K = X @ W_k.astype(np.float32)
    V = X @ W_v.astype(np.float32)
    n, d_k = Q.shape
    weights = np.zeros((n, n), dtype=np.float32)
    for i in range(n):
        visible = range(i + 1) if causal else range(n)
        scores = [float(Q[i] @ K[j]) / math.sqrt(d_k) for j in visible]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        for j, e in zip(visible, exps):
            weights[i, j] = e / sum(exps)
    return weights @ V, weights
