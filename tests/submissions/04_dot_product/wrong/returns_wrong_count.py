def dot_product_attention(Q, K, V):
    scores = Q @ K.T
    weights = softmax(scores, axis=-1)
    return weights @ V, weights, scores
