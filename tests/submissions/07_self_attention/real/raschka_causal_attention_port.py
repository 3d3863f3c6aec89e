"""Port of a batched PyTorch CausalAttention module (LLM-from-scratch book style): `b, num_tokens, d_in = X.shape`, `keys.transpose(0, 2, 1)`, a `triu(k=1)` "future" mask used as `np.where(mask, -inf, scores)`, context vectors returned.

Mistakes: causal_mask returns the library convention, True above the diagonal (the positions to block),
which is the contract's mask inverted (self_attention uses it consistently); self_attention unpacks three
axes and transposes with `(0, 2, 1)`, so it needs a leading batch axis the contract's (n, d_model) inputs do
not have; only the context vectors are returned, not (output, weights).
Names: causal_true_means_blocked, written_for_batches
Localised: returns_single_array
"""


def causal_mask(n):
    return np.triu(np.ones((n, n)), k=1).astype(bool)


def self_attention(X, W_q, W_k, W_v, causal=False):
    b, num_tokens, d_in = X.shape
    keys = X @ W_k
    queries = X @ W_q
    values = X @ W_v
    attn_scores = queries @ keys.transpose(0, 2, 1)
    if causal:
        attn_scores = np.where(causal_mask(num_tokens), -np.inf, attn_scores)
    attn_weights = softmax(attn_scores / keys.shape[-1] ** 0.5, axis=-1)
    context_vec = attn_weights @ values
    return context_vec
