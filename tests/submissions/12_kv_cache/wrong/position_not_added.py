def decode_step(x_t, cache, params):
    q, k, v = x_t @ params["W_q"], x_t @ params["W_k"], x_t @ params["W_v"]
    K = np.vstack([cache["K"], k])
    V = np.vstack([cache["V"], v])
    weights = softmax(K @ q / np.sqrt(len(q)))
    return weights @ V, {"K": K, "V": V}
