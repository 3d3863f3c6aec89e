def layer_norm(X, gamma, beta, eps=1e-5):
    """Sample variance (ddof=1), as pandas and torch.var default to."""
    mean = X.mean(axis=-1, keepdims=True)
    std = X.std(axis=-1, keepdims=True, ddof=1)
    return (X - mean) / np.sqrt(std ** 2 + eps) * gamma + beta


def transformer_block(X, params, causal=False):
    """The post-norm block of the paper, right, through the layer_norm above."""
    p = params
    mask = causal_mask(X.shape[-2]) if causal else None
    A, weights = multi_head_attention(X, X, p["W_q"], p["W_k"], p["W_v"], p["W_o"], p["num_heads"], mask=mask)
    H = layer_norm(X + A, p["gamma_1"], p["beta_1"])
    F = np.maximum(0.0, H @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"]
    return layer_norm(H + F, p["gamma_2"], p["beta_2"]), weights
