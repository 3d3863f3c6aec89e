"""Assignment-style minibatch RNN forward: X of shape (N, T, D), returns (h, cache), summary `h[:, -1]` (CS231n-style rnn_forward).

Mistakes: the code unpacks `N, T, D = X.shape`, so it needs a leading batch axis that the contract's (T, d_x)
inputs do not have; rnn_encoder returns the pair (h, cache) instead of H alone; fixed_context takes
`H[:, -1]` (the last state of every sequence of a batch), which on the contract's (T, d_h) array is the last
column.
Names: last_column, written_for_batches
Localised: returns_tuple
"""


def rnn_encoder(X, W_xh, W_hh, b_h, h0=None):
    N, T, D = X.shape
    H_size = W_hh.shape[0]
    prev_h = np.zeros((N, H_size)) if h0 is None else h0
    h = np.zeros((N, T, H_size))
    cache = []
    for t in range(T):
        next_h = np.tanh(prev_h @ W_hh + X[:, t, :] @ W_xh + b_h)
        cache.append((X[:, t, :], prev_h, next_h))
        h[:, t, :] = next_h
        prev_h = next_h
    return h, cache


def fixed_context(H):
    return H[:, -1]
