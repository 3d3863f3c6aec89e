def additive_scores(s_prev, H, W_a, U_a, v_a):
    return np.tanh(U_a @ s_prev + H @ W_a.T) @ v_a
