def rnn_encoder(X, W_xh, W_hh, b_h, h0=None):
    # column vectors, as in many papers: h_t = tanh(W_xh^T x_t + W_hh^T h_{t-1} + b); float32 throughout
    X32, Wx, Wh, b = (np.asarray(a, dtype=np.float32) for a in (X, W_xh, W_hh, b_h))
    h = np.zeros((Wh.shape[0], 1), np.float32) if h0 is None else np.asarray(h0, np.float32).reshape(-1, 1)
    cols = []
    for t in range(X32.shape[0]):
        h = np.tanh(Wx.T @ X32[t].reshape(-1, 1) + Wh.T @ h + b.reshape(-1, 1))
        cols.append(h)
    return np.hstack(cols).T


def fixed_context(H):
    return np.asarray(H, dtype=np.float32)[len(H) - 1].copy()
