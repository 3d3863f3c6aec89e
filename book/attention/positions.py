"""Positional information for attention (chapter 10), row convention.

Self-attention is permutation-equivariant (chapter 7), so the order of the
tokens must be written into the vectors.  Two ways are implemented here:

* ``sinusoidal_encoding``: the fixed encodings that the Transformer adds to
  its input embeddings (Vaswani et al. 2017, Sec. 3.5);
* ``apply_rotary``: rotary position embedding, RoPE (Su et al. 2021,
  RoFormer, Sec. 3.2-3.4), which rotates queries and keys so that their dot
  product depends only on the offset between the two positions.

Conventions (the contract of exercise 10): positions and dimension indices
are 0-based; ``d_model`` (resp. ``d``) must be even; results are float64.
"""
import numpy as np

BASE = 10000.0


def frequencies(d):
    """theta_i = BASE ** (-2 i / d) for i = 0 .. d/2 - 1; returns (d // 2,)."""
    if d % 2:
        raise ValueError(f"the dimension must be even, got {d}")
    return BASE ** (-np.arange(0, d, 2) / d)          # (d/2,)


def sinusoidal_encoding(n, d_model):
    """Sinusoidal positional encodings (Vaswani et al. 2017, Sec. 3.5).

    PE[pos, 2i]   = sin(pos / 10000 ** (2i / d_model))
    PE[pos, 2i+1] = cos(pos / 10000 ** (2i / d_model))

    with 0-based pos = 0 .. n-1 and i = 0 .. d_model/2 - 1: even columns
    hold sines, odd columns cosines, and columns 2i and 2i+1 share the
    frequency 1 / 10000 ** (2i / d_model).
    n : number of positions; d_model : even width
    returns PE : (n, d_model), float64; row pos is added to the embedding
    of the token at position pos
    """
    angles = np.arange(n)[:, None] * frequencies(d_model)    # (n, d/2)
    PE = np.empty((n, d_model))
    PE[:, 0::2] = np.sin(angles)                             # (n, d/2)
    PE[:, 1::2] = np.cos(angles)                             # (n, d/2)
    return PE


def offset_matrix(k, d_model):
    """The linear map M_k with PE[pos + k] = PE[pos] @ M_k for every pos.

    Block diagonal: one 2 x 2 rotation by k * theta_i per pair (2i, 2i+1)
    (the reason given by Vaswani et al. 2017, Sec. 3.5, for the choice).
    returns (d_model, d_model)
    """
    M = np.zeros((d_model, d_model))
    for i, theta in enumerate(frequencies(d_model)):
        c, s = np.cos(k * theta), np.sin(k * theta)
        # row vector [sin a, cos a] @ [[c, -s], [s, c]] = [sin(a+b), cos(a+b)]
        M[2 * i:2 * i + 2, 2 * i:2 * i + 2] = [[c, -s], [s, c]]
    return M


def apply_rotary(X, positions):
    """Rotary position embedding, RoPE (Su et al. 2021, Eq. 34, Sec. 3.4.2).

    Pairs of columns (2i, 2i+1), interleaved as in RoFormer, are rotated
    counter-clockwise by the angle positions[j] * theta_i, with
    theta_i = 10000 ** (-2i / d), i = 0 .. d/2 - 1:

    out[..., j, 2i]   = x_2i cos(p_j theta_i) - x_2i+1 sin(p_j theta_i)
    out[..., j, 2i+1] = x_2i sin(p_j theta_i) + x_2i+1 cos(p_j theta_i)

    where x = X[..., j, :] and p_j = positions[j].  Applied to queries and
    keys (never to values), it makes q_t . k_s depend on s - t only.
    X : (..., n, d) with d even; positions : int array (n,)
    returns (..., n, d), float64; X itself is not modified
    Any other shape of positions, e.g. (1, n), which would broadcast
    against the d/2 frequencies, or an odd d is refused (ValueError).
    """
    X = np.asarray(X, dtype=float)
    positions = np.asarray(positions)
    if X.ndim < 2 or X.shape[-1] % 2:
        raise ValueError(f"X must have shape (..., n, d) with d even, "
                         f"got shape {X.shape}")
    if positions.shape != X.shape[-2:-1]:
        raise ValueError(f"positions must have shape (n,) = "
                         f"{X.shape[-2:-1]} for X of shape {X.shape}, got "
                         f"shape {positions.shape}")
    angles = positions[:, None] * frequencies(X.shape[-1])   # (n, d/2)
    cos, sin = np.cos(angles), np.sin(angles)                # (n, d/2)
    even, odd = X[..., 0::2], X[..., 1::2]                   # (..., n, d/2)
    out = np.empty(X.shape)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out
