class Dense:
    """y = W x for a weight matrix stored (out, in), applied to rows: x @ W.T."""

    def __init__(self, W):
        self.W = W

    def __call__(self, x):
        return x @ self.W.T


class BahdanauAttention:
    def __init__(self, W_a, U_a, v_a):
        self.query, self.key, self.v = Dense(W_a), Dense(U_a), v_a

    def scores(self, s, H):
        return np.tanh(self.query(s)[..., None, :] + self.key(H)) @ self.v   # (..., T_x)

    def __call__(self, s, H):
        e = self.scores(s, H)
        alpha = np.exp(e - e.max(axis=-1, keepdims=True))
        alpha = alpha / alpha.sum(axis=-1, keepdims=True)
        return alpha @ H, alpha


def additive_scores(s_prev, H, W_a, U_a, v_a):
    return BahdanauAttention(W_a, U_a, v_a).scores(s_prev, H)


def additive_attention(s_prev, H, W_a, U_a, v_a):
    return BahdanauAttention(W_a, U_a, v_a)(s_prev, H)


def additive_attention_all(S_prev, H, W_a, U_a, v_a):
    return BahdanauAttention(W_a, U_a, v_a)(S_prev, H)
