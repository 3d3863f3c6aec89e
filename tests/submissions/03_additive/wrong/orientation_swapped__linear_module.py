class Linear:
    """y = x W, as in a framework's dense layer (weights stored (in, out))."""

    def __init__(self, W):
        self.W = W

    def __call__(self, x):
        return x @ self.W


class BahdanauAttention:
    def __init__(self, W_a, U_a, v_a):
        self.query_layer, self.key_layer, self.v = Linear(W_a), Linear(U_a), v_a

    def scores(self, query, keys):
        return np.tanh(self.query_layer(query)[..., None, :] + self.key_layer(keys)) @ self.v


def additive_scores(s_prev, H, W_a, U_a, v_a):
    return BahdanauAttention(W_a, U_a, v_a).scores(s_prev, H)
