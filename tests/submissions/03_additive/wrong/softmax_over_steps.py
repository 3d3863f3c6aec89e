def additive_attention_all(S_prev, H, W_a, U_a, v_a):
    E = np.tanh((S_prev @ W_a.T)[:, None, :] + (H @ U_a.T)[None, :, :]) @ v_a   # (T_y, T_x)
    A = softmax(E, axis=0)
    return A @ H, A
