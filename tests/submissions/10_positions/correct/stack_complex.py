def sinusoidal_encoding(n, d_model):
    """np.outer, then sines and cosines stacked on a new axis and flattened (interleaving them)."""
    angles = np.outer(np.arange(n), 1.0 / np.power(10000.0, np.arange(0, d_model, 2) / d_model))
    return np.stack([np.sin(angles), np.cos(angles)], axis=-1).reshape(n, d_model)


def apply_rotary(X, positions):
    """Each pair (x_2i, x_2i+1) as the complex number x_2i + i x_2i+1, multiplied by e^{i p theta}."""
    X = np.asarray(X, dtype=np.float64)
    d = X.shape[-1]
    z = X[..., 0::2] + 1j * X[..., 1::2]
    theta = np.exp(-np.log(10000.0) * np.arange(0, d, 2) / d)
    z = z * np.exp(1j * np.outer(positions, theta))
    return np.stack([z.real, z.imag], axis=-1).reshape(X.shape)
