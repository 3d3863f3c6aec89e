def layer_norm(X, gamma, beta, eps=1e-6):
    """Keras's and the Annotated Transformer's eps, hard-coded: the eps passed in is ignored."""
    mean = X.mean(axis=-1, keepdims=True)
    var = ((X - mean) ** 2).mean(axis=-1, keepdims=True)
    return gamma * (X - mean) / np.sqrt(var + 1e-6) + beta
