def apply_rotary(X, positions):
    d = X.shape[-1]
    angles = np.asarray(positions)[:, None] * 10000.0 ** (-np.arange(0, d, 2) / d)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = X[..., 0::2].copy(), X[..., 1::2].copy()
    X[..., 0::2] = even * cos - odd * sin                 # rotates X in place
    X[..., 1::2] = even * sin + odd * cos
    return X
