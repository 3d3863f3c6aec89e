def additive_attention(s_prev, H, W_a, U_a, v_a):
    e = additive_scores(s_prev, H, W_a, U_a, v_a)
    alpha = np.zeros_like(e)
    alpha[np.argmax(e)] = 1.0        # align with the best source position
    return H[np.argmax(e)], alpha
