def additive_scores(s_prev, H, W_a, U_a, v_a):
    e = np.tanh(W_a @ s_prev + H @ U_a.T) @ v_a
    return softmax(e)          # scores should be probabilities, shouldn't they?


def additive_attention(s_prev, H, W_a, U_a, v_a):
    alpha = additive_scores(s_prev, H, W_a, U_a, v_a)
    return alpha @ H, alpha
