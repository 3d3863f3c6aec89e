def decode_step(x_t, cache, params):
    t = cache["K"].shape[0]
    z = x_t + sinusoidal_encoding(t + 1, x_t.shape[-1])[t]
    q, k, v = z @ params["W_q"], z @ params["W_k"], z @ params["W_v"]
    K = np.vstack([cache["K"], k])
    V = np.vstack([cache["V"], v])
    scores = K @ q / np.sqrt(q.shape[0])
    e = np.exp(scores)   # a softmax of its own, without subtracting the maximum
    return (e / e.sum()) @ V, {"K": K, "V": V}
