"""Practice-site encoder block (TensorTonic/Deep-ML style template): `layer_norm(..., eps=1e-6)`, its own MHA that unpacks `batch, seq, d_model = x.shape`, no mask argument, one array returned.

Mistakes: layer_norm's default eps is 1e-6 instead of 1e-5 (a passed eps is used); transformer_block has no
`causal` parameter; its attention unpacks exactly three axes and transposes with `(0, 2, 1, 3)`, so it
works only with one batch axis; it returns only the output, not (output, weights). The post-norm order,
the scaling by sqrt(d_head) and the FFN are right.
Names: block_right_but_layer_norm, fixed_rank, ln_eps_value, missing_argument, returns_single_array
"""


def layer_norm(X, gamma, beta, eps=1e-6):
    mean = np.mean(X, axis=-1, keepdims=True)
    var = np.var(X, axis=-1, keepdims=True)
    return gamma * (X - mean) / np.sqrt(var + eps) + beta


def _mha(x, W_q, W_k, W_v, W_o, num_heads):
    batch, seq, d_model = x.shape
    d_k = d_model // num_heads
    Q = (x @ W_q).reshape(batch, seq, num_heads, d_k).transpose(0, 2, 1, 3)
    K = (x @ W_k).reshape(batch, seq, num_heads, d_k).transpose(0, 2, 1, 3)
    V = (x @ W_v).reshape(batch, seq, num_heads, d_k).transpose(0, 2, 1, 3)
    scores = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d_k)
    attn = softmax(scores, axis=-1)
    out = (attn @ V).transpose(0, 2, 1, 3).reshape(batch, seq, d_model)
    return out @ W_o


def transformer_block(X, params):
    p = params
    attn_out = _mha(X, p["W_q"], p["W_k"], p["W_v"], p["W_o"], p["num_heads"])
    x = layer_norm(X + attn_out, p["gamma_1"], p["beta_1"])
    ffn_out = np.maximum(0, x @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"]
    return layer_norm(x + ffn_out, p["gamma_2"], p["beta_2"])
