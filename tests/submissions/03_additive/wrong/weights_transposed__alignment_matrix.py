def additive_attention_all(S_prev, H, W_a, U_a, v_a):
    """Returns the alignment matrix as plotted in the paper: input positions down, output steps across."""
    hidden = np.tanh((S_prev @ W_a.T)[:, None, :] + (H @ U_a.T)[None, :, :])   # (T_y, T_x, d_a)
    A = softmax(hidden @ v_a, axis=-1)                                          # (T_y, T_x)
    return A @ H, A.T
