def dot_product_attention_columns(Q, K, V):
    scores = K.T @ Q                     # (m, n)
    weights = softmax(scores)            # default axis=-1, as in the row convention
    return V @ weights, weights
