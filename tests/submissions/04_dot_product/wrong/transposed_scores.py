def dot_scores(Q, K):
    # one row per key: (m, n)
    return K @ Q.T
