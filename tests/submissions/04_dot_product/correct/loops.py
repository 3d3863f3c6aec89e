import math


def dot_scores(Q, K):
    """Explicit loops over every (query, key) pair."""
    n, m = Q.shape[0], K.shape[0]
    S = np.zeros((n, m))
    for i in range(n):
        for j in range(m):
            S[i, j] = sum(float(a) * float(b) for a, b in zip(Q[i], K[j]))
    return S


def dot_product_attention(Q, K, V):
    """One query at a time: scores, a hand-written stable softmax, a weighted sum of value rows."""
    S = dot_scores(Q, K)
    n, m = S.shape
    weights = np.zeros((n, m))
    out = np.zeros((n, V.shape[1]))
    for i in range(n):
        top = max(S[i])
        exps = [math.exp(s - top) for s in S[i]]
        total = sum(exps)
        for j in range(m):
            weights[i, j] = exps[j] / total
            out[i] += weights[i, j] * V[j]
    return out, weights


def dot_product_attention_columns(Q, K, V):
    """Column convention, one query column at a time."""
    d_v, n, m = V.shape[0], Q.shape[1], K.shape[1]
    weights = np.zeros((m, n))
    out = np.zeros((d_v, n))
    for i in range(n):
        scores = [float(K[:, j] @ Q[:, i]) for j in range(m)]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        for j in range(m):
            weights[j, i] = exps[j] / total
            out[:, i] += weights[j, i] * V[:, j]
    return out, weights
