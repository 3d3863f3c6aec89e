def softmax(x, axis=-1):
    x -= np.max(x, axis=axis, keepdims=True)  # changes the caller's array
    np.exp(x, out=x)
    x /= np.sum(x, axis=axis, keepdims=True)
    return x
