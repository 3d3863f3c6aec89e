def decode_step(x_t, cache, params):
    """The new row put in front of the cache: y_t is right, the cache's order is not."""
    t = cache["K"].shape[0]
    z = x_t + sinusoidal_encoding(t + 1, x_t.shape[-1])[t]
    q, k, v = z @ params["W_q"], z @ params["W_k"], z @ params["W_v"]
    K = np.vstack([k, cache["K"]])
    V = np.vstack([v, cache["V"]])
    weights = softmax(K @ q / np.sqrt(q.shape[-1]))
    return weights @ V, {"K": K, "V": V}
