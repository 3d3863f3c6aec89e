class SelfAttention:
    """A single-head self-attention layer; forward returns the new token representations."""

    def __init__(self, W_q, W_k, W_v):
        self.W_q, self.W_k, self.W_v = W_q, W_k, W_v

    def forward(self, X, causal=False):
        Q, K, V = X @ self.W_q, X @ self.W_k, X @ self.W_v
        scores = Q @ K.T / np.sqrt(Q.shape[-1])
        if causal:
            scores = np.where(causal_mask(len(X)), scores, -np.inf)
        return softmax(scores, axis=-1) @ V


def self_attention(X, W_q, W_k, W_v, causal=False):
    return SelfAttention(W_q, W_k, W_v).forward(X, causal)
