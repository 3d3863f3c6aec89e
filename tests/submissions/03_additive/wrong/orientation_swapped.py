def additive_scores(s_prev, H, W_a, U_a, v_a):
    # row vectors on the left of the weights
    return np.tanh(s_prev @ W_a + H @ U_a) @ v_a
