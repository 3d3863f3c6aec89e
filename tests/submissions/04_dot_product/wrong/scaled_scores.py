def dot_product_attention(Q, K, V):
    weights = softmax(Q @ K.T / np.sqrt(K.shape[1]), axis=-1)
    return weights @ V, weights
