def dot_scores(Q, K):
    return np.einsum("md,nd->mn", K, Q)
