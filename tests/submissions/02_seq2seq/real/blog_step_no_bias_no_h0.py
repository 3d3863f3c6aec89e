"""Blog-post RNN built from a `step(x, h)` method without a bias and without an initial-state argument, summary read batch-first as `out[:, -1]`.

Mistakes: rnn_encoder has no `h0` parameter (it always starts from zeros); the bias b_h is accepted but never
added; fixed_context takes `H[:, -1]`, the PyTorch batch-first habit, which on a (T, d_h) array is the last
column, not the last state.
Names: missing_argument, bias_missing, last_column
"""


def _step(x, h, W_xh, W_hh):
    return np.tanh(np.dot(x, W_xh) + np.dot(h, W_hh))


def rnn_encoder(X, W_xh, W_hh, b_h):
    h = np.zeros(W_hh.shape[0])
    states = []
    for x in X:
        h = _step(x, h, W_xh, W_hh)
        states.append(h)
    return np.array(states)


def fixed_context(H):
    return H[:, -1]
