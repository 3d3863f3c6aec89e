def softmax(x, axis=-1):
    x = np.clip(x, -500.0, None)  # "avoid -inf": but -inf must get weight exactly 0
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)
