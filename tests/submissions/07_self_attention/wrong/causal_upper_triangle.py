def causal_mask(n):
    return np.triu(np.ones((n, n), dtype=bool))
