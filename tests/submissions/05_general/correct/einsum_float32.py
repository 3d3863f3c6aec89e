def general_scores(Q, K, W):
    """einsum in float32: S[i, j] = k_j^T W q_i."""
    return np.einsum("ja,ab,ib->ij", K.astype(np.float32), W.astype(np.float32), Q.astype(np.float32))


def general_attention(Q, K, V, W):
    S = general_scores(Q, K, W)
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    weights = E / E.sum(axis=-1, keepdims=True)
    return weights @ V.astype(np.float32), weights
