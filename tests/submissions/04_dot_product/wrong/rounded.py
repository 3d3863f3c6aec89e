def dot_scores(Q, K):
    return Q @ np.swapaxes(K, -1, -2)


def dot_product_attention(Q, K, V):
    """Rounded to 4 decimals, as practice sites ask their answers to be."""
    weights = softmax(dot_scores(Q, K), axis=-1)
    return np.round(weights @ V, 4), np.round(weights, 4)


def dot_product_attention_columns(Q, K, V):
    out, weights = dot_product_attention(Q.T, K.T, V.T)
    return out.T, weights
