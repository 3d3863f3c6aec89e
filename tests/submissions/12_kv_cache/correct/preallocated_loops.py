import math


def decode_step(x_t, cache, params):
    """A new cache allocated at full size and filled row by row; the softmax by hand."""
    t, d_k = cache["K"].shape
    d_v = cache["V"].shape[1]
    d_model = len(x_t)
    z = np.array(x_t, dtype=float)
    for i in range(d_model // 2):
        angle = t / 10000 ** (2 * i / d_model)
        z[2 * i] += math.sin(angle)
        z[2 * i + 1] += math.cos(angle)
    K = np.empty((t + 1, d_k))
    V = np.empty((t + 1, d_v))
    K[:t], V[:t] = cache["K"], cache["V"]
    K[t], V[t] = z @ params["W_k"], z @ params["W_v"]
    q = z @ params["W_q"]
    scores = [float(K[j] @ q) / math.sqrt(d_k) for j in range(t + 1)]
    top = max(scores)
    e = [math.exp(s - top) for s in scores]
    y = sum(w / sum(e) * V[j] for j, w in enumerate(e))
    return y, {"K": K, "V": V}


def decode_sequence(X, params):
    cache = {"K": np.zeros((0, params["W_k"].shape[1])), "V": np.zeros((0, params["W_v"].shape[1]))}
    Y = np.zeros((len(X), params["W_v"].shape[1]))
    for t in range(len(X)):
        Y[t], cache = decode_step(X[t], cache, params)
    return Y, cache
