def transformer_block(X, params, causal=False):
    """Its own attention, the future masked with a fill of -30."""
    p = params
    h = p["num_heads"]
    Q, K, V = (split_heads(X @ p[k], h) for k in ("W_q", "W_k", "W_v"))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if causal:
        scores = np.where(causal_mask(X.shape[-2]), scores, -30.0)
    weights = softmax(scores)
    A = merge_heads(weights @ V) @ p["W_o"]
    H = layer_norm(X + A, p["gamma_1"], p["beta_1"])
    F = np.maximum(0.0, H @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"]
    return layer_norm(H + F, p["gamma_2"], p["beta_2"]), weights
