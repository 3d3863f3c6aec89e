"""TensorFlow-tutorial positional encoding (`angle_rads[np.newaxis, ...]`, cast to float32) and the Hugging Face `rotate_half` RoPE (LLaMA / GPT-NeoX code).

Mistakes: sinusoidal_encoding returns the right numbers with an extra leading batch axis, shape
(1, n, d_model), and in float32; apply_rotary pairs column i with column i + d/2 (the half-split layout of
rotate_half) instead of the interleaved pairs (2i, 2i+1). Its frequencies and positions are right.
Names: flattened_result, rotary_half_split
"""


def _get_angles(pos, i, d_model):
    angle_rates = 1 / np.power(10000, (2 * (i // 2)) / np.float32(d_model))
    return pos * angle_rates


def sinusoidal_encoding(n, d_model):
    angle_rads = _get_angles(np.arange(n)[:, np.newaxis], np.arange(d_model)[np.newaxis, :], d_model)
    angle_rads[:, 0::2] = np.sin(angle_rads[:, 0::2])
    angle_rads[:, 1::2] = np.cos(angle_rads[:, 1::2])
    pos_encoding = angle_rads[np.newaxis, ...]
    return pos_encoding.astype(np.float32)


def _rotate_half(x):
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def apply_rotary(X, positions):
    d = X.shape[-1]
    inv_freq = 1.0 / (10000 ** (np.arange(0, d, 2) / d))
    freqs = np.outer(np.asarray(positions, dtype=float), inv_freq)     # (n, d/2)
    emb = np.concatenate([freqs, freqs], axis=-1)                      # (n, d)
    return X * np.cos(emb) + _rotate_half(X) * np.sin(emb)
