import math


def general_scores(Q, K, W):
    """Explicit loops: S[i, j] = sum_a sum_b K[j, a] W[a, b] Q[i, b]."""
    n, m = Q.shape[0], K.shape[0]
    d_k, d_q = W.shape
    S = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            S[i, j] = sum(K[j, a] * W[a, b] * Q[i, b] for a in range(d_k) for b in range(d_q))
    return S


def general_attention(Q, K, V, W):
    S = general_scores(Q, K, W)
    weights = np.zeros_like(S)
    for i in range(S.shape[0]):
        top = max(S[i])
        exps = [math.exp(s - top) for s in S[i]]
        weights[i] = [e / sum(exps) for e in exps]
    return weights @ V, weights
