"""PyTorch conventions in NumPy: True in the mask means "blocked" (`np.where(mask, -1e9, scores)`), keys transposed with `K.transpose(0, 2, 1)` (intern assessments, course projects).

Mistakes: `K.transpose(0, 2, 1)` lists three axes, so only inputs with exactly one batch axis work (unbatched
and doubly batched calls fail); the mask is read in the library convention, True = blocked, so the weights
attend exactly to the keys the contract masks. The -1e9 fill and the scaling are right.
Names: fixed_rank, inverted_mask
"""


def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = np.matmul(Q, K.transpose(0, 2, 1)) / np.sqrt(d_k)
    if mask is not None:
        scores = np.where(mask, -1e9, scores)
    weights = softmax(scores, axis=-1)
    return np.matmul(weights, V), weights
