def softmax(x, axis=-1):
    e = np.exp(x - np.max(x))
    return e / np.sum(e)
