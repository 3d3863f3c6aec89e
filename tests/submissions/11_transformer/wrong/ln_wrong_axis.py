def layer_norm(X, gamma, beta, eps=1e-5):
    mean = X.mean(axis=0, keepdims=True)              # over the positions
    var = X.var(axis=0, keepdims=True)
    return (X - mean) / np.sqrt(var + eps) * gamma + beta
