def apply_rotary(X, positions):
    X = np.asarray(X, dtype=float)
    d = X.shape[-1]
    angles = np.asarray(positions)[:, None] * 10000.0 ** (-np.arange(0, d, 2) / d)
    cos, sin = np.cos(angles), np.sin(angles)
    out = np.empty(X.shape)
    out[..., 0::2] = X[..., 0::2] * cos + X[..., 1::2] * sin
    out[..., 1::2] = -X[..., 0::2] * sin + X[..., 1::2] * cos
    return out
