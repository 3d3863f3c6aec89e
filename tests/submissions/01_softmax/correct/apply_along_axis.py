def _softmax_1d(v):
    e = np.exp(v - v.max())
    return e / e.sum()


def softmax(x, axis=-1):
    return np.apply_along_axis(_softmax_1d, axis, np.asarray(x, dtype=float))
