def rnn_encoder(X, W_xh, W_hh, b_h, h0=None):
    h = np.zeros(W_hh.shape[0]) if h0 is None else np.asarray(h0, dtype=float)
    columns = []
    for x_t in X:
        h = np.tanh(x_t @ W_xh + h @ W_hh + b_h)
        columns.append(h)
    return np.column_stack(columns)           # one state per column
