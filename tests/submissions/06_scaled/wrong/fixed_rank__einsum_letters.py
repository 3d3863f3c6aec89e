def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = np.einsum("bnd,bmd->bnm", Q, K) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores, axis=-1)
    return np.einsum("bnm,bmv->bnv", weights, V), weights
