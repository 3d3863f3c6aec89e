def sinusoidal_encoding(n, d_model):
    theta = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    angles = np.arange(n)[:, None] * theta
    PE = np.empty((n, d_model))
    PE[:, 0::2] = np.cos(angles)
    PE[:, 1::2] = np.sin(angles)
    return PE
