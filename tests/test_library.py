"""The book's library (book/attention): contracts that the chapters rely on
but do not show, and inputs that used to give a silently wrong answer."""
import math
import sys

import numpy as np
import pytest

import helpers

sys.path.insert(0, str(helpers.REPO / "book"))   # the working tree's library

from attention.kv_cache import grouped_query_attention  # noqa: E402
from attention.multi_head import multi_head_attention  # noqa: E402
from attention.positions import apply_rotary  # noqa: E402
from attention.scaled import scaled_dot_product_attention  # noqa: E402
from attention.self_attention import causal_mask, cross_attention  # noqa: E402
from attention.softmax import softmax  # noqa: E402
from attention import transformer as tf  # noqa: E402


# ------------------------------------------------------------ cross-entropy
def reference_cross_entropy(logits, targets):
    """Mean of logsumexp(z) - z_t over positions, in Python floats with
    math.fsum: m + log(sum exp(z - m)) per row, m = max z."""
    losses = []
    for row, t in zip(logits.reshape(-1, logits.shape[-1]).tolist(),
                      targets.ravel().tolist()):
        top = max(row)
        total = math.fsum(math.exp(z - top) for z in row)
        losses.append(top + math.log(total) - row[t])
    return math.fsum(losses) / len(losses)


def test_cross_entropy_is_finite_for_large_logits():
    # logits by hand: rows [1000, 0, -1000] and [0, -1000, 1000]
    Y = np.eye(3)[None, :2]                                  # (1, 2, 3)
    W_out = np.array([[1000.0, 0.0, -1000.0],
                      [0.0, -1000.0, 1000.0],
                      [0.0, 0.0, 0.0]])                      # (3, vocab 3)
    targets = np.array([[1, 0]])                             # (1, 2)
    # each position: logsumexp = 1000 + log(1 + e^-1000 + e^-2000), z_t = 0
    loss, _, _ = tf.cross_entropy_forward(Y, W_out, np.zeros(3), targets)
    assert loss == 1000.0

    # logits like 1000 * randn (CS336's test)
    rng = np.random.default_rng(0)
    Y = rng.normal(size=(2, 5, 4))                           # (B, n, d)
    W_out = 1000.0 * rng.normal(size=(4, 7))                 # (d, vocab)
    b_out = rng.normal(size=7)
    targets = rng.integers(0, 7, size=(2, 5))
    loss, logits, cache = tf.cross_entropy_forward(Y, W_out, b_out, targets)
    assert np.isfinite(loss)
    assert loss == pytest.approx(reference_cross_entropy(logits, targets),
                                 rel=1e-12)
    # the cache keeps softmax(logits) for the backward pass
    assert np.array_equal(cache[1], softmax(logits, axis=-1))
    dY, grads = tf.cross_entropy_backward(cache)
    assert all(np.all(np.isfinite(g)) for g in (dY, *grads.values()))


def test_cross_entropy_gradient_matches_finite_differences():
    rng = np.random.default_rng(1)
    arrays = {"Y": rng.normal(size=(2, 3, 4)),
              "W_out": rng.normal(size=(4, 5)),
              "b_out": rng.normal(size=5)}
    targets = rng.integers(0, 5, size=(2, 3))

    def loss():
        return tf.cross_entropy_forward(targets=targets, **arrays)[0]

    dY, grads = tf.cross_entropy_backward(
        tf.cross_entropy_forward(targets=targets, **arrays)[2])
    analytic = {"Y": dY, **grads}
    for name, array in arrays.items():
        numeric = np.zeros_like(array)
        for idx in np.ndindex(array.shape):
            numeric[idx] = helpers.central_difference(loss, array, idx, 1e-6)
        assert np.allclose(analytic[name], numeric, rtol=1e-6,
                           atol=1e-9), name


# ------------------------------------------------------------------- RoPE
def test_apply_rotary_refuses_positions_not_of_shape_n():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(3, 6))                              # n = d/2 = 3
    positions = np.array([4, 1, 7])                          # (n,)
    out = apply_rotary(X, positions)                         # (n, d)
    angle = positions[1] * 10000.0 ** (-2 * 2 / 6)           # row 1, i = 2
    c, s = np.cos(angle), np.sin(angle)
    assert np.allclose(out[1, 4:6], [X[1, 4] * c - X[1, 5] * s,
                                     X[1, 4] * s + X[1, 5] * c])
    # (1, n) used to broadcast against the d/2 frequencies: wrong, no error
    for bad in (positions[None], positions[:2], np.arange(6).reshape(2, 3)):
        with pytest.raises(ValueError) as error:
            apply_rotary(X, bad)
        message = str(error.value)
        assert "(3,)" in message and str(bad.shape) in message
        assert "\n" not in message
    with pytest.raises(ValueError, match=r"\(2, 3\)"):
        apply_rotary(np.zeros((4, 3, 6)), positions[None].repeat(2, 0))


def test_apply_rotary_refuses_odd_d():
    with pytest.raises(ValueError) as error:
        apply_rotary(np.zeros((3, 5)), np.arange(3))
    message = str(error.value)
    assert "even" in message and "(3, 5)" in message and "\n" not in message


# ------------------------------------------------------------------ masks
def weights_q(rng, d=4, h=2):
    return [rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(4)]


def mask_takers(rng, B=2, n=3, d=4, h=2):
    """Every library function that takes a mask, as f(mask)."""
    X = rng.normal(size=(B, n, d))                           # (B, n, d)
    W_q, W_k, W_v, W_o = weights_q(rng, d, h)
    p = {"W_q": W_q, "W_k": W_k, "W_v": W_v, "W_o": W_o}
    Q, K, V = X @ W_q, X @ W_k, X @ W_v                      # (B, n, d)
    return {
        "scaled_dot_product_attention":
            lambda mask: scaled_dot_product_attention(Q, K, V, mask=mask),
        "cross_attention":
            lambda mask: cross_attention(X, X, W_q, W_k, W_v, mask=mask),
        "multi_head_attention": lambda mask: multi_head_attention(
            X, X, W_q, W_k, W_v, W_o, h, mask=mask),
        "grouped_query_attention": lambda mask: grouped_query_attention(
            X, X, W_q, W_k, W_v, W_o, h, h, mask=mask),
        "attention_forward":
            lambda mask: tf.attention_forward(X, X, p, h, mask=mask),
    }


@pytest.mark.parametrize("name", list(mask_takers(np.random.default_rng())))
def test_non_boolean_masks_are_refused(name):
    f = mask_takers(np.random.default_rng(3))[name]
    allowed = causal_mask(3)                                 # (n, n) bool
    additive = np.where(allowed, 0.0, -np.inf)               # 0 / -inf
    # cast to bool, the additive mask used to be inverted
    for mask, dtype in ((additive, "float64"), (allowed.astype(int), "int")):
        with pytest.raises(TypeError) as error:
            f(mask)
        message = str(error.value)
        assert dtype in message and "boolean" in message
        assert "True = this query may attend" in message
    f(allowed)
    f(allowed.tolist())                      # a nested list of bools is fine


def test_boolean_mask_equals_the_additive_mask():
    rng = np.random.default_rng(4)
    Q, K, V = (rng.normal(size=(4, 3)) for _ in range(3))
    allowed = causal_mask(4)                                 # (n, n)
    S = Q @ K.T / np.sqrt(3)                                 # (n, n)
    _, weights = scaled_dot_product_attention(Q, K, V, mask=allowed)
    assert np.allclose(weights, softmax(S + np.where(allowed, 0.0, -np.inf)))
    assert np.all(weights[~allowed] == 0.0)


def test_multi_head_masks_with_batch_equal_to_heads():
    rng = np.random.default_rng(5)
    B = h = 2
    n, d = 3, 4
    X = rng.normal(size=(B, n, d))                           # (B, n, d)
    W_q, W_k, W_v, W_o = weights_q(rng, d, h)
    p = {"W_q": W_q, "W_k": W_k, "W_v": W_v, "W_o": W_o}
    per_sequence = np.stack([causal_mask(n), np.ones((n, n), bool)])
    # (B, n, m): sequence b gets mask b, in every head
    out, weights = multi_head_attention(X, X, W_q, W_k, W_v, W_o, h,
                                        mask=per_sequence)
    assert out.shape == (B, n, d) and weights.shape == (B, h, n, n)
    for b in range(B):
        out_b, weights_b = multi_head_attention(
            X[b], X[b], W_q, W_k, W_v, W_o, h, mask=per_sequence[b])
        assert np.allclose(out[b], out_b)
        assert np.allclose(weights[b], weights_b)
    gqa, _ = grouped_query_attention(X, X, W_q, W_k, W_v, W_o, h, h,
                                     mask=per_sequence)
    assert np.allclose(gqa, out)
    # attention_forward takes the same masks: the head axis is added inside
    out_tf, weights_tf, _ = tf.attention_forward(
        X, X, p, h, mask=per_sequence)
    assert np.allclose(out_tf, out) and np.allclose(weights_tf, weights)
    for mask in (causal_mask(n), per_sequence[:, :1]):      # (n, m), (B, 1, m)
        out, weights = multi_head_attention(X, X, W_q, W_k, W_v, W_o, h,
                                            mask=mask)
        assert out.shape == (B, n, d) and weights.shape == (B, h, n, n)

    # a per-head mask (B, h, n, m) used to give an output (B, h, n, d)
    per_head = np.ones((B, h, n, n), bool)
    with pytest.raises(ValueError, match=r"\(2, 2, 3, 3\).*\(2, 3, 3\)"):
        multi_head_attention(X, X, W_q, W_k, W_v, W_o, h, mask=per_head)
    with pytest.raises(ValueError, match=r"\(2, 2, 3, 3\).*\(2, 3, 3\)"):
        grouped_query_attention(X, X, W_q, W_k, W_v, W_o, h, h,
                                mask=per_head)
    with pytest.raises(ValueError, match="without a head axis"):
        multi_head_attention(X[0], X[0], W_q, W_k, W_v, W_o, h,
                             mask=per_sequence)   # more batch axes than X
    # a mask given with a head axis, as the heads' own: refused, not misread
    with pytest.raises(ValueError, match=r"\(2, 1, 3, 3\).*\(2, 3, 3\)"):
        tf.attention_forward(X, X, p, h, mask=per_sequence[:, None])


def test_a_mask_never_enlarges_the_output():
    """A mask with more batch axes than the inputs used to broadcast the
    scores, so that the output gained axes the caller never asked for."""
    rng = np.random.default_rng(6)
    Q, K, V = (rng.normal(size=(2, k, 4)) for k in (3, 4, 4))  # (B, n|m, d)
    # (B, 1, 1, m), a padding mask in the layout of another library
    mask = (np.arange(4) < np.array([4, 2])[:, None])[:, None, None, :]
    with pytest.raises(ValueError, match=r"\(2, 1, 1, 4\).*\(2, 3, 4\)"):
        scaled_dot_product_attention(Q, K, V, mask=mask)
    out, _ = scaled_dot_product_attention(Q, K, V, mask=mask[:, 0])
    assert out.shape == (2, 3, 4)                   # (B, 1, m): fine


def test_targets_outside_the_vocabulary_are_refused():
    rng = np.random.default_rng(7)
    Y, W_out, b_out = rng.normal(size=(1, 2, 3)), np.eye(3), np.zeros(3)
    for targets in ([[0, -1]], [[0, 3]]):           # -1 would wrap to class 2
        with pytest.raises(ValueError, match="0 .. 2"):
            tf.cross_entropy_forward(Y, W_out, b_out, np.array(targets))
