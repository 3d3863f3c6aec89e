"""Practice-site answer with a loop over column blocks: per-head scaled attention, `np.concatenate` of the heads, no W_o, no mask, output only, 2-D only (Deep-ML multi_head_attention style).

Mistakes: split_heads and merge_heads split and glue along axis 1 and over the first axis, which is right
only without batch axes; the attention loop uses `K_h.T`, so batched inputs fail; there is no `mask`
parameter; the concatenated heads are returned without the output projection W_o; only the output is
returned, not (output, weights). Each head's scaling by sqrt(d_head) is right.
Names: fixed_rank, missing_argument, missing_wo, returns_single_array
"""


def split_heads(X, num_heads):
    return np.array(np.split(X, num_heads, axis=1))


def merge_heads(X):
    return np.concatenate(list(X), axis=1)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads):
    Q, K, V = X_q @ W_q, X_kv @ W_k, X_kv @ W_v
    d_head = Q.shape[1] // num_heads
    outputs = []
    for h in range(num_heads):
        cols = slice(h * d_head, (h + 1) * d_head)
        Q_h, K_h, V_h = Q[:, cols], K[:, cols], V[:, cols]
        weights = softmax(Q_h @ K_h.T / np.sqrt(d_head), axis=-1)
        outputs.append(weights @ V_h)
    return np.concatenate(outputs, axis=1)
