def rnn_encoder(X, W_xh, W_hh, b_h, h0=None):
    """Returns (outputs, final hidden state), like a framework's RNN layer."""
    h = np.zeros(W_hh.shape[0]) if h0 is None else h0
    outputs = []
    for x_t in X:
        h = np.tanh(x_t @ W_xh + h @ W_hh + b_h)
        outputs.append(h)
    return np.array(outputs), h
