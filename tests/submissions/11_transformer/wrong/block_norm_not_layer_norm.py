def transformer_block(X, params, causal=False):
    """Normalises by hand inside the block, with the sample variance (as torch.var does)."""
    p = params
    mask = causal_mask(X.shape[-2]) if causal else None
    A, weights = multi_head_attention(X, X, p["W_q"], p["W_k"], p["W_v"], p["W_o"], p["num_heads"], mask=mask)

    def norm(Z, gamma, beta):
        Z = Z - Z.mean(axis=-1, keepdims=True)
        return Z / np.sqrt(Z.var(axis=-1, ddof=1, keepdims=True) + 1e-5) * gamma + beta

    H = norm(X + A, p["gamma_1"], p["beta_1"])
    F = np.maximum(0.0, H @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"]
    return norm(H + F, p["gamma_2"], p["beta_2"]), weights
