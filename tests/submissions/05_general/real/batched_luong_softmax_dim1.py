"""PyTorch/Keras Luong "general" attention for (B, T, d) tensors ported to NumPy: keys projected by W, `transpose(0, 2, 1)`, softmax over dim 1.

Mistakes: the code is written for exactly one leading batch axis (`transpose(0, 2, 1)` needs three axes),
so it fails on the contract's unbatched (n, d) inputs; on (B, n, m) scores, softmax over axis 1 normalises
over the queries, not the keys. Projecting the keys first (K W, then Q (K W)^T) is itself right.
Names: written_for_batches
Localised: softmax_over_queries
"""


def general_scores(Q, K, W):
    projected_keys = K @ W                                     # (B, m, d_q)
    return np.matmul(Q, projected_keys.transpose(0, 2, 1))     # (B, n, m)


def general_attention(Q, K, V, W):
    energies = general_scores(Q, K, W)
    weights = softmax(energies, axis=1)
    context = np.matmul(weights, V)
    return context, weights
