def rnn_encoder(X, W_xh, W_hh, b_h, h0=None):
    state_t = np.zeros(W_hh.shape[0]) if h0 is None else h0
    successive_outputs = []
    for input_t in X:
        state_t = np.tanh(np.dot(input_t, W_xh) + np.dot(state_t, W_hh) + b_h)
        successive_outputs.append(state_t)
    return np.concatenate(successive_outputs, axis=0)
