def additive_attention_all(S_prev, H, W_a, U_a, v_a):
    E = np.tanh(S_prev @ W_a.T + H @ U_a.T) @ v_a
    A = softmax(E, axis=-1)
    return A @ H, A
