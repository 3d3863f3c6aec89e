"""An encoder block from a tutorial, reused for decoding: it takes `causal` to match the call but never
masks, and returns only the block's output (the weights are dropped, as most tutorials' blocks do).

Mistakes: with causal=True every query still attends to later tokens; only the output is returned.
Names: returns_single_array, causal_ignored
"""


def transformer_block(X, params, causal=False):
    attention, _weights = multi_head_attention(X, X, params["W_q"], params["W_k"], params["W_v"], params["W_o"],
                                               params["num_heads"])
    hidden = layer_norm(X + attention, params["gamma_1"], params["beta_1"])
    inner = np.maximum(hidden @ params["W_1"] + params["b_1"], 0.0)
    return layer_norm(hidden + inner @ params["W_2"] + params["b_2"], params["gamma_2"], params["beta_2"])
