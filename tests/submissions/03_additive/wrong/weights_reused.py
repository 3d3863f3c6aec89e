def additive_attention_all(S_prev, H, W_a, U_a, v_a):
    # compute the alignment once, from the first decoder state, and use it for every step
    c, alpha = additive_attention(S_prev[0], H, W_a, U_a, v_a)
    T_y = S_prev.shape[0]
    return np.tile(c, (T_y, 1)), np.tile(alpha, (T_y, 1))
