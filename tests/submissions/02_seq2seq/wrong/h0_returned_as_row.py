def rnn_encoder(X, W_xh, W_hh, b_h, h0=None):
    if h0 is None:
        h0 = np.zeros(W_hh.shape[0])
    H = [h0]
    for x in X:
        H.append(np.tanh(x @ W_xh + H[-1] @ W_hh + b_h))
    return np.array(H)
