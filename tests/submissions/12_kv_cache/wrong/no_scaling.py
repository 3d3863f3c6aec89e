def decode_step(x_t, cache, params):
    t = cache["K"].shape[0]
    z = x_t + sinusoidal_encoding(t + 1, x_t.shape[-1])[t]
    q, k, v = z @ params["W_q"], z @ params["W_k"], z @ params["W_v"]
    K = np.vstack([cache["K"], k])
    V = np.vstack([cache["V"], v])
    weights = softmax(K @ q)   # the scores are never divided by sqrt(d_k)
    return weights @ V, {"K": K, "V": V}
