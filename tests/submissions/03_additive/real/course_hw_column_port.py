"""Course homework in the column convention ported to the contract: (1, T_x) score row, global-max softmax along axis 1, only the attention output returned (widely forked NLP course homework).

Mistakes: additive_scores returns the scores as a (1, T_x) row instead of a (T_x,) vector; the softmax
subtracts the maximum of the whole array (harmless on the single row used here); additive_attention and
additive_attention_all return only the context, not the pair (context, weights).
Names: flattened_result, returns_single_array
"""


def _column_softmax_row(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e, axis=1, keepdims=True)


def additive_scores(s_prev, H, W_a, U_a, v_a):
    s = s_prev.reshape(-1, 1)                          # (d_s, 1) column
    hidden = np.tanh(W_a @ s + U_a @ H.T)              # (d_a, T_x)
    return v_a.reshape(1, -1) @ hidden                 # (1, T_x)


def additive_attention(s_prev, H, W_a, U_a, v_a):
    scores = additive_scores(s_prev, H, W_a, U_a, v_a)     # (1, T_x)
    alpha = _column_softmax_row(scores)                    # (1, T_x)
    return (alpha @ H)[0]                                  # (d_h,)


def additive_attention_all(S_prev, H, W_a, U_a, v_a):
    return np.stack([additive_attention(s, H, W_a, U_a, v_a) for s in S_prev])
