def dot_product_attention_columns(Q, K, V):
    """Use the identity V Softmax(K^T Q) = (softmax(Q^T K) V^T)^T: the row version, transposed."""
    out, weights = dot_product_attention(Q.T, K.T, V.T)    # (n, d_v), (n, m)
    return out.T, weights.T                                # (d_v, n), (m, n)
