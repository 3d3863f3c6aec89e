def additive_attention(s_prev, H, W_a, U_a, v_a):
    alpha = softmax(additive_scores(s_prev, H, W_a, U_a, v_a))
    return alpha, alpha @ H
