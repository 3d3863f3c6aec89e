def causal_mask(n):
    positions = np.arange(n)
    return positions[:, None] >= positions[None, :]


def self_attention(X, W_q, W_k, W_v, causal=False):
    Q = np.einsum("nd,dk->nk", X, W_q)
    K = np.einsum("nd,dk->nk", X, W_k)
    V = np.einsum("nd,dv->nv", X, W_v)
    logits = np.einsum("ik,jk->ij", Q, K) / np.sqrt(W_k.shape[-1])
    if causal:
        logits = np.where(causal_mask(len(X)), logits, -np.inf)
    logits -= logits.max(axis=-1, keepdims=True)
    weights = np.exp(logits)
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights
