"""tensor2tensor / fairseq timing signal: sines in the first half, cosines in the second, timescales spaced by log(10000) / (d/2 - 1); RoPE results stored as two halves.

Mistakes: sinusoidal_encoding concatenates all sines, then all cosines, instead of interleaving them; its
frequencies are 10000 ** (-i / (d/2 - 1)) instead of 10000 ** (-2i / d) (the timing-signal spacing);
apply_rotary rotates the interleaved pairs (2i, 2i+1) correctly but writes the results back as two halves
(rotated evens, then rotated odds).
Names: rotary_output_not_interleaved
Localised: halves_concatenated
"""


def sinusoidal_encoding(n, d_model):
    num_timescales = d_model // 2
    log_timescale_increment = np.log(10000.0) / max(num_timescales - 1, 1)
    inv_timescales = np.exp(np.arange(num_timescales) * -log_timescale_increment)
    scaled_time = np.arange(n, dtype=float)[:, None] * inv_timescales[None, :]
    return np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)


def apply_rotary(X, positions):
    d = X.shape[-1]
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    angles = np.asarray(positions, dtype=float)[:, None] * theta
    x1, x2 = X[..., 0::2], X[..., 1::2]
    rotated_1 = x1 * np.cos(angles) - x2 * np.sin(angles)
    rotated_2 = x1 * np.sin(angles) + x2 * np.cos(angles)
    return np.concatenate([rotated_1, rotated_2], axis=-1)
