def softmax(x, axis=-1):
    z = x - np.max(x, axis=-1, keepdims=True)
    numerator = np.exp(z)
    return numerator / np.sum(numerator, axis=-1, keepdims=True)
