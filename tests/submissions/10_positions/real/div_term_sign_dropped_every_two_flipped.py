"""PyTorch-tutorial `div_term` retyped without its minus sign, and a GPT-J-style `rotate_every_two` RoPE with the sign on the wrong element.

Mistakes: `div_term = exp(arange(0, d, 2) * (log(10000) / d))` lacks the minus sign, so the positions are
multiplied by 10000 ** (2i / d) instead of divided by it; rotate_every_two builds (x_2i+1, -x_2i) instead of
(-x_2i+1, x_2i), so every pair is rotated clockwise (by -position).
Names: multiplied_not_divided, rotary_clockwise
"""


def sinusoidal_encoding(n, d_model):
    position = np.arange(n, dtype=float)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2) * (np.log(10000.0) / d_model))
    pe = np.zeros((n, d_model))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe


def _rotate_every_two(x):
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return np.stack([x2, -x1], axis=-1).reshape(x.shape)


def apply_rotary(X, positions):
    d = X.shape[-1]
    inv_freq = 1.0 / (10000 ** (np.arange(0, d, 2) / d))
    sinusoid = np.asarray(positions, dtype=float)[:, None] * inv_freq        # (n, d/2)
    sin = np.repeat(np.sin(sinusoid), 2, axis=-1)                             # (n, d)
    cos = np.repeat(np.cos(sinusoid), 2, axis=-1)
    return X * cos + _rotate_every_two(X) * sin
