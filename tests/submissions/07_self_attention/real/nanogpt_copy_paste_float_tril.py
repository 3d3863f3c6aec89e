"""nanoGPT-habit head: `tril = np.tril(np.ones((n, n)))` float buffer applied as `tril == 0`, keys computed by a copy-pasted `X @ W_q`, scores scaled by `C ** -0.5` with C the embedding width.

Mistakes: causal_mask returns a float 0/1 matrix, not booleans; the keys are computed with W_q (copy-paste),
so the scores are Q Q^T; the scores are scaled by the embedding width d_model instead of d_k. The masking
itself (`np.where(tril == 0, -inf, scores)`) blocks the right keys.
Names: mask_not_boolean, wq_for_keys, scaled_by_d_model
"""


def causal_mask(n):
    return np.tril(np.ones((n, n)))


def self_attention(X, W_q, W_k, W_v, causal=False):
    T, C = X.shape
    q = X @ W_q
    k = X @ W_q
    v = X @ W_v
    wei = q @ k.T * C ** -0.5
    if causal:
        wei = np.where(causal_mask(T) == 0, -np.inf, wei)
    wei = softmax(wei, axis=-1)
    return wei @ v, wei
