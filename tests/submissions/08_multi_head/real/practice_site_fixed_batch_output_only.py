"""Practice-site multi-head attention for (batch, seq, d_model) only: `reshape(...).transpose(0, 2, 1, 3)`, one seq_len for queries and keys, no mask, output only (TensorTonic/LeetGPU-like problems).

Mistakes: split_heads, merge_heads and multi_head_attention unpack exactly three (or four) axes and transpose
with an explicit axis list, so they work with one batch axis only; the keys and values are reshaped with the
queries' seq_len, so cross-attention with m != n fails; there is no `mask` parameter; only the output is
returned, not (output, weights).
Names: fixed_rank, missing_argument
Localised: returns_single_array
"""


def split_heads(X, num_heads):
    batch_size, seq_len, d_model = X.shape
    d_k = d_model // num_heads
    return X.reshape(batch_size, seq_len, num_heads, d_k).transpose(0, 2, 1, 3)


def merge_heads(X):
    batch_size, num_heads, seq_len, d_k = X.shape
    return X.transpose(0, 2, 1, 3).reshape(batch_size, seq_len, num_heads * d_k)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads):
    batch_size, seq_len, d_model = X_q.shape
    d_k = d_model // num_heads
    Q = (X_q @ W_q).reshape(batch_size, seq_len, num_heads, d_k).transpose(0, 2, 1, 3)
    K = (X_kv @ W_k).reshape(batch_size, seq_len, num_heads, d_k).transpose(0, 2, 1, 3)
    V = (X_kv @ W_v).reshape(batch_size, seq_len, num_heads, d_k).transpose(0, 2, 1, 3)
    scores = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d_k)
    attention = softmax(scores, axis=-1)
    heads = attention @ V
    concat = heads.transpose(0, 2, 1, 3).reshape(batch_size, seq_len, d_model)
    return concat @ W_o
