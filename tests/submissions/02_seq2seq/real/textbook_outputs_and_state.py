"""Textbook scratch RNN (d2l style): the state always comes from an init-state helper, the forward pass returns (outputs, state).

Mistakes: the initial state is always zeros from the helper, so a given `h0` is ignored; rnn_encoder returns
the pair (H, last state) instead of H alone. fixed_context is right.
Names: h0_ignored, returns_tuple
"""


def _init_rnn_state(num_hiddens):
    return np.zeros(num_hiddens)


def rnn_encoder(X, W_xh, W_hh, b_h, h0=None):
    state = _init_rnn_state(W_hh.shape[0])
    outputs = []
    for x_t in X:
        state = np.tanh(x_t @ W_xh + state @ W_hh + b_h)
        outputs.append(state)
    return np.stack(outputs), state


def fixed_context(H):
    return H[-1]
