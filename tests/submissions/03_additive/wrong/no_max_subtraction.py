def additive_scores(s_prev, H, W_a, U_a, v_a):
    return np.tanh(W_a @ s_prev + H @ U_a.T) @ v_a


def additive_attention(s_prev, H, W_a, U_a, v_a):
    e = additive_scores(s_prev, H, W_a, U_a, v_a)
    alpha = np.exp(e) / np.sum(np.exp(e))
    return alpha @ H, alpha


def additive_attention_all(S_prev, H, W_a, U_a, v_a):
    E = np.tanh((S_prev @ W_a.T)[:, None, :] + (H @ U_a.T)[None, :, :]) @ v_a
    A = np.exp(E) / np.exp(E).sum(axis=1, keepdims=True)
    return A @ H, A
