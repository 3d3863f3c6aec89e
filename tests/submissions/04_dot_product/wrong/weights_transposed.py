def dot_product_attention(Q, K, V):
    alignment = softmax(Q @ K.T, axis=1)        # (n, m)
    return alignment @ V, alignment.T           # weights reported per key
