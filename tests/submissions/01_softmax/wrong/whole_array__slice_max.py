def softmax(x, axis=-1):
    """Each slice's own maximum subtracted, as it should be, then one sum over everything."""
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / e.sum()
