def general_scores(Q, K, W):
    return np.einsum("nd,de,me->nm", Q, W, K)
