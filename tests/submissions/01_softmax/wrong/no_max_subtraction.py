def softmax(x, axis=-1):
    e = np.exp(x)  # overflows to inf for scores above ~709
    return e / np.sum(e, axis=axis, keepdims=True)
