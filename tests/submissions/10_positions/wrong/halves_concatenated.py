def sinusoidal_encoding(n, d_model):
    theta = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    angles = np.arange(n)[:, None] * theta
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
