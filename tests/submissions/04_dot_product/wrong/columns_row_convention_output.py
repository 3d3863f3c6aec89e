def dot_product_attention_columns(Q, K, V):
    # turn the columns into rows and reuse the row version
    return dot_product_attention(Q.T, K.T, V.T)
