def self_attention(X, W_q, W_k, W_v, causal=False):
    """A decoder head for (B, T, C) batches."""
    B, T, C = X.shape
    q, k, v = X @ W_q, X @ W_k, X @ W_v
    wei = q @ k.transpose(0, 2, 1) * k.shape[-1] ** -0.5
    if causal:
        tril = np.tril(np.ones((T, T)))
        wei = np.where(tril == 0, -np.inf, wei)
    wei = softmax(wei, axis=-1)
    return wei @ v, wei
