def apply_rotary(X, positions):
    X = np.asarray(X, dtype=float)
    d = X.shape[-1]
    inv_freq = 1.0 / 10000.0 ** (2 * np.arange(0, d, 2) / d)       # the 2 of 2i counted twice
    angles = np.asarray(positions, dtype=float)[:, None] * inv_freq  # (n, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    out = np.empty(X.shape)
    out[..., 0::2] = X[..., 0::2] * cos - X[..., 1::2] * sin
    out[..., 1::2] = X[..., 0::2] * sin + X[..., 1::2] * cos
    return out
