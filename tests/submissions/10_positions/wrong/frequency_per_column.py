def sinusoidal_encoding(n, d_model):
    j = np.arange(d_model)
    angles = np.arange(n)[:, None] / 10000.0 ** (j / d_model)   # (n, d_model)
    return np.where(j % 2 == 0, np.sin(angles), np.cos(angles))
