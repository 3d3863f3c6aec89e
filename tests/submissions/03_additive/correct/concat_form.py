def additive_scores(s_prev, H, W_a, U_a, v_a):
    # Luong's "concat" score: v_a . tanh(W [s; h]) with W = [W_a  U_a], the same number
    W = np.concatenate([W_a, U_a], axis=1)                            # (d_a, d_s + d_h)
    pairs = np.concatenate([np.tile(s_prev, (len(H), 1)), H], axis=1)  # (T_x, d_s + d_h), row j = [s; h_j]
    return np.tanh(pairs @ W.T) @ v_a


def additive_attention(s_prev, H, W_a, U_a, v_a):
    alpha = softmax(additive_scores(s_prev, H, W_a, U_a, v_a))
    return H.T @ alpha, alpha


def additive_attention_all(S_prev, H, W_a, U_a, v_a):
    A = np.stack([softmax(additive_scores(s, H, W_a, U_a, v_a)) for s in S_prev])
    return A @ H, A
