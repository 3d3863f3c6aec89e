def rnn_encoder(X, W_xh, W_hh, b_h, h0=None):
    start = np.zeros(len(b_h)) if h0 is None else h0
    if len(X) == 0:
        return np.zeros((0, len(b_h)))
    first = np.tanh(X[0] @ W_xh + start @ W_hh + b_h)
    rest = rnn_encoder(X[1:], W_xh, W_hh, b_h, first) if len(X) > 1 else np.zeros((0, len(b_h)))
    return np.vstack([first, rest])


def fixed_context(H):
    *_, last = H
    return last
