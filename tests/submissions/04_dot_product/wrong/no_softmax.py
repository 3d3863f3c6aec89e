def dot_product_attention(Q, K, V):
    weights = Q @ K.T          # the scores say how much each key matters
    return weights @ V, weights
