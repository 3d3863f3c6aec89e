def causal_mask(n):
    # mark the future positions
    return np.triu(np.ones((n, n), dtype=bool), k=1)
