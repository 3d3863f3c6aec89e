"""Step adapted from 2-D full-sequence attention (`x[:, -1:, :]` habit): the token kept as a (1, d_model) row, y_t returned as (1, d_v), the outputs stacked as (n, 1, d_v).

Mistakes: decode_step returns y_t with shape (1, d_v) instead of (d_v,); decode_sequence stacks those rows
into an (n, 1, d_v) array instead of (n, d_v). The numbers (position, cache, scaling) are all right.
Names: flattened_result
"""


def decode_step(x_t, cache, params):
    x = x_t.reshape(1, -1)                                         # (1, d_model)
    t = cache["K"].shape[0]
    x = x + sinusoidal_encoding(t + 1, x.shape[-1])[t:t + 1]
    q = x @ params["W_q"]                                          # (1, d_k)
    K = np.concatenate([cache["K"], x @ params["W_k"]], axis=0)    # (t+1, d_k)
    V = np.concatenate([cache["V"], x @ params["W_v"]], axis=0)    # (t+1, d_v)
    weights = softmax(q @ K.T / np.sqrt(q.shape[-1]), axis=-1)     # (1, t+1)
    return weights @ V, {"K": K, "V": V}                           # (1, d_v)


def decode_sequence(X, params):
    cache = empty_cache(params["W_k"].shape[1], params["W_v"].shape[1])
    ys = []
    for x_t in X:
        y_t, cache = decode_step(x_t, cache, params)
        ys.append(y_t)
    return np.array(ys), cache
