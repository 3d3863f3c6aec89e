def general_scores(Q, K, W):
    # K^T W Q as in the column-convention formula, with rows as vectors
    return K @ W @ Q.T
