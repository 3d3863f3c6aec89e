import math


def additive_scores(s_prev, H, W_a, U_a, v_a):
    e = []
    for h_j in H:                                  # one score per input position
        u = np.tanh(W_a @ s_prev + U_a @ h_j)      # (d_a,)
        e.append(float(v_a @ u))
    return np.array(e)


def additive_attention(s_prev, H, W_a, U_a, v_a):
    e = additive_scores(s_prev, H, W_a, U_a, v_a)
    m = max(e)
    weights = [math.exp(x - m) for x in e]
    total = sum(weights)
    alpha = np.array([w / total for w in weights])
    c = np.zeros(H.shape[1])
    for a_j, h_j in zip(alpha, H):
        c += a_j * h_j
    return c, alpha


def additive_attention_all(S_prev, H, W_a, U_a, v_a):
    pairs = [additive_attention(s, H, W_a, U_a, v_a) for s in S_prev]
    return np.array([c for c, _ in pairs]), np.array([a for _, a in pairs])
