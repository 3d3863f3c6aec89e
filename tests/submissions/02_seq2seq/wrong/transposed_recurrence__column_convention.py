def rnn_encoder(X, W_xh, W_hh, b_h, h0=None):
    """Column-vector form of the textbook: h_t = tanh(W x_t + U h_{t-1} + b)."""
    h = np.zeros(W_hh.shape[0]) if h0 is None else h0
    H = []
    for x_t in X:
        h = np.tanh(W_xh.T @ x_t + W_hh @ h + b_h)
        H.append(h)
    return np.array(H)
