def additive_attention(s_prev, H, W_a, U_a, v_a):
    alpha = additive_scores(s_prev, H, W_a, U_a, v_a)   # the scores already say how much each h_j matters
    return alpha @ H, alpha
