def softmax(x, axis=-1):
    """Move the axis last, work on rows, move it back; returns a list-free ndarray."""
    moved = np.swapaxes(np.asarray(x, dtype=float), axis, -1)
    e = np.exp(moved - moved.max(axis=-1)[..., None])
    return np.swapaxes(e / e.sum(axis=-1)[..., None], -1, axis)
