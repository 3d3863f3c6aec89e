def sinusoidal_encoding(n, d_model):
    theta = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    angles = theta[:, None] * np.arange(n)[None, :]          # (d/2, n)
    PE = np.empty((d_model, n))
    PE[0::2] = np.sin(angles)
    PE[1::2] = np.cos(angles)
    return PE
