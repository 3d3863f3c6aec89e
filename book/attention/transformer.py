"""The Transformer block and a small Transformer trained in NumPy (chapter 11).

Row convention: one token per row, ``X (..., n, d_model)``.

Part 1, the contract of exercise 11 (Vaswani et al. 2017, Sec. 3.1-3.3):

* ``layer_norm(X, gamma, beta, eps=1e-5)`` (Ba et al. 2016);
* ``feed_forward``: FFN(x) = max(0, x W_1 + b_1) W_2 + b_2  (Eq. 2);
* ``transformer_block(X, params, causal=False)``, post-norm as in the paper:
  H = LayerNorm(X + MultiHead(X, X, X)), out = LayerNorm(H + FFN(H)).
  ``norm="pre"`` gives the pre-norm block of later models (Xiong et al.
  2020): H = X + MultiHead(LN(X)), out = H + FFN(LN(H)).

Part 2, the toy of the chapter: an encoder-decoder Transformer with one
encoder and one decoder layer that learns chapter 3's reversal task, with a
hand-written backward pass for every layer (``*_forward`` returns the output
and a cache, ``*_backward`` takes dL/d(output) and the cache and returns
dL/d(input) and the parameters' gradients).  Everything is float64 and
seeded, so a run is reproducible.
"""
import numbers

import numpy as np

from .multi_head import (head_mask, merge_heads, multi_head_attention,
                         split_heads)
from .positions import sinusoidal_encoding
from .self_attention import causal_mask
from .seq2seq import reversal_batch
from .softmax import softmax

BLOCK_KEYS = ("W_q", "W_k", "W_v", "W_o", "W_1", "b_1", "W_2", "b_2",
              "gamma_1", "beta_1", "gamma_2", "beta_2")


# ------------------------------------------------------------ the contract
def layer_norm(X, gamma, beta, eps=1e-5):
    """Layer normalisation over the last axis (Ba, Kiros and Hinton 2016).

    LN(x) = gamma * (x - mean(x)) / sqrt(var(x) + eps) + beta, with the mean
    and the population variance (divide by d, not d - 1) of each row; eps
    inside the square root.
    X : (..., d); gamma, beta : (d,); returns (..., d)
    """
    X = np.asarray(X, dtype=float)
    mean = X.mean(axis=-1, keepdims=True)                    # (..., 1)
    var = X.var(axis=-1, keepdims=True)                      # (..., 1)
    return (X - mean) / np.sqrt(var + eps) * gamma + beta


def feed_forward(X, W_1, b_1, W_2, b_2):
    """Position-wise FFN(x) = max(0, x W_1 + b_1) W_2 + b_2 (Vaswani et al.
    2017, Eq. 2): the same two-layer ReLU network on every row.

    X : (..., n, d_model); W_1 : (d_model, d_ff); b_1 : (d_ff,);
    W_2 : (d_ff, d_model); b_2 : (d_model,); returns (..., n, d_model)
    """
    return np.maximum(0.0, X @ W_1 + b_1) @ W_2 + b_2


def transformer_block(X, params, causal=False, norm="post"):
    """One Transformer encoder layer (Vaswani et al. 2017, Sec. 3.1).

    norm="post" (the paper, and exercise 11): each sub-layer's output is
    LayerNorm(x + Sublayer(x)):
        A, weights = MultiHead(X, X, X)        self-attention, W_q .. W_o
        H   = layer_norm(X + A, gamma_1, beta_1)
        out = layer_norm(H + FFN(H), gamma_2, beta_2)
    norm="pre" (Xiong et al. 2020): x + Sublayer(LayerNorm(x)), no final
    normalisation inside the block.
    X : (..., n, d_model); causal : True = query i sees keys j <= i only
    params : dict with W_q, W_k, W_v, W_o (d_model, d_model), num_heads
    (int, divides d_model), W_1 (d_model, d_ff), b_1 (d_ff,),
    W_2 (d_ff, d_model), b_2 (d_model,), gamma_1, beta_1, gamma_2,
    beta_2 (d_model,); no biases in the attention projections
    returns (out (..., n, d_model), weights (..., num_heads, n, n))
    """
    p = params
    mask = causal_mask(X.shape[-2]) if causal else None

    def attend(Z):
        return multi_head_attention(Z, Z, p["W_q"], p["W_k"], p["W_v"],
                                    p["W_o"], p["num_heads"], mask=mask)

    def ffn(Z):
        return feed_forward(Z, p["W_1"], p["b_1"], p["W_2"], p["b_2"])

    if norm == "post":
        A, weights = attend(X)
        H = layer_norm(X + A, p["gamma_1"], p["beta_1"])
        return layer_norm(H + ffn(H), p["gamma_2"], p["beta_2"]), weights
    if norm == "pre":
        A, weights = attend(layer_norm(X, p["gamma_1"], p["beta_1"]))
        H = X + A
        return H + ffn(layer_norm(H, p["gamma_2"], p["beta_2"])), weights
    raise ValueError(f"norm must be 'post' or 'pre', got {norm!r}")


def init_block(rng, d_model, num_heads, d_ff):
    """Random parameters for ``transformer_block``: weights scaled by
    1/sqrt(fan-in), zero biases, gamma = 1, beta = 0."""
    def w(*shape):
        return rng.normal(scale=1.0 / np.sqrt(shape[0]), size=shape)
    p = {k: w(d_model, d_model) for k in ("W_q", "W_k", "W_v", "W_o")}
    p.update(num_heads=num_heads, W_1=w(d_model, d_ff), b_1=np.zeros(d_ff),
             W_2=w(d_ff, d_model), b_2=np.zeros(d_model))
    for k in ("1", "2"):
        p["gamma_" + k], p["beta_" + k] = np.ones(d_model), np.zeros(d_model)
    return p


def parameter_count(d_model, d_ff, layers, vocab, shared=True):
    """Parameters of the encoder-decoder Transformer (Vaswani et al. 2017).

    Per encoder layer: self-attention 4 d^2 + 4 d (weights and biases),
    FFN 2 d d_ff + d_ff + d, two layer norms 2 * 2d.  Per decoder layer:
    two attentions, the FFN and three layer norms.  Embeddings: one vocab x
    d matrix shared by the source and target embeddings and the pre-softmax
    projection (Sec. 3.4) if ``shared``, else three of them.  Positional
    encodings are sinusoidal: no parameters.
    returns dict of counts, with "total"
    """
    d = d_model
    attention = 4 * d * d + 4 * d
    ffn = 2 * d * d_ff + d_ff + d
    encoder = layers * (attention + ffn + 2 * 2 * d)
    decoder = layers * (2 * attention + ffn + 3 * 2 * d)
    embeddings = (1 if shared else 3) * vocab * d
    return {"encoder": encoder, "decoder": decoder, "embeddings": embeddings,
            "total": encoder + decoder + embeddings}


# ------------------------------------------- layers with a backward pass
def layer_norm_forward(X, gamma, beta, eps=1e-5):
    """``layer_norm`` and the cache for ``layer_norm_backward``."""
    mean = X.mean(axis=-1, keepdims=True)
    inv_std = 1.0 / np.sqrt(X.var(axis=-1, keepdims=True) + eps)
    X_hat = (X - mean) * inv_std                             # (..., d)
    return X_hat * gamma + beta, (X_hat, inv_std, gamma)


def layer_norm_backward(dY, cache):
    """returns dX (..., d), {"gamma": (d,), "beta": (d,)}."""
    X_hat, inv_std, gamma = cache
    axes = tuple(range(dY.ndim - 1))
    grads = {"gamma": np.sum(dY * X_hat, axis=axes),
             "beta": np.sum(dY, axis=axes)}
    dX_hat = dY * gamma                                      # (..., d)
    dX = inv_std * (dX_hat - dX_hat.mean(axis=-1, keepdims=True)
                    - X_hat * np.mean(dX_hat * X_hat, axis=-1,
                                      keepdims=True))
    return dX, grads


def feed_forward_forward(X, p):
    """``feed_forward`` with p = {"W_1", "b_1", "W_2", "b_2"}, and a cache."""
    hidden = np.maximum(0.0, X @ p["W_1"] + p["b_1"])       # (..., n, d_ff)
    return hidden @ p["W_2"] + p["b_2"], (X, hidden, p)


def _flat(A):
    return A.reshape(-1, A.shape[-1])                        # (rows, d)


def feed_forward_backward(dY, cache):
    """returns dX, {"W_1", "b_1", "W_2", "b_2"} gradients."""
    X, hidden, p = cache
    grads = {"W_2": _flat(hidden).T @ _flat(dY), "b_2": _flat(dY).sum(0)}
    dhidden = (dY @ p["W_2"].T) * (hidden > 0)               # ReLU gate
    grads["W_1"] = _flat(X).T @ _flat(dhidden)
    grads["b_1"] = _flat(dhidden).sum(0)
    return dhidden @ p["W_1"].T, grads


def attention_forward(X_q, X_kv, p, num_heads, mask=None):
    """Multi-head attention (chapter 8) with a cache for the backward pass.

    X_q : (B, n, d_model); X_kv : (B, m, d_model);
    p = {"W_q", "W_k", "W_v", "W_o"} each (d_model, d_model);
    mask : bool broadcastable to (B, n, m), the same for every head (as in
    ``multi_head_attention``: the head axis is added inside), or None
    returns out (B, n, d_model), weights (B, h, n, m), cache
    """
    Q = split_heads(X_q @ p["W_q"], num_heads)               # (B, h, n, dh)
    K = split_heads(X_kv @ p["W_k"], num_heads)              # (B, h, m, dh)
    V = split_heads(X_kv @ p["W_v"], num_heads)              # (B, h, m, dh)
    scale = 1.0 / np.sqrt(Q.shape[-1])
    scores = Q @ np.swapaxes(K, -1, -2) * scale              # (B, h, n, m)
    if mask is not None:
        # (B, 1, n, m): one mask for every head
        mask = head_mask(mask, Q, K)
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)                       # (B, h, n, m)
    concat = merge_heads(weights @ V)                        # (B, n, d_model)
    cache = (X_q, X_kv, Q, K, V, weights, concat, scale, p)
    return concat @ p["W_o"], weights, cache


def attention_backward(dY, cache):
    """returns dX_q (B, n, d), dX_kv (B, m, d), {"W_q", .., "W_o"}."""
    X_q, X_kv, Q, K, V, weights, concat, scale, p = cache
    h = Q.shape[-3]
    grads = {"W_o": _flat(concat).T @ _flat(dY)}
    dheads = split_heads(dY @ p["W_o"].T, h)                 # (B, h, n, dh)
    dweights = dheads @ np.swapaxes(V, -1, -2)               # (B, h, n, m)
    dV = np.swapaxes(weights, -1, -2) @ dheads               # (B, h, m, dh)
    # softmax Jacobian (chapter 1): ds = w * (dw - sum(w dw)); masked w = 0
    dscores = weights * (dweights - np.sum(weights * dweights, axis=-1,
                                           keepdims=True)) * scale
    dQ = merge_heads(dscores @ K)                            # (B, n, d)
    dK = merge_heads(np.swapaxes(dscores, -1, -2) @ Q)       # (B, m, d)
    dV = merge_heads(dV)                                     # (B, m, d)
    grads["W_q"] = _flat(X_q).T @ _flat(dQ)
    grads["W_k"] = _flat(X_kv).T @ _flat(dK)
    grads["W_v"] = _flat(X_kv).T @ _flat(dV)
    dX_q = dQ @ p["W_q"].T
    dX_kv = dK @ p["W_k"].T + dV @ p["W_v"].T
    return dX_q, dX_kv, grads


def embedding_forward(tokens, E, positions):
    """x = E[token] * sqrt(d_model) + PE[position] (Sec. 3.4, 3.5).

    tokens : int (B, n); E : (vocab, d_model); positions : int (n,)
    returns (B, n, d_model), cache
    """
    d_model = E.shape[1]
    PE = sinusoidal_encoding(int(positions.max()) + 1, d_model)[positions]
    return E[tokens] * np.sqrt(d_model) + PE, (tokens, E.shape)


def embedding_backward(dX, cache):
    """returns {"E": (vocab, d_model)} (the tokens get no gradient)."""
    tokens, shape = cache
    dE = np.zeros(shape)
    np.add.at(dE, tokens.ravel(), _flat(dX) * np.sqrt(shape[1]))
    return {"E": dE}


def cross_entropy_forward(Y, W_out, b_out, targets, smoothing=0.0):
    """Mean cross-entropy of ``targets`` (B, n) under softmax(Y W_out + b),
    the pre-softmax linear transformation and softmax of Vaswani et al.
    2017, Sec. 3.4.

    With z = Y W_out + b, the loss of one position is
    -log softmax(z)_t = logsumexp(z) - z_t, computed as
    log(sum(exp(z - max z))) + max z - z_t: finite whenever the logits'
    spread is (not inf), where log(softmax(z)_t) would take the log of an
    underflowed 0. Targets outside 0 .. vocab-1 are refused (ValueError).

    ``smoothing`` = eps_ls > 0 is label smoothing (Szegedy et al. 2016;
    Vaswani et al. 2017, Sec. 5.4): the target distribution puts 1 - eps on
    t and eps / K on each of the K classes, so the loss of one position is
    (1 - eps)(logsumexp(z) - z_t) + eps * mean_k(logsumexp(z) - z_k).
    returns loss (float), logits (B, n, vocab), cache (holding
    prob = softmax(z), which ``cross_entropy_backward`` needs)
    """
    logits = Y @ W_out + b_out                               # (B, n, vocab)
    targets = np.asarray(targets)
    if targets.size and not (0 <= targets.min() and
                             targets.max() < logits.shape[-1]):
        raise ValueError(f"targets must be class indices 0 .. "
                         f"{logits.shape[-1] - 1}, got values from "
                         f"{targets.min()} to {targets.max()}")
    if not 0.0 <= smoothing < 1.0:
        raise ValueError(f"smoothing must be in [0, 1), got {smoothing!r}")
    prob = softmax(logits, axis=-1)                          # (B, n, vocab)
    top = np.max(logits, axis=-1, keepdims=True)             # (B, n, 1)
    # (B, n, 1): logsumexp(z) - max z, in [0, log vocab]
    log_total = np.log(np.sum(np.exp(logits - top), axis=-1, keepdims=True))
    # (B, n, 1): z_t - max z
    picked = np.take_along_axis(logits, targets[..., None], axis=-1) - top
    loss = np.mean(log_total - picked)                       # -mean log p_t
    if smoothing:
        # -mean over positions of the mean over classes of log p_k
        uniform = np.mean(log_total - (logits - top))
        loss = (1.0 - smoothing) * loss + smoothing * uniform
    return loss, logits, (Y, prob, targets, W_out, smoothing)


def cross_entropy_backward(cache):
    """returns dY (B, n, d_model), {"W_out", "b_out"}: dL/dz = p - q, with q
    the target distribution (one-hot, or smoothed)."""
    Y, prob, targets, W_out, smoothing = cache
    dlogits = prob.copy()
    np.put_along_axis(dlogits, targets[..., None],
                      np.take_along_axis(prob, targets[..., None], -1)
                      - (1.0 - smoothing), axis=-1)
    if smoothing:
        dlogits -= smoothing / prob.shape[-1]
    dlogits /= targets.size                                  # the mean
    grads = {"W_out": _flat(Y).T @ _flat(dlogits),
             "b_out": _flat(dlogits).sum(0)}
    return dlogits @ W_out.T, grads


# ------------------------------------------------------- the reversal toy
# The task of chapter 3: reverse 2 to MAX_LENGTH digits.  Source and target
# positions both run 0 .. T-1, so the model must find the mirrored position
# T-1-i itself.  Target inputs start with BOS = 10 (teacher forcing).
MAX_LENGTH = 16
VOCAB = 10
BOS = VOCAB
SUBLAYERS = {"enc_att": "W_q W_k W_v W_o", "enc_ffn": "W_1 b_1 W_2 b_2",
             "dec_self": "W_q W_k W_v W_o", "dec_cross": "W_q W_k W_v W_o",
             "dec_ffn": "W_1 b_1 W_2 b_2"}
NORMS = ("enc_ln1", "enc_ln2", "dec_ln1", "dec_ln2", "dec_ln3")


def init_model(rng, d_model=32, num_heads=2, d_ff=64, src_vocab=VOCAB,
               tgt_vocab=VOCAB):
    """Parameters of the toy: a dict of dicts, one per layer, plus the
    number of heads.  ``src_vocab`` source tokens; ``tgt_vocab`` target
    tokens plus the start token, whose index is ``tgt_vocab`` (BOS for the
    digits)."""
    def w(*shape):
        return rng.normal(scale=1.0 / np.sqrt(shape[0]), size=shape)
    m = {"num_heads": num_heads,
         "src_emb": {"E": w(src_vocab, d_model) / np.sqrt(d_model)},
         "tgt_emb": {"E": w(tgt_vocab + 1, d_model) / np.sqrt(d_model)}}
    for name, keys in SUBLAYERS.items():
        if "ffn" in name:
            m[name] = {"W_1": w(d_model, d_ff), "b_1": np.zeros(d_ff),
                       "W_2": w(d_ff, d_model), "b_2": np.zeros(d_model)}
        else:
            m[name] = {k: w(d_model, d_model) for k in keys.split()}
    for name in NORMS:
        m[name] = {"gamma": np.ones(d_model), "beta": np.zeros(d_model)}
    m["out"] = {"W_out": w(d_model, tgt_vocab),
                "b_out": np.zeros(tgt_vocab)}
    return m


def start_token(m):
    """The decoder's start token: the index after the output vocabulary
    (BOS = 10 for the digits)."""
    return m["out"]["W_out"].shape[1]


def _dropout(X, dropout, caches, name):
    """Inverted dropout (Srivastava et al. 2014; Vaswani et al. 2017,
    Sec. 5.4): with dropout = (rate, rng), each entry is zeroed with
    probability rate and the rest are scaled by 1 / (1 - rate), so that
    nothing changes at test time (dropout = None: the mask is 1).  The mask
    is kept for the backward pass under ``name``."""
    if dropout is None:
        mask = 1.0
    else:
        rate, rng = dropout
        if not 0.0 <= rate < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {rate!r}")
        mask = (rng.random(X.shape) >= rate) / (1.0 - rate)  # X's shape
    if caches is not None:
        caches[name] = mask
    return X * mask


def encode(m, S, caches=None, causal=False, dropout=None):
    """Encoder layer, post-norm.  S : int (B, T) -> memory (B, T, d_model)
    and the self-attention weights (B, h, T, T).

    causal=True masks the future (query i sees keys j <= i): the layer is
    then a decoder-only model's layer (``init_language_model``).
    dropout : (rate, rng) while training, on the embeddings and on each
    sub-layer's output before the residual sum (Sec. 5.4); None otherwise."""
    def keep(name, cache):
        if caches is not None:
            caches[name] = cache
    h = m["num_heads"]
    X, c = embedding_forward(S, m["src_emb"]["E"], np.arange(S.shape[1]))
    keep("src_emb", c)
    X = _dropout(X, dropout, caches, "src_emb.drop")
    mask = causal_mask(S.shape[1]) if causal else None
    A, weights, c = attention_forward(X, X, m["enc_att"], h, mask)
    keep("enc_att", c)
    H, c = layer_norm_forward(X + _dropout(A, dropout, caches, "enc_att.drop"),
                              **m["enc_ln1"])
    keep("enc_ln1", c)
    F, c = feed_forward_forward(H, m["enc_ffn"])
    keep("enc_ffn", c)
    out, c = layer_norm_forward(H + _dropout(F, dropout, caches,
                                             "enc_ffn.drop"), **m["enc_ln2"])
    keep("enc_ln2", c)
    return out, weights


def decode(m, Y_in, memory, caches=None, dropout=None):
    """Decoder layer, post-norm: causal self-attention, cross-attention to
    the encoder's memory, FFN.  Y_in : int (B, n) tokens, positions 0..n-1.
    dropout as in ``encode``.
    returns the decoder's output (B, n, d_model) and the weights of the
    self- and cross-attention, (B, h, n, n) and (B, h, n, T)."""
    def keep(name, cache):
        if caches is not None:
            caches[name] = cache
    h, n = m["num_heads"], Y_in.shape[1]
    D, c = embedding_forward(Y_in, m["tgt_emb"]["E"], np.arange(n))
    keep("tgt_emb", c)
    D = _dropout(D, dropout, caches, "tgt_emb.drop")
    A, w_self, c = attention_forward(D, D, m["dec_self"], h, causal_mask(n))
    keep("dec_self", c)
    G1, c = layer_norm_forward(D + _dropout(A, dropout, caches,
                                            "dec_self.drop"), **m["dec_ln1"])
    keep("dec_ln1", c)
    C, w_cross, c = attention_forward(G1, memory, m["dec_cross"], h)
    keep("dec_cross", c)
    G2, c = layer_norm_forward(G1 + _dropout(C, dropout, caches,
                                             "dec_cross.drop"), **m["dec_ln2"])
    keep("dec_ln2", c)
    F, c = feed_forward_forward(G2, m["dec_ffn"])
    keep("dec_ffn", c)
    out, c = layer_norm_forward(G2 + _dropout(F, dropout, caches,
                                              "dec_ffn.drop"), **m["dec_ln3"])
    keep("dec_ln3", c)
    return out, w_self, w_cross


def teacher_inputs(Y, bos=BOS):
    """Decoder inputs under teacher forcing: the start token ``bos``, then
    y_0 .. y_{n-2}."""
    return np.concatenate([np.full((Y.shape[0], 1), bos), Y[:, :-1]], 1)


def _encoder_backward(d, caches, g):
    """Backward pass of ``encode`` from dL/d(memory) (B, T, d_model),
    filling g with the encoder's gradients; each residual sends its
    gradient both ways, and a dropout mask gates what went through it."""
    d, g["enc_ln2"] = layer_norm_backward(d, caches["enc_ln2"])
    dF, g["enc_ffn"] = feed_forward_backward(d * caches["enc_ffn.drop"],
                                             caches["enc_ffn"])
    d, g["enc_ln1"] = layer_norm_backward(d + dF, caches["enc_ln1"])
    dq, dkv, g["enc_att"] = attention_backward(d * caches["enc_att.drop"],
                                               caches["enc_att"])
    g["src_emb"] = embedding_backward((d + dq + dkv) * caches["src_emb.drop"],
                                      caches["src_emb"])


def loss_and_grads(m, S, Y, dropout=None, smoothing=0.0):
    """Mean cross-entropy of the targets Y (B, n) given the source S (B, T),
    under teacher forcing, and the gradient of every parameter (same nested
    layout as ``m``), by the layers' backward passes.  dropout : (rate,
    rng) or None; smoothing : label smoothing eps_ls (Sec. 5.4)."""
    caches = {}
    memory, _ = encode(m, S, caches, dropout=dropout)
    out, _, _ = decode(m, teacher_inputs(Y, start_token(m)), memory, caches,
                       dropout=dropout)
    loss, _, c = cross_entropy_forward(out, targets=Y, smoothing=smoothing,
                                       **m["out"])
    g = {}
    d, g["out"] = cross_entropy_backward(c)
    # decoder, from the top: each residual sends its gradient both ways
    d, g["dec_ln3"] = layer_norm_backward(d, caches["dec_ln3"])
    dF, g["dec_ffn"] = feed_forward_backward(d * caches["dec_ffn.drop"],
                                             caches["dec_ffn"])
    d, g["dec_ln2"] = layer_norm_backward(d + dF, caches["dec_ln2"])
    dG1, dmemory, g["dec_cross"] = attention_backward(
        d * caches["dec_cross.drop"], caches["dec_cross"])
    d, g["dec_ln1"] = layer_norm_backward(d + dG1, caches["dec_ln1"])
    dq, dkv, g["dec_self"] = attention_backward(d * caches["dec_self.drop"],
                                                caches["dec_self"])
    g["tgt_emb"] = embedding_backward((d + dq + dkv) * caches["tgt_emb.drop"],
                                      caches["tgt_emb"])
    _encoder_backward(dmemory, caches, g)
    return loss, g


def parameters(m):
    """(layer, name, array) for every trainable array of the model."""
    return [(layer, k, v) for layer, p in m.items() if isinstance(p, dict)
            for k, v in p.items()]


def warmup_rate(step, d_model, warmup):
    """The learning rate of Vaswani et al. 2017, Eq. 3:
    d_model^-0.5 * min(step^-0.5, step * warmup^-1.5), rising linearly for
    ``warmup`` steps, then decaying as 1 / sqrt(step)."""
    return d_model ** -0.5 * min(step ** -0.5, step * warmup ** -1.5)


def train(m, steps, rng, lengths=(2, MAX_LENGTH), batch=64, lr=0.003,
          data=None, loss=loss_and_grads, dropout=0.0, label_smoothing=0.0,
          warmup=None):
    """Adam (Kingma and Ba 2015) on random reversal batches, one length per
    batch drawn from ``lengths`` (inclusive), or on the batches that the
    iterator ``data`` yields, each passed to ``loss(m, *batch, ...)``
    (``loss_and_grads``, or ``language_model_loss_and_grads``).

    The learning rate decays from ``lr`` to 0 along a cosine, or, with
    ``warmup`` = a number of steps, follows Eq. 3 (``warmup_rate``).  The
    rest of the paper's recipe (Sec. 5.4): ``dropout`` = P_drop,
    ``label_smoothing`` = eps_ls (both 0 by default, and in the chapter).
    Updates ``m`` in place; returns the loss of every step."""
    moments = {(l, k): (np.zeros_like(v), np.zeros_like(v))
               for l, k, v in parameters(m)}
    beta1, beta2, eps = 0.9, 0.98, 1e-9                 # Sec. 5.3
    d_model = m["out"]["W_out"].shape[0]
    if not 0.0 <= label_smoothing < 1.0:
        raise ValueError(f"label_smoothing must be in [0, 1), got "
                         f"{label_smoothing!r}")
    if warmup is not None and (isinstance(warmup, bool) or not isinstance(
            warmup, numbers.Integral) or not 1 <= warmup <= 10 ** 9):
        raise ValueError(f"warmup must be a whole number of steps from 1 "
                         f"to 10**9, got {warmup!r}")
    drop = (dropout, rng) if dropout else None
    losses = np.empty(steps)
    for step in range(1, steps + 1):
        if data is None:
            T = int(rng.integers(lengths[0], lengths[1] + 1))
            inputs = reversal_batch(rng, batch, T, vocab=VOCAB)
        else:
            inputs = next(data)
        losses[step - 1], g = loss(m, *inputs, dropout=drop,
                                   smoothing=label_smoothing)
        rate = (lr * 0.5 * (1.0 + np.cos(np.pi * (step - 1) / steps))
                if warmup is None else warmup_rate(step, d_model, warmup))
        for layer, k, v in parameters(m):
            first, second = moments[layer, k]
            gk = g[layer][k]
            first *= beta1
            first += (1 - beta1) * gk
            second *= beta2
            second += (1 - beta2) * gk ** 2
            v -= (rate * first / (1 - beta1 ** step)
                  / (np.sqrt(second / (1 - beta2 ** step)) + eps))
    return losses


def train_reversal(seed=0, steps=1500, **sizes):
    """The chapter's trained model: ``init_model`` and ``train`` with one
    seeded generator.  returns (model, losses)."""
    rng = np.random.default_rng(seed)
    m = init_model(rng, **sizes)
    return m, train(m, steps, rng)


def translate(m, S, steps=None):
    """Greedy decoding without a cache: at every step the decoder is run
    again on everything generated so far (chapter 12 adds the cache).
    S : int (B, T); ``steps`` output tokens (default T, the toy's output
    length).  returns predictions (B, steps) and the cross-attention
    weights of the last step (B, h, steps, T)."""
    memory, _ = encode(m, S)
    Y_in = np.full((S.shape[0], 1), start_token(m))
    w_cross = np.zeros((S.shape[0], m["num_heads"], 0, S.shape[1]))
    for _ in range(S.shape[1] if steps is None else steps):
        out, _, w_cross = decode(m, Y_in, memory)
        logits = out[:, -1] @ m["out"]["W_out"] + m["out"]["b_out"]
        Y_in = np.concatenate([Y_in, logits.argmax(-1)[:, None]], axis=1)
    return Y_in[:, 1:], w_cross


# ------------------------------------------------ a decoder-only model
# Without cross-attention, a decoder layer is the encoder layer with a
# causal mask: the layout of a GPT-style language model (Radford et al.
# 2018), one layer here.  It reuses ``encode``'s parameters' names.
def init_language_model(rng, vocab, d_model=64, num_heads=4, d_ff=128):
    """A one-layer decoder-only model over ``vocab`` tokens: inputs are
    the tokens and a start token (index ``vocab``), outputs the next
    token's logits over the ``vocab`` tokens."""
    m = init_model(rng, d_model, num_heads, d_ff, src_vocab=vocab + 1,
                   tgt_vocab=vocab)
    for name in ("tgt_emb", "dec_self", "dec_cross", "dec_ffn", "dec_ln1",
                 "dec_ln2", "dec_ln3"):
        del m[name]
    return m


def language_model_loss_and_grads(m, tokens, targets, dropout=None,
                                  smoothing=0.0):
    """Causal language modelling: the mean cross-entropy of each next token
    targets[:, i] given tokens[:, :i+1], both int (B, n), and the gradients.
    """
    caches = {}
    out, _ = encode(m, tokens, caches, causal=True, dropout=dropout)
    loss, _, c = cross_entropy_forward(out, targets=targets,
                                       smoothing=smoothing, **m["out"])
    g = {}
    d, g["out"] = cross_entropy_backward(c)
    _encoder_backward(d, caches, g)
    return loss, g


def accuracy_by_length(m, rng, lengths, n=256):
    """Greedy decoding on n fresh sequences of each length, as in
    ``attention.seq2seq.accuracy_by_length``: (token accuracy, sequence
    accuracy), each (len(lengths),)."""
    tokens, sequences = [], []
    for T in lengths:
        S, Y = reversal_batch(rng, n, T, vocab=VOCAB)
        right = translate(m, S)[0] == Y                      # (n, T)
        tokens.append(right.mean())
        sequences.append(right.all(axis=1).mean())
    return np.array(tokens), np.array(sequences)
