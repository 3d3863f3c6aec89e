"""Practice-site answer: `d_k = np.sqrt(Q.shape[1])` then `/ np.sqrt(d_k)`, `K.T`, no mask argument, only the output returned (Deep-ML style).

Mistakes: there is no `mask` parameter; d_k is read as `Q.shape[1]` (the number of queries on batched input)
and its square root is taken twice, so the scores are divided by d_k ** 0.25; `K.T` reverses all the axes
of a batched K, so batched calls fail; only the output is returned, not (output, weights).
Names: k_transpose_batched, missing_argument, returns_single_array
Localised: fixed_rank
"""


def _softmax(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def scaled_dot_product_attention(Q, K, V):
    d_k = np.sqrt(Q.shape[1])
    scores = np.matmul(Q, K.T) / np.sqrt(d_k)
    attention_weights = _softmax(scores)
    return np.matmul(attention_weights, V)
