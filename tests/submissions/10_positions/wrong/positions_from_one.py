def sinusoidal_encoding(n, d_model):
    theta = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    angles = np.arange(1, n + 1)[:, None] * theta
    PE = np.empty((n, d_model))
    PE[:, 0::2] = np.sin(angles)
    PE[:, 1::2] = np.cos(angles)
    return PE
