def apply_rotary(X, positions):
    """The GPT-NeoX / LLaMA layout: x_i paired with x_{i + d/2}."""
    X = np.asarray(X, dtype=float)
    d = X.shape[-1]
    angles = np.asarray(positions)[:, None] * 10000.0 ** (-np.arange(0, d, 2) / d)
    cos = np.concatenate([np.cos(angles)] * 2, axis=-1)
    sin = np.concatenate([np.sin(angles)] * 2, axis=-1)
    rotated_half = np.concatenate([-X[..., d // 2:], X[..., :d // 2]], axis=-1)
    return X * cos + rotated_half * sin
