def softmax(x, axis=-1):
    """Through the log-sum-exp: log softmax(x) = x - logsumexp(x)."""
    m = np.max(x, axis=axis, keepdims=True)
    lse = m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
    return np.exp(x - lse)
