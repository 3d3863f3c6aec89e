"""KV-cache blog "in plain Python": a stateful cache object with key and value lists, no positional encoding, scores scaled by sqrt(d_model), wrapped in the contract's functions.

Mistakes: the token's position is never added (x_t goes into the projections as it is); the scores are
divided by sqrt(d_model), the width of the token, instead of sqrt(d_k). The cache itself is grown
correctly: the new key and value are appended before the query attends.
Names: position_not_added, scaled_by_d_model
"""


class _KVCache:
    def __init__(self, cache):
        self.keys = list(cache["K"])
        self.values = list(cache["V"])

    def append(self, k, v):
        self.keys.append(k)
        self.values.append(v)

    def as_dict(self, d_k, d_v):
        return {"K": np.array(self.keys).reshape(-1, d_k), "V": np.array(self.values).reshape(-1, d_v)}


def decode_step(x_t, cache, params):
    d_model = x_t.shape[-1]
    store = _KVCache(cache)
    q, k, v = x_t @ params["W_q"], x_t @ params["W_k"], x_t @ params["W_v"]
    store.append(k, v)
    K, V = np.array(store.keys), np.array(store.values)
    weights = softmax(K @ q / np.sqrt(d_model))
    return weights @ V, store.as_dict(k.shape[-1], v.shape[-1])


def decode_sequence(X, params):
    cache = empty_cache(params["W_k"].shape[1], params["W_v"].shape[1])
    outputs = []
    for x_t in X:
        y_t, cache = decode_step(x_t, cache, params)
        outputs.append(y_t)
    return np.array(outputs), cache
