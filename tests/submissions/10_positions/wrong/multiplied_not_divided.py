def sinusoidal_encoding(n, d_model):
    i = np.arange(d_model // 2)
    angles = np.arange(n)[:, None] * 10000.0 ** (2 * i / d_model)
    PE = np.empty((n, d_model))
    PE[:, 0::2] = np.sin(angles)
    PE[:, 1::2] = np.cos(angles)
    return PE
