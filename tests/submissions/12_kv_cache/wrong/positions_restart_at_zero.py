def decode_step(x_t, cache, params):
    z = x_t + sinusoidal_encoding(1, x_t.shape[-1])[0]     # always position 0
    q, k, v = z @ params["W_q"], z @ params["W_k"], z @ params["W_v"]
    K = np.vstack([cache["K"], k])
    V = np.vstack([cache["V"], v])
    weights = softmax(K @ q / np.sqrt(len(q)))
    return weights @ V, {"K": K, "V": V}
