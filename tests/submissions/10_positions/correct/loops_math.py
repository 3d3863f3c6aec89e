import math


def sinusoidal_encoding(n, d_model):
    """Python loops and the math module."""
    PE = np.zeros((n, d_model))
    for pos in range(n):
        for i in range(d_model // 2):
            angle = pos / 10000 ** (2 * i / d_model)
            PE[pos, 2 * i] = math.sin(angle)
            PE[pos, 2 * i + 1] = math.cos(angle)
    return PE


def apply_rotary(X, positions):
    """One 2 x 2 rotation matrix per pair, applied with a loop over the pairs."""
    X = np.asarray(X, dtype=float)
    d = X.shape[-1]
    out = X.copy()
    for i in range(d // 2):
        theta = 10000 ** (-2 * i / d)
        for j, p in enumerate(positions):
            c, s = math.cos(p * theta), math.sin(p * theta)
            R = np.array([[c, -s], [s, c]])
            out[..., j, 2 * i:2 * i + 2] = X[..., j, 2 * i:2 * i + 2] @ R.T
    return out
