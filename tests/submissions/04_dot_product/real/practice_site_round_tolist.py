"""Practice-site self-attention answer reused for dot attention: scaled scores, output only, `np.round(..., 4).tolist()` (Deep-ML style).

Mistakes: the scores are divided by sqrt(d) (scaled dot-product attention, not Luong's dot); only the output
is returned, not (output, weights); the output is rounded to 4 decimals and returned as a list. The column
version calls the row version on transposes and transposes back, so it inherits all three.
dot_scores is right.
Names: returns_single_array, rounded, scaled_scores
"""


def dot_scores(Q, K):
    return Q @ K.T


def dot_product_attention(Q, K, V):
    d_k = Q.shape[1]
    scores = np.matmul(Q, K.T) / np.sqrt(d_k)
    attention_weights = softmax(scores, axis=1)
    attention_output = np.matmul(attention_weights, V)
    return np.round(attention_output, 4).tolist()


def dot_product_attention_columns(Q, K, V):
    rows = dot_product_attention(Q.T, K.T, V.T)
    return np.array(rows).T.tolist()
