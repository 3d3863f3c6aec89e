"""Learner KV-cache step: scores scaled by `V.shape[-1]` (code assuming d_k == d_v) and a one-line softmax without the max.

Mistakes: the scores are divided by sqrt(d_v), the width of the values, instead of sqrt(d_k); the softmax
`exp(s) / exp(s).sum()` subtracts no maximum, so large scores overflow to inf / inf = nan. The position,
the cache update and decode_sequence are right.
Names: scaled_by_d_v, no_max_subtraction
"""


def decode_step(x_t, cache, params):
    t = cache["K"].shape[0]
    x = x_t + sinusoidal_encoding(t + 1, x_t.shape[0])[t]
    q = x @ params["W_q"]
    K = np.vstack([cache["K"], x @ params["W_k"]])
    V = np.vstack([cache["V"], x @ params["W_v"]])
    scores = K @ q / np.sqrt(V.shape[-1])
    weights = np.exp(scores) / np.exp(scores).sum()
    return weights @ V, {"K": K, "V": V}


def decode_sequence(X, params):
    cache = empty_cache(params["W_q"].shape[1], params["W_v"].shape[1])
    Y = []
    for x_t in X:
        y_t, cache = decode_step(x_t, cache, params)
        Y.append(y_t)
    return np.array(Y), cache
