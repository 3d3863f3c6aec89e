"""Recurrent encoder-decoders in NumPy: the RNN encoder, the fixed-length
context, and the toy translation model of chapter 3 (with or without additive
attention).

Row convention: one time step per row.  ``rnn_encoder`` accepts any leading
batch dimensions, ``X (..., T, d_x) -> H (..., T, d_h)``.

The toy model follows Bahdanau, Cho and Bengio (2015) in miniature, with
plain tanh units instead of gated ones and a linear output layer instead of a
maxout layer:

* encoder: a bidirectional RNN over one-hot tokens; annotation h_j = [forward
  state j ; backward state j] (B, T_x, 2 d_h)
* s_0 = tanh(c_0 W_init + b_init) with c_0 = [last forward state ; first
  backward state]
* context c_i: additive attention over the annotations with s_{i-1}
  ("RNNsearch"), or c_i = c_0 at every step, the fixed-length vector
  ("RNNencdec")
* s_i = tanh(onehot(y_{i-1}) W_ys + s_{i-1} W_ss + c_i W_cs + b_s)
* p(y_i | ...) = softmax(s_i W_os + c_i W_oc + b_o)

Training uses teacher forcing (the true previous token is fed in), evaluation
greedy decoding (the model's own previous prediction).  Everything is float64
and seeded, so a run is reproducible.
"""
import numpy as np

from . import additive
from .softmax import softmax


def rnn_encoder(X, W_xh, W_hh, b_h, h0=None):
    """Elman RNN over the rows of X: H[t] = tanh(X[t] @ W_xh + H[t-1] @ W_hh +
    b_h), H[-1] = h0.

    X : (..., T, d_x), W_xh : (d_x, d_h), W_hh : (d_h, d_h), b_h : (d_h,), h0 :
        (..., d_h) or None (zeros)
    returns H : (..., T, d_h), one state per input step (h0 itself is not
    returned)
    """
    X = np.asarray(X, dtype=float)
    h = (np.zeros(X.shape[:-2] + (W_hh.shape[0],)) if h0 is None
         else np.asarray(h0, dtype=float))
    # (..., T, d_h): the input part of every step at once
    inputs = X @ W_xh + b_h
    H = np.empty(inputs.shape)
    for t in range(X.shape[-2]):  # the recurrence itself is sequential
        h = np.tanh(inputs[..., t, :] + h @ W_hh)
        H[..., t, :] = h
    return H


def fixed_context(H):
    """The one vector a plain encoder-decoder gives its decoder: the last state
    H[-1] (Cho et al. 2014).

    H : (..., T, d_h) -> (..., d_h)
    """
    return H[..., -1, :]


# ---------------------------------------------------------------- the toy task
def reversal_batch(rng, batch, length, vocab=10):
    """Random digit sequences X (batch, length) and their reversals Y (the
    targets).
    """
    X = rng.integers(0, vocab, size=(batch, length))
    return X, X[:, ::-1].copy()


# ------------------------------------------------------------------- the model
def init_params(rng, vocab=10, d_h=16, d_s=48, d_a=32, attention=True,
                out_vocab=None):
    """Small random weights (scaled by 1/sqrt(fan-in)), zero biases.

    ``vocab`` source tokens; ``out_vocab`` target tokens (default: the same
    as the source, the digits of the toy) plus a start token, whose index is
    ``out_vocab``.
    """
    def w(*shape):
        return rng.normal(scale=1.0 / np.sqrt(shape[0]), size=shape)
    d_c = 2 * d_h
    n_out = vocab if out_vocab is None else out_vocab
    p = {"Wx_f": w(vocab, d_h), "Wh_f": w(d_h, d_h), "b_f": np.zeros(d_h),
         "Wx_b": w(vocab, d_h), "Wh_b": w(d_h, d_h), "b_b": np.zeros(d_h),
         "W_init": w(d_c, d_s), "b_init": np.zeros(d_s),
         "W_ys": w(n_out + 1, d_s), "W_ss": w(d_s, d_s), "W_cs": w(d_c, d_s),
         "b_s": np.zeros(d_s),
         "W_os": w(d_s, n_out), "W_oc": w(d_c, n_out), "b_o": np.zeros(n_out)}
    if attention:
        p.update({"W_a": w(d_s, d_a).T.copy(), "U_a": w(d_c, d_a).T.copy(),
                  "v_a": w(d_a)})
    return p


def _onehot(tokens, size):
    return np.eye(size)[tokens]                            # (..., size)


def _encode(p, X):
    """Bidirectional encoder: annotations H (B, T, 2 d_h) and c_0 (B, 2 d_h).
    """
    vocab = p["Wx_f"].shape[0]
    Xo = _onehot(X, vocab)  # (B, T, vocab)
    Hf = rnn_encoder(Xo, p["Wx_f"], p["Wh_f"], p["b_f"])  # (B, T, d_h)
    # (B, T, d_h), read right to left
    Hb = rnn_encoder(Xo[:, ::-1], p["Wx_b"], p["Wh_b"], p["b_b"])[:, ::-1]
    H = np.concatenate([Hf, Hb], axis=-1)  # (B, T, 2 d_h)
    # (B, 2 d_h): both directions' last states
    c0 = np.concatenate([Hf[:, -1], Hb[:, 0]], axis=-1)
    return Xo, Hf, Hb, H, c0


def _decoder_step(p, y_prev, s_prev, H, HU, c0):
    """One decoder step: returns logits (B, vocab), s (B, d_s), c (B, d_c),
    alpha or None, attention cache.
    """
    if "W_a" in p:
        c, alpha, cache = additive.batch_forward(s_prev, H, HU, p["W_a"],
                                                 p["v_a"])
    else:
        c, alpha, cache = c0, None, None
    s = np.tanh(p["W_ys"][y_prev] + s_prev @ p["W_ss"] + c @ p["W_cs"]
                + p["b_s"])
    return s @ p["W_os"] + c @ p["W_oc"] + p["b_o"], s, c, alpha, cache


def loss_and_grads(p, X, Y):
    """Mean cross-entropy of the targets Y (B, T_y) under teacher forcing, and
    its gradient for every weight.
    """
    B, T_y = Y.shape
    vocab = p["W_os"].shape[1]
    Xo, Hf, Hb, H, c0 = _encode(p, X)
    # (B, T_x, d_a), once per batch
    HU = H @ p["U_a"].T if "W_a" in p else None
    s = np.tanh(c0 @ p["W_init"] + p["b_init"])  # (B, d_s) s_0
    # start token, then y_1..y_{T-1}
    Y_in = np.concatenate([np.full((B, 1), vocab), Y[:, :-1]], axis=1)
    states, steps, loss = [s], [], 0.0
    for i in range(T_y):
        logits, s, c, alpha, cache = _decoder_step(p, Y_in[:, i], s, H, HU, c0)
        prob = softmax(logits)                             # (B, vocab)
        loss -= np.log(prob[np.arange(B), Y[:, i]]).sum()
        states.append(s)
        steps.append((prob, c, cache))
    loss /= B * T_y

    g = {k: np.zeros_like(v) for k, v in p.items()}
    dH, dc0 = np.zeros_like(H), np.zeros_like(c0)
    dHU = np.zeros_like(HU) if HU is not None else None
    ds = np.zeros_like(s)
    for i in reversed(range(T_y)):
        prob, c, cache = steps[i]
        s, s_prev = states[i + 1], states[i]
        dlogits = prob.copy()
        dlogits[np.arange(B), Y[:, i]] -= 1.0
        dlogits /= B * T_y                                 # (B, vocab)
        g["W_os"] += s.T @ dlogits
        g["W_oc"] += c.T @ dlogits
        g["b_o"] += dlogits.sum(axis=0)
        ds = ds + dlogits @ p["W_os"].T
        dc = dlogits @ p["W_oc"].T
        da = ds * (1.0 - s ** 2)  # (B, d_s) through tanh
        np.add.at(g["W_ys"], Y_in[:, i], da)
        g["W_ss"] += s_prev.T @ da
        g["W_cs"] += c.T @ da
        g["b_s"] += da.sum(axis=0)
        ds = da @ p["W_ss"].T
        dc = dc + da @ p["W_cs"].T
        if cache is not None:
            ds_att, dH_i, dHU_i, dW_a, dv_a = additive.batch_backward(
                dc, H, p["W_a"], p["v_a"], cache)
            ds += ds_att
            dH += dH_i
            dHU += dHU_i
            g["W_a"] += dW_a
            g["v_a"] += dv_a
        else:
            dc0 += dc
    da = ds * (1.0 - states[0] ** 2)  # s_0 = tanh(c_0 W_init + b_init)
    g["W_init"] += c0.T @ da
    g["b_init"] += da.sum(axis=0)
    dc0 += da @ p["W_init"].T
    if dHU is not None:
        g["U_a"] += np.einsum("bta,btd->ad", dHU, H)
        dH += dHU @ p["U_a"]
    d_h = Hf.shape[-1]
    dHf, dHb = dH[..., :d_h].copy(), dH[..., d_h:].copy()
    dHf[:, -1] += dc0[:, :d_h]
    dHb[:, 0] += dc0[:, d_h:]
    _rnn_backward(Xo, Hf, dHf, p["Wh_f"], g, "Wx_f", "Wh_f", "b_f")
    _rnn_backward(Xo[:, ::-1], Hb[:, ::-1], dHb[:, ::-1], p["Wh_b"], g,
                  "Wx_b", "Wh_b", "b_b")
    return loss, g


def _rnn_backward(Xo, H, dH, W_hh, g, kx, kh, kb):
    """Backpropagation through time for ``rnn_encoder`` (h0 = 0), accumulating
    into g.
    """
    dh = np.zeros_like(H[:, 0])
    for t in reversed(range(H.shape[1])):
        da = (dH[:, t] + dh) * (1.0 - H[:, t] ** 2)        # (B, d_h)
        g[kx] += Xo[:, t].T @ da
        g[kb] += da.sum(axis=0)
        if t > 0:
            g[kh] += H[:, t - 1].T @ da
        dh = da @ W_hh.T


def translate(p, X, steps=None):
    """Greedy decoding of ``steps`` output tokens (default T_x, the toy's
    output length): predictions (B, steps) and attention weights (B, steps,
    T_x) (None without attention).
    """
    B, T = X.shape
    vocab = p["W_os"].shape[1]
    steps = T if steps is None else steps
    _, _, _, H, c0 = _encode(p, X)
    HU = H @ p["U_a"].T if "W_a" in p else None
    s = np.tanh(c0 @ p["W_init"] + p["b_init"])
    y = np.full(B, vocab)
    out, weights = np.empty((B, steps), dtype=int), []
    for i in range(steps):
        logits, s, _, alpha, _ = _decoder_step(p, y, s, H, HU, c0)
        y = out[:, i] = logits.argmax(axis=-1)
        weights.append(alpha)
    return out, (np.stack(weights, axis=1) if "W_a" in p else None)


def train(p, steps, rng, lengths=(2, 16), batch=64, lr=0.005, clip=5.0,
          decay=True, data=None):
    """Adam on random reversal batches, one length per batch drawn from
    ``lengths`` (inclusive), or on the batches (X, Y) that the iterator
    ``data`` yields (real data: ``attention.g2p``).

    The learning rate follows a cosine from ``lr`` down to 0 over ``steps``
    (``decay=True``). Updates ``p`` in place and returns the training loss of
    every step.
    """
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(v) for k, v in p.items()}
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    losses = []
    for step in range(1, steps + 1):
        X, Y = (next(data) if data is not None else reversal_batch(
            rng, batch, int(rng.integers(lengths[0], lengths[1] + 1))))
        loss, g = loss_and_grads(p, X, Y)
        norm = np.sqrt(sum(np.sum(x ** 2) for x in g.values()))
        # gradient clipping by global norm
        scale = min(1.0, clip / (norm + 1e-12))
        rate = (lr * 0.5 * (1.0 + np.cos(np.pi * (step - 1) / steps))
                if decay else lr)
        for k in p:
            gk = g[k] * scale
            m[k] = beta1 * m[k] + (1 - beta1) * gk
            v[k] = beta2 * v[k] + (1 - beta2) * gk ** 2
            p[k] -= rate * (m[k] / (1 - beta1 ** step)) / (
                np.sqrt(v[k] / (1 - beta2 ** step)) + eps)
        losses.append(loss)
    return np.array(losses)


def accuracy_by_length(p, rng, lengths, n=256):
    """Greedy decoding on n fresh sequences of each length.

    returns (token accuracy, sequence accuracy), each of shape (len(lengths),):
    the fraction of output tokens that are right, and the fraction of sequences
    reversed without any error
    """
    tokens, sequences = [], []
    for length in lengths:
        X, Y = reversal_batch(rng, n, length)
        right = translate(p, X)[0] == Y                    # (n, length)
        tokens.append(right.mean())
        sequences.append(right.all(axis=1).mean())
    return np.array(tokens), np.array(sequences)
