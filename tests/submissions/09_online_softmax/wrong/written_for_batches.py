def online_softmax_attention(Q, K, V, block_size):
    """Flash-style forward pass over (batch, n, d) tensors."""
    B, n, d = Q.shape
    m = K.shape[1]
    row_max = np.full((B, n), -np.inf)
    row_sum = np.zeros((B, n))
    acc = np.zeros((B, n, V.shape[-1]))
    for j in range(0, m, block_size):
        S = Q @ K[:, j:j + block_size].transpose(0, 2, 1) / np.sqrt(d)
        new_max = np.maximum(row_max, S.max(axis=-1))
        P = np.exp(S - new_max[..., None])
        alpha = np.exp(row_max - new_max)
        row_sum = row_sum * alpha + P.sum(axis=-1)
        acc = acc * alpha[..., None] + P @ V[:, j:j + block_size]
        row_max = new_max
    return acc / row_sum[..., None]
