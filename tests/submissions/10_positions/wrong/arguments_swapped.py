def sinusoidal_encoding(d_model, n):
    """The body is right; the parameters are in the order of some tutorials' (d_model, max_len)."""
    theta = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    angles = np.arange(n)[:, None] * theta[None, :]          # (n, d_model / 2)
    PE = np.empty((n, d_model))
    PE[:, 0::2] = np.sin(angles)
    PE[:, 1::2] = np.cos(angles)
    return PE
