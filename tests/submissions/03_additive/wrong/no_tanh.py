def additive_scores(s_prev, H, W_a, U_a, v_a):
    # "additive": add the two projections and read them with v_a
    return (W_a @ s_prev + H @ U_a.T) @ v_a
