"""Textbook "attention scoring function" module ported to NumPy: the scoring function already ends in a naive exp/sum softmax, and the batched forward returns only the values (d2l-style AdditiveAttention).

Mistakes: additive_scores returns softmax weights instead of raw scores; that softmax does not subtract the
maximum, so large scores overflow to inf / inf = nan; additive_attention_all returns only the context
matrix (the weights are kept aside, as the module's attribute would be), not the pair (C, A).
Names: weights_as_scores, no_max_subtraction, returns_single_array
"""


def _naive_softmax(x):
    e = np.exp(x)
    return e / e.sum(axis=-1, keepdims=True)


def additive_scores(s_prev, H, W_a, U_a, v_a):
    features = np.tanh(s_prev @ W_a.T + H @ U_a.T)        # (T_x, d_a)
    return _naive_softmax(features @ v_a)                  # already normalised


def additive_attention(s_prev, H, W_a, U_a, v_a):
    alpha = additive_scores(s_prev, H, W_a, U_a, v_a)
    return alpha @ H, alpha


def additive_attention_all(S_prev, H, W_a, U_a, v_a):
    features = np.tanh((S_prev @ W_a.T)[:, None, :] + (H @ U_a.T)[None, :, :])   # (T_y, T_x, d_a)
    attention_weights = _naive_softmax(features @ v_a)                             # (T_y, T_x)
    return attention_weights @ H
