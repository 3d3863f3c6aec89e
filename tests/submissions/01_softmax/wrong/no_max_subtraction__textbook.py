def softmax(x, axis=-1):
    """The textbook formula, straight from the definition."""
    return np.exp(x) / np.sum(np.exp(x), axis=axis, keepdims=True)
