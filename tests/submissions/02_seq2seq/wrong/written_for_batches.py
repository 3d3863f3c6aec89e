def rnn_encoder(X, W_xh, W_hh, b_h, h0=None):
    """Batch-first RNN: X of shape (batch, T, d_x)."""
    batch, T, _ = X.shape
    h = np.zeros((batch, W_hh.shape[0])) if h0 is None else h0
    outputs = []
    for t in range(T):
        h = np.tanh(X[:, t] @ W_xh + h @ W_hh + b_h)
        outputs.append(h)
    return np.stack(outputs, axis=1)
