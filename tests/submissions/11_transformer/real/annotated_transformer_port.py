"""Port of the Annotated Transformer's LayerNorm and SublayerConnection: unbiased `std`, `/ (std + eps)` with eps=1e-6, pre-norm residuals, the layer returning x only.

Mistakes: layer_norm uses the sample standard deviation (ddof=1, the torch default), adds eps outside the
square root, and defaults to eps=1e-6; transformer_block applies each sub-layer as x + Sublayer(LN(x))
(pre-norm, as the Annotated Transformer's code does) instead of LN(x + Sublayer(x)); it returns only the
output, not (output, weights).
Names: pre_norm, returns_single_array
Localised: ln_eps_outside_sqrt, ln_eps_value, ln_sample_variance
"""


def layer_norm(X, gamma, beta, eps=1e-6):
    mean = X.mean(axis=-1, keepdims=True)
    std = X.std(axis=-1, keepdims=True, ddof=1)
    return gamma * (X - mean) / (std + eps) + beta


def _sublayer_connection(x, gamma, beta, sublayer):
    return x + sublayer(layer_norm(x, gamma, beta))


def transformer_block(X, params, causal=False):
    p = params
    mask = causal_mask(X.shape[-2]) if causal else None

    def self_attn(x):
        return multi_head_attention(x, x, p["W_q"], p["W_k"], p["W_v"], p["W_o"], p["num_heads"], mask)[0]

    def feed_forward(x):
        return np.maximum(0.0, x @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"]

    x = _sublayer_connection(X, p["gamma_1"], p["beta_1"], self_attn)
    return _sublayer_connection(x, p["gamma_2"], p["beta_2"], feed_forward)
