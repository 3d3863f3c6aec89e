def general_scores(Q, K, W):
    return np.einsum("bnq,kq,bmk->bnm", Q, W, K)


def general_attention(Q, K, V, W):
    weights = softmax(general_scores(Q, K, W), axis=-1)
    return np.einsum("bnm,bmv->bnv", weights, V), weights
