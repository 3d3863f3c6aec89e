class DotProductAttention:
    """Luong 'dot' attention as a layer, in float32."""

    def __call__(self, queries, keys, values):
        q, k, v = (np.asarray(a, dtype=np.float32) for a in (queries, keys, values))
        scores = np.einsum("nd,md->nm", q, k)
        scores -= scores.max(axis=1, keepdims=True)
        attn = np.exp(scores)
        attn /= attn.sum(axis=1, keepdims=True)
        return np.einsum("nm,mv->nv", attn, v), attn


def dot_scores(Q, K):
    return np.einsum("nd,md->nm", Q, K)


def dot_product_attention(Q, K, V):
    return DotProductAttention()(Q, K, V)


def dot_product_attention_columns(Q, K, V):
    out, weights = DotProductAttention()(Q.T, K.T, V.T)
    return out.T, weights.T
