def softmax(x, axis=-1):
    x = np.asarray(x, dtype=float)
    exps = np.exp(x - x.max())                 # one shift for all rows
    return exps / exps.sum(axis=axis, keepdims=True)
