"""Video-series notebook: mask ADDED to the scaled scores (`scaled + mask`, meant for 0/-inf float masks), softmax `(exp(x).T / sum(exp(x), -1).T).T` without the max, `K.T`.

Mistakes: `K.T` reverses all the axes, so batched inputs fail; the boolean mask is added to the scores, so
True becomes +1 and nothing is blocked; the softmax subtracts no maximum, so large scores overflow to nan.
(The transposed softmax itself normalises the last axis correctly for any rank.)
Names: k_transpose_batched, mask_added, no_max_subtraction
Localised: fixed_rank
"""


def _softmax(x):
    return (np.exp(x).T / np.sum(np.exp(x), axis=-1).T).T


def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scaled = np.matmul(Q, K.T) / np.sqrt(d_k)
    if mask is not None:
        scaled = scaled + mask
    attention = _softmax(scaled)
    values = np.matmul(attention, V)
    return values, attention
