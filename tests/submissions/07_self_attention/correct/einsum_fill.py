def causal_mask(n):
    i = np.arange(n)[:, None]
    j = np.arange(n)[None, :]
    return j <= i


def self_attention(X, W_q, W_k, W_v, causal=False):
    """einsum for the scores, a -1e9 fill for the mask, the softmax written out."""
    Q = np.einsum("nd,dk->nk", X, W_q)
    K = np.einsum("nd,dk->nk", X, W_k)
    V = np.einsum("nd,dv->nv", X, W_v)
    scores = np.einsum("ik,jk->ij", Q, K) / np.sqrt(W_k.shape[1])
    if causal:
        scores = np.where(causal_mask(len(X)), scores, -1e9)
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = e / e.sum(axis=1, keepdims=True)
    return np.einsum("ij,jv->iv", weights, V), weights
