def decode_step(x_t, cache, params):
    """np.append, einsum, and the library-style scaled attention on a one-row query."""
    t = len(cache["K"])
    z = x_t + sinusoidal_encoding(t + 1, len(x_t))[-1]
    q = np.einsum("d,dk->k", z, params["W_q"])
    K = np.append(cache["K"], [np.einsum("d,dk->k", z, params["W_k"])], axis=0)
    V = np.append(cache["V"], [np.einsum("d,dv->v", z, params["W_v"])], axis=0)
    scores = np.einsum("k,tk->t", q, K)[None] / np.sqrt(K.shape[1])   # (1, t+1)
    weights = softmax(scores, axis=-1)
    return np.einsum("qt,tv->qv", weights, V)[0], {"K": K, "V": V}


def decode_sequence(X, params):
    cache = empty_cache(params["W_k"].shape[1], params["W_v"].shape[1])
    outputs = []
    for row in np.asarray(X):
        y, cache = decode_step(row, cache, params)
        outputs.append(y)
    return np.stack(outputs), cache
