def dot_scores(Q, K):
    """einsum in float32: S[i, j] = sum_d Q[i, d] K[j, d]."""
    return np.einsum("id,jd->ij", Q.astype(np.float32), K.astype(np.float32))


def dot_product_attention(Q, K, V):
    S = dot_scores(Q, K)                                   # (n, m) float32
    E = np.exp(S - S.max(axis=1, keepdims=True))
    weights = E / E.sum(axis=1, keepdims=True)             # rows sum to 1
    return np.einsum("ij,jv->iv", weights, V.astype(np.float32)), weights


def dot_product_attention_columns(Q, K, V):
    S = np.einsum("dj,di->ji", K.astype(np.float32), Q.astype(np.float32))   # (m, n) = K^T Q
    E = np.exp(S - S.max(axis=0, keepdims=True))
    weights = E / E.sum(axis=0, keepdims=True)             # columns sum to 1
    return np.einsum("vj,ji->vi", V.astype(np.float32), weights), weights
