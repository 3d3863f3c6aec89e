class GeneralAttention:
    """Luong 'general' attention: score(h_t, h_s) = h_t^T W_a h_s, here with the key on the left."""

    def __init__(self, W):
        self.W = W                                   # (d_k, d_q)

    def score(self, Q, K):
        return np.einsum("md,de,ne->nm", K, self.W, Q)

    def __call__(self, Q, K, V):
        s = self.score(Q, K)
        p = np.exp(s - s.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        return p @ V, p


def general_scores(Q, K, W):
    return GeneralAttention(W).score(Q, K)


def general_attention(Q, K, V, W):
    return GeneralAttention(W)(Q, K, V)
