def rnn_encoder(X, W_xh, W_hh, b_h, h0=None):
    h = np.zeros(W_hh.shape[0]) if h0 is None else h0
    H = []
    for x in X:
        h = np.tanh(x @ W_xh + W_hh @ h + b_h)   # column-vector habit: W h
        H.append(h)
    return np.array(H)
