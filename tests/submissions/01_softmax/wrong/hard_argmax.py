def softmax(x, axis=-1):
    winners = np.argmax(x, axis=axis)
    out = np.zeros_like(x, dtype=float)
    np.put_along_axis(out, np.expand_dims(winners, axis), 1.0, axis=axis)
    return out
