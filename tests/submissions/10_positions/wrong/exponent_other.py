def sinusoidal_encoding(n, d_model):
    """Pairs share a frequency, but the even column index is doubled: 10000 ** (-4i / d_model)."""
    two_i = np.arange(0, d_model, 2)
    angles = np.arange(n)[:, None] * np.exp(-np.log(10000.0) * 2 * two_i / d_model)   # (n, d_model / 2)
    PE = np.empty((n, d_model))
    PE[:, 0::2], PE[:, 1::2] = np.sin(angles), np.cos(angles)
    return PE
