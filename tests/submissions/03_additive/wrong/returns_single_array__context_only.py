def additive_scores(s_prev, H, W_a, U_a, v_a):
    return np.tanh(W_a @ s_prev + H @ U_a.T) @ v_a


def additive_attention(s_prev, H, W_a, U_a, v_a):
    """Returns the context vector, as a decoder step needs it."""
    alpha = softmax(additive_scores(s_prev, H, W_a, U_a, v_a))
    return alpha @ H


def additive_attention_all(S_prev, H, W_a, U_a, v_a):
    E = np.tanh((S_prev @ W_a.T)[:, None, :] + (H @ U_a.T)[None, :, :]) @ v_a
    return softmax(E, axis=-1) @ H
