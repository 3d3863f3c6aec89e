def rnn_encoder(X, W_xh, W_hh, b_h, h0=None):
    h = np.zeros(W_hh.shape[0])
    H = np.zeros((X.shape[0], W_hh.shape[0]))
    for t in range(X.shape[0]):
        h = np.tanh(X[t] @ W_xh + h @ W_hh + b_h)
        H[t] = h
    return H
