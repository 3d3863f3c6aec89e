def decode_sequence(X, params):
    cache = empty_cache(params["W_k"].shape[1], params["W_v"].shape[1])
    rows = []
    for x_t in X:
        y_t, new_cache = decode_step(x_t, cache, params)   # new_cache is dropped
        rows.append(y_t)
    return np.array(rows), cache
