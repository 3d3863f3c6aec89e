"""Course homework `multiplicative_attention` (score s^T W h) ported to rows as Q W K^T, global-max softmax, only the output returned.

Mistakes: the scores are Q W K^T, i.e. q_i^T W k_j, which uses W the wrong way round (it needs d_q = d_k to
run at all); the softmax subtracts the maximum of the whole score matrix instead of each row's (rows far
below it underflow to 0 / 0); general_attention returns only the output, not (output, weights).
Names: w_not_transposed, returns_single_array
"""


def _homework_softmax(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e, axis=-1, keepdims=True)


def general_scores(Q, K, W):
    return Q @ W @ K.T


def general_attention(Q, K, V, W):
    weights = _homework_softmax(general_scores(Q, K, W))
    return weights @ V
