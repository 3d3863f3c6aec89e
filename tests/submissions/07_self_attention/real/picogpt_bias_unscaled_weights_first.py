"""picoGPT-style attention: causal bias `(1 - np.tri(n)) * -1e10` added to the scores, no scaling, `(attn, out)` returned (GPT-in-NumPy derivatives).

Mistakes: causal_mask returns the additive float bias (0 where visible, -1e10 where blocked) instead of a
boolean mask; self_attention adds that bias (which blocks the right keys) but does not divide the scores by
sqrt(d_k); it returns (weights, output), the weights first.
Names: additive_mask, no_scaling, outputs_in_wrong_order
"""


def causal_mask(n):
    return (1 - np.tri(n)) * -1e10


def self_attention(X, W_q, W_k, W_v, causal=False):
    q, k, v = X @ W_q, X @ W_k, X @ W_v
    scores = q @ k.T
    if causal:
        scores = scores + causal_mask(X.shape[0])
    attn = softmax(scores)
    return attn, attn @ v
