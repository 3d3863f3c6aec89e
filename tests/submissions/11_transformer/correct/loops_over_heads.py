def layer_norm(X, gamma, beta, eps=1e-5):
    """np.std of each row, eps under the root via the variance."""
    X = np.asarray(X, dtype=float)
    std = np.sqrt(np.std(X, axis=-1, keepdims=True) ** 2 + eps)
    return (X - np.mean(X, axis=-1, keepdims=True)) / std * gamma + beta


def transformer_block(X, params, causal=False):
    """One head at a time with the given softmax, heads concatenated; the FFN with np.where."""
    p = params
    X = np.asarray(X, dtype=float)
    n, d_model, h = X.shape[-2], X.shape[-1], p["num_heads"]
    d_head = d_model // h
    Q, K, V = X @ p["W_q"], X @ p["W_k"], X @ p["W_v"]
    outputs, weights = [], []
    for head in range(h):
        cols = slice(head * d_head, (head + 1) * d_head)
        s = Q[..., cols] @ np.swapaxes(K[..., cols], -1, -2) / np.sqrt(d_head)
        if causal:
            s = np.where(causal_mask(n), s, -np.inf)
        w = softmax(s, axis=-1)
        outputs.append(w @ V[..., cols])
        weights.append(w)
    A = np.concatenate(outputs, axis=-1) @ p["W_o"]
    H = layer_norm(X + A, p["gamma_1"], p["beta_1"])
    pre = H @ p["W_1"] + p["b_1"]
    F = np.where(pre > 0, pre, 0.0) @ p["W_2"] + p["b_2"]
    return layer_norm(H + F, p["gamma_2"], p["beta_2"]), np.stack(weights, axis=-3)
