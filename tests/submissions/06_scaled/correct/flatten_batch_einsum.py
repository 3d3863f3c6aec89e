def scaled_dot_product_attention(Q, K, V, mask=None):
    """Explicit batch letters on a flattened batch: (..., n, d) -> (b, n, d) and back."""
    *batch, n, d_k = Q.shape
    m, d_v = K.shape[-2], V.shape[-1]
    lead = np.broadcast_shapes(tuple(batch), K.shape[:-2], V.shape[:-2])
    q = np.broadcast_to(Q, (*lead, n, d_k)).reshape(-1, n, d_k)
    k = np.broadcast_to(K, (*lead, m, d_k)).reshape(-1, m, d_k)
    v = np.broadcast_to(V, (*lead, m, d_v)).reshape(-1, m, d_v)
    scores = np.einsum("bnd,bmd->bnm", q, k) / np.sqrt(d_k)
    if mask is not None:
        visible = np.broadcast_to(mask, (*lead, n, m)).reshape(-1, n, m)
        scores = np.where(visible, scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    out = np.einsum("bnm,bmv->bnv", weights, v)
    return out.reshape(*lead, n, d_v), weights.reshape(*lead, n, m)
