def dot_product_attention(Q, K, V):
    attn = softmax(np.dot(Q, K.T), axis=-1)
    return attn, np.dot(attn, V)
