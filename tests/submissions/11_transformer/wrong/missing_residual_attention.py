def transformer_block(X, params, causal=False):
    p = params
    mask = causal_mask(X.shape[-2]) if causal else None

    def attend(Z):
        return multi_head_attention(Z, Z, p["W_q"], p["W_k"], p["W_v"], p["W_o"], p["num_heads"], mask=mask)

    def ffn(Z):
        return np.maximum(0.0, Z @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"]

    A, weights = attend(X)
    H = layer_norm(A, p["gamma_1"], p["beta_1"])
    return layer_norm(H + ffn(H), p["gamma_2"], p["beta_2"]), weights
