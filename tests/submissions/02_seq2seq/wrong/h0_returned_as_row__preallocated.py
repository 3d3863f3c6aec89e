def rnn_encoder(X, W_xh, W_hh, b_h, h0=None):
    T, d_h = X.shape[0], W_hh.shape[0]
    H = np.zeros((T + 1, d_h))
    if h0 is not None:
        H[0] = h0
    for t in range(T):
        H[t + 1] = np.tanh(X[t] @ W_xh + H[t] @ W_hh + b_h)
    return H
