def dot_product_attention(Q, K, V):
    scores = Q @ K.T
    weights = softmax(scores, axis=0)
    return weights @ V, weights
