class RNNEncoder:
    """A small Elman cell, written as a module and wrapped into the contract's function."""

    def __init__(self, W_xh, W_hh, b_h):
        self.W_xh, self.W_hh, self.b_h = W_xh, W_hh, b_h

    def step(self, x, h):
        a = x @ self.W_xh + h @ self.W_hh + self.b_h
        return np.sinh(a) / np.cosh(a)

    def __call__(self, X, h0):
        H = np.zeros((len(X), self.W_hh.shape[0]))
        h = h0
        for t in range(len(X)):
            h = self.step(X[t], h)
            H[t] = h
        return H


def rnn_encoder(X, W_xh, W_hh, b_h, h0=None):
    if h0 is None:
        h0 = np.zeros(W_hh.shape[0])
    return RNNEncoder(W_xh, W_hh, b_h)(X, h0)
