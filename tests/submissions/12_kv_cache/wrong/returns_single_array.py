def decode_step(x_t, cache, params):
    t = cache["K"].shape[0]
    x = x_t + sinusoidal_encoding(t + 1, x_t.shape[-1])[t]
    q, k, v = x @ params["W_q"], x @ params["W_k"], x @ params["W_v"]
    K = np.vstack([cache["K"], k])
    V = np.vstack([cache["V"], v])
    weights = softmax(K @ q / np.sqrt(len(q)))
    return weights @ V            # the new cache is never handed back
