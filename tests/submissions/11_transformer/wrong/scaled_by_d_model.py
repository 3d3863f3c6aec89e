def transformer_block(X, params, causal=False):
    """Its own attention, scaled by sqrt(d_model)."""
    p = params
    h, d_model = p["num_heads"], X.shape[-1]
    Q, K, V = (split_heads(X @ p[k], h) for k in ("W_q", "W_k", "W_v"))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_model)
    if causal:
        scores = np.where(causal_mask(X.shape[-2]), scores, -np.inf)
    weights = softmax(scores)
    A = merge_heads(weights @ V) @ p["W_o"]
    H = layer_norm(X + A, p["gamma_1"], p["beta_1"])
    F = np.maximum(0.0, H @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"]
    return layer_norm(H + F, p["gamma_2"], p["beta_2"]), weights
