def dot_product_attention(Q, K, V):
    return softmax(Q @ K.T, axis=-1) @ V
