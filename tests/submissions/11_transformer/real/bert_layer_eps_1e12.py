"""Port of a BERT encoder layer (Hugging Face BertLayer style): LayerNorm eps=1e-12, extended attention mask `(1 - mask) * -10000.0` added to the scores.

Mistakes: layer_norm's default eps is 1e-12 (BERT's) instead of 1e-5, so the block, which uses it, is off
on tokens of small spread. The additive -10000 mask leaves masked weights above 0 when the scores are in the
thousands (the causal test's large inputs); otherwise the post-norm block itself is right.
Names: block_right_but_layer_norm, ln_eps_value
"""


def layer_norm(X, gamma, beta, eps=1e-12):
    u = X.mean(axis=-1, keepdims=True)
    s = ((X - u) ** 2).mean(axis=-1, keepdims=True)
    return gamma * ((X - u) / np.sqrt(s + eps)) + beta


def _self_attention(hidden, p, attention_mask):
    h = p["num_heads"]

    def transpose_for_scores(x):
        *lead, n, d = x.shape
        return np.swapaxes(x.reshape(*lead, n, h, d // h), -3, -2)

    q, k, v = (transpose_for_scores(hidden @ p[name]) for name in ("W_q", "W_k", "W_v"))
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if attention_mask is not None:
        scores = scores + attention_mask
    probs = softmax(scores, axis=-1)
    context = np.swapaxes(probs @ v, -3, -2)
    context = context.reshape(*context.shape[:-2], -1)
    return context @ p["W_o"], probs


def transformer_block(X, params, causal=False):
    p = params
    n = X.shape[-2]
    extended_mask = (1.0 - causal_mask(n)) * -10000.0 if causal else None
    attention_output, probs = _self_attention(X, p, extended_mask)
    attention_output = layer_norm(attention_output + X, p["gamma_1"], p["beta_1"])
    intermediate = np.maximum(0.0, attention_output @ p["W_1"] + p["b_1"])
    layer_output = layer_norm(intermediate @ p["W_2"] + p["b_2"] + attention_output, p["gamma_2"], p["beta_2"])
    return layer_output, probs
