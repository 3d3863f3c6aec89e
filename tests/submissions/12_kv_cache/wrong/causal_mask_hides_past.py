def decode_step(x_t, cache, params):
    t = cache["K"].shape[0]
    z = x_t + sinusoidal_encoding(t + 1, x_t.shape[-1])[t]
    q, k, v = z @ params["W_q"], z @ params["W_k"], z @ params["W_v"]
    K = np.vstack([cache["K"], k])
    V = np.vstack([cache["V"], v])
    scores = q[None] @ K.T / np.sqrt(len(q))                 # (1, t+1)
    mask = np.tril(np.ones((1, t + 1), dtype=bool))          # a causal mask for one row
    weights = softmax(np.where(mask, scores, -np.inf))
    return (weights @ V)[0], {"K": K, "V": V}
