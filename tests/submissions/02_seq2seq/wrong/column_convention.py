def rnn_encoder(X, W_xh, W_hh, b_h, h0=None):
    """h_t = tanh(W x_t + U h_{t-1} + b), as in the textbooks' column form."""
    state = np.zeros(W_hh.shape[0]) if h0 is None else h0
    outputs = []
    for x_t in X:
        state = np.tanh(np.dot(W_xh, x_t) + np.dot(W_hh, state) + b_h)
        outputs.append(state)
    return np.array(outputs)
