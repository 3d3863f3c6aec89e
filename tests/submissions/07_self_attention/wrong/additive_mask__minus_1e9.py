def causal_mask(n):
    return (1.0 - np.tril(np.ones((n, n)))) * -1e9
