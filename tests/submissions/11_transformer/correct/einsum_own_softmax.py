def layer_norm(X, gamma, beta, eps=1e-5):
    """Mean and variance written out."""
    X = np.asarray(X, dtype=float)
    d = X.shape[-1]
    centred = X - X.sum(axis=-1, keepdims=True) / d
    var = (centred ** 2).sum(axis=-1, keepdims=True) / d
    return gamma * centred / np.sqrt(var + eps) + beta


def transformer_block(X, params, causal=False):
    """Heads by einsum on reshaped projections, a -1e9 mask fill, its own softmax."""
    p = params
    *lead, n, d_model = X.shape
    h = p["num_heads"]
    d_head = d_model // h

    def heads(W):
        return (X @ W).reshape(*lead, n, h, d_head)

    Q, K, V = heads(p["W_q"]), heads(p["W_k"]), heads(p["W_v"])
    scores = np.einsum("...ihd,...jhd->...hij", Q, K) / np.sqrt(d_head)
    if causal:
        scores = scores + np.where(np.tril(np.ones((n, n))) > 0, 0.0, -1e9)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    A = np.einsum("...hij,...jhd->...ihd", weights, V).reshape(*lead, n, d_model) @ p["W_o"]
    H = layer_norm(X + A, p["gamma_1"], p["beta_1"])
    F = np.maximum(H @ p["W_1"] + p["b_1"], 0) @ p["W_2"] + p["b_2"]
    return layer_norm(H + F, p["gamma_2"], p["beta_2"]), weights
