def apply_rotary(X, positions):
    X = np.asarray(X, dtype=float)
    d = X.shape[-1]
    angles = np.asarray(positions)[:, None] * 10000.0 ** (-np.arange(0, d, 2) / d)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = X[..., 0::2], X[..., 1::2]
    return np.concatenate([even * cos - odd * sin, even * sin + odd * cos], axis=-1)
