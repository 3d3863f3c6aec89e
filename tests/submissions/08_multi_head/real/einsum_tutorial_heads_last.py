"""Einsum multi-head tutorial ported to NumPy: heads kept as (N, len, heads, head_dim), `'nqhd,nkhd->nhqk'`, `mask == 0 -> -1e20`, energy divided by `embed_size ** 0.5`, output only.

Mistakes: split_heads stops at (..., n, num_heads, d_head) (the tutorial lets einsum find the heads), so
the heads axis is never moved before the tokens; merge_heads reshapes straight to (..., n, d_model), which
fits the tutorial's (n, heads, d) layout but not the contract's (heads, n, d_head) input; the einsum
subscripts carry exactly one batch letter, so only inputs with one batch axis work; the scores are divided
by sqrt(d_model) instead of sqrt(d_head); only the output is returned. The -1e20 fill blocks the right keys.
Names: heads_axis_not_moved, merge_no_transpose, fixed_rank, scaled_by_d_model, returns_single_array
"""


def split_heads(X, num_heads):
    *lead, length, embed_size = X.shape
    return X.reshape(*lead, length, num_heads, embed_size // num_heads)


def merge_heads(X):
    *lead, heads, length, head_dim = X.shape
    return X.reshape(*lead, length, heads * head_dim)


def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    N, query_len, embed_size = X_q.shape
    key_len = X_kv.shape[1]
    head_dim = embed_size // num_heads
    queries = (X_q @ W_q).reshape(N, query_len, num_heads, head_dim)
    keys = (X_kv @ W_k).reshape(N, key_len, num_heads, head_dim)
    values = (X_kv @ W_v).reshape(N, key_len, num_heads, head_dim)
    energy = np.einsum("nqhd,nkhd->nhqk", queries, keys)
    if mask is not None:
        energy = np.where(np.asarray(mask)[..., None, :, :] == 0, -1e20, energy)
    attention = softmax(energy / embed_size ** 0.5, axis=3)
    out = np.einsum("nhql,nlhd->nqhd", attention, values).reshape(N, query_len, num_heads * head_dim)
    return out @ W_o
