"""Autoregressive decoding with a key-value cache (chapter 12), row convention.

A decoder computes position t from positions 0..t.  With causal attention
the keys and values of the earlier positions never change, so they can be
kept: each new token computes its own query, key and value, appends the key
and value to the cache, and its query attends to all cached keys (its own
included).  The result equals full causal self-attention (Vaswani et al.
2017, Sec. 3.2.3), row by row.

The contract of exercise 12 is ``empty_cache``, ``decode_step`` and
``decode_sequence``: one causal single-head self-attention layer whose input
at position t is x_t + PE[t] (``sinusoidal_encoding``, chapter 10).

Multi-query attention (Shazeer 2019) and grouped-query attention (Ainslie
et al. 2023) shrink the cache by sharing keys and values between heads:
``grouped_query_attention`` and ``cache_bytes``.
"""
import numpy as np

from .multi_head import head_mask, merge_heads, split_heads
from .positions import sinusoidal_encoding
from .scaled import scaled_dot_product_attention
from .softmax import softmax
from .transformer import encode, feed_forward, layer_norm, start_token


# ------------------------------------------------------------ the contract
def empty_cache(d_k, d_v):
    """The cache before the first token: {"K": (0, d_k), "V": (0, d_v)}."""
    return {"K": np.zeros((0, d_k)), "V": np.zeros((0, d_v))}


def decode_step(x_t, cache, params):
    """One step of causal self-attention with a key-value cache.

    x_t    : (d_model,) input of the new token, without its position
    cache  : {"K": (t, d_k), "V": (t, d_v)}, keys and values of the t
             earlier tokens (rows in position order); t = 0 at the start
    params : {"W_q": (d_model, d_k), "W_k": (d_model, d_k),
              "W_v": (d_model, d_v)}
    The new token's position is t = cache["K"].shape[0]; its input is
    z = x_t + PE[t] (``sinusoidal_encoding``), q = z W_q, k = z W_k,
    v = z W_v.  k and v are appended once, as row t, and q attends to all
    t + 1 cached keys, its own included; no mask is needed (nothing in
    the cache is in the future).
    returns (y_t (d_v,), new cache {"K": (t+1, d_k), "V": (t+1, d_v)}),
    y_t = softmax(q K^T / sqrt(d_k)) V; the new cache holds new arrays
    """
    t = cache["K"].shape[0]
    z = x_t + sinusoidal_encoding(t + 1, x_t.shape[-1])[t]   # (d_model,)
    q = z @ params["W_q"]                                    # (d_k,)
    K = np.concatenate([cache["K"], (z @ params["W_k"])[None]])  # (t+1, d_k)
    V = np.concatenate([cache["V"], (z @ params["W_v"])[None]])  # (t+1, d_v)
    y, _ = scaled_dot_product_attention(q[None], K, V)       # (1, d_v)
    return y[0], {"K": K, "V": V}


def decode_sequence(X, params):
    """Feed the rows of X to ``decode_step`` one at a time, from an empty
    cache.  X : (n, d_model); returns (Y (n, d_v), the final cache with
    n rows), and Y equals causal self-attention on X + PE[:n]."""
    cache = empty_cache(params["W_k"].shape[1], params["W_v"].shape[1])
    rows = []
    for x_t in X:
        y_t, cache = decode_step(x_t, cache, params)
        rows.append(y_t)
    return np.array(rows), cache


# ------------------------------------------------ sharing keys and values
def grouped_query_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads,
                            num_kv_heads, mask=None):
    """Grouped-query attention (Ainslie et al. 2023, Sec. 2.2).

    num_heads query heads share num_kv_heads key-value heads: query head j
    uses key-value head j // (num_heads // num_kv_heads).  num_kv_heads =
    num_heads is multi-head attention, num_kv_heads = 1 multi-query
    attention (Shazeer 2019).
    X_q : (..., n, d_model); X_kv : (..., m, d_model);
    W_q, W_o : (d_model, d_model); W_k, W_v : (d_model, num_kv_heads *
    d_head) with d_head = d_model // num_heads; mask : bool, broadcastable
    to (..., n, m), the same for every head (``head_mask``)
    returns (out (..., n, d_model), weights (..., num_heads, n, m))
    """
    group = num_heads // num_kv_heads
    Q = split_heads(X_q @ W_q, num_heads)                    # (..., h, n, dh)
    K = split_heads(X_kv @ W_k, num_kv_heads)                # (..., g, m, dh)
    V = split_heads(X_kv @ W_v, num_kv_heads)                # (..., g, m, dh)
    K = np.repeat(K, group, axis=-3)                         # (..., h, m, dh)
    V = np.repeat(V, group, axis=-3)
    heads, weights = scaled_dot_product_attention(
        Q, K, V, mask=head_mask(mask, Q, K))
    return merge_heads(heads) @ W_o, weights


def cache_bytes(layers, kv_heads, d_head, n, batch=1, bytes_per_value=2):
    """Size of a key-value cache: 2 (K and V) * layers * kv_heads * d_head
    values per token, times n tokens and the batch size."""
    return 2 * layers * kv_heads * d_head * n * batch * bytes_per_value


# ------------------------------------ the trained toy of chapter 11, cached
def _cached_self_attention(x, K, V, p, h):
    """One new token's multi-head self-attention with a per-head cache.
    x : (B, 1, d); K, V : (B, h, t, dh), the earlier tokens' keys and
    values; p : {"W_q", "W_k", "W_v", "W_o"}.
    returns (out (B, 1, d), K and V with t + 1 rows)"""
    q = split_heads(x @ p["W_q"], h)                         # (B, h, 1, dh)
    K = np.concatenate([K, split_heads(x @ p["W_k"], h)], axis=2)
    V = np.concatenate([V, split_heads(x @ p["W_v"], h)], axis=2)
    a, _ = scaled_dot_product_attention(q, K, V)             # (B, h, 1, dh)
    return merge_heads(a) @ p["W_o"], K, V


def translate_cached(m, S):
    """Greedy decoding of the chapter-11 model with a key-value cache.

    The decoder's self-attention keeps, per head, the keys and values of
    the tokens generated so far; the cross-attention's keys and values
    come from the encoder's output and are computed once.
    S : int (B, T); returns predictions (B, T) and the logits of every step
    (B, T, vocab), which equal one causal pass of ``transformer.decode``
    over BOS and the predictions
    """
    h = m["num_heads"]
    memory, _ = encode(m, S)                                 # (B, T, d)
    cross = m["dec_cross"]
    K_mem = split_heads(memory @ cross["W_k"], h)            # (B, h, T, dh)
    V_mem = split_heads(memory @ cross["W_v"], h)            # once per input
    B, T = S.shape
    E = m["tgt_emb"]["E"]
    d_model = E.shape[1]
    PE = sinusoidal_encoding(T, d_model)
    K = np.zeros((B, h, 0, d_model // h))                    # (B, h, t, dh)
    V = np.zeros((B, h, 0, d_model // h))
    y = np.full(B, start_token(m))
    predictions, logits = [], []
    for t in range(T):
        x = (E[y] * np.sqrt(d_model) + PE[t])[:, None]       # (B, 1, d)
        a, K, V = _cached_self_attention(x, K, V, m["dec_self"], h)
        g1 = layer_norm(x + a, **m["dec_ln1"])               # (B, 1, d)
        q = split_heads(g1 @ cross["W_q"], h)
        c, _ = scaled_dot_product_attention(q, K_mem, V_mem)
        g2 = layer_norm(g1 + merge_heads(c) @ cross["W_o"], **m["dec_ln2"])
        g3 = layer_norm(g2 + feed_forward(g2, **m["dec_ffn"]),
                        **m["dec_ln3"])
        step = g3[:, 0] @ m["out"]["W_out"] + m["out"]["b_out"]  # (B, vocab)
        y = step.argmax(axis=-1)
        predictions.append(y)
        logits.append(step)
    return np.stack(predictions, axis=1), np.stack(logits, axis=1)


# ------------------------------- sampling a decoder-only model, cached
def sample_cached(m, rng, n, max_len, temperature=1.0, return_logits=False):
    """Draw n sequences from a decoder-only model
    (``transformer.init_language_model``), all at once, with a key-value
    cache: each step feeds the token just drawn, at position t, and draws
    the next from softmax(logits / temperature).

    returns int (n, max_len): the tokens drawn after the start token; what
    follows an end token is the caller's to discard; with
    ``return_logits``, also each step's logits (n, max_len, vocab)
    """
    if isinstance(temperature, bool) or not (
            isinstance(temperature, (int, float)) and 1e-3 <= temperature
            <= 1e3):
        raise ValueError(f"temperature must be a number from 0.001 to 1000 "
                         f"(argmax decoding is the limit at 0), got "
                         f"{temperature!r}")
    if not (0 <= n and 0 <= max_len and n * max_len <= 10 ** 7):
        raise ValueError(f"n and max_len must be >= 0 with n * max_len <= "
                         f"10**7, got {n} and {max_len}")
    h = m["num_heads"]
    E = m["src_emb"]["E"]                                    # (vocab+1, d)
    d_model = E.shape[1]
    PE = sinusoidal_encoding(max_len, d_model)
    K = np.zeros((n, h, 0, d_model // h))                    # (n, h, t, dh)
    V = np.zeros((n, h, 0, d_model // h))
    y = np.full(n, start_token(m))
    drawn = np.empty((n, max_len), dtype=int)
    steps = []
    for t in range(max_len):
        x = (E[y] * np.sqrt(d_model) + PE[t])[:, None]       # (n, 1, d)
        a, K, V = _cached_self_attention(x, K, V, m["enc_att"], h)
        g1 = layer_norm(x + a, **m["enc_ln1"])
        g2 = layer_norm(g1 + feed_forward(g1, **m["enc_ffn"]), **m["enc_ln2"])
        logits = g2[:, 0] @ m["out"]["W_out"] + m["out"]["b_out"]  # (n, V)
        steps.append(logits)
        prob = softmax(logits / temperature, axis=-1)
        # inverse-CDF draw, one uniform number per row: the number of
        # cumulative probabilities <= u (the last token if rounding left
        # the total below u)
        u = rng.random((n, 1))
        y = drawn[:, t] = np.minimum(
            np.sum(np.cumsum(prob, axis=-1) <= u, axis=-1), prob.shape[-1] - 1)
    logits = (np.stack(steps, axis=1) if steps
              else np.zeros((n, 0, m["out"]["W_out"].shape[1])))
    return (drawn, logits) if return_logits else drawn
