"""Softmax that clips the scores to +-500 and adds an epsilon to the sum "to avoid overflow" (sigmoid / cross-entropy habits).

Mistakes: the scores are clipped to [-500, 500] instead of shifted by their maximum, so scores beyond 500
are flattened together and a `-inf` entry becomes -500 and gets a tiny positive weight instead of exactly 0;
an epsilon is added to the denominator, so the weights do not sum exactly to 1.
Names: neg_inf_not_zero
"""


def softmax(x, axis=-1):
    clipped = np.clip(x, -500.0, 500.0)
    e = np.exp(clipped)
    return e / (np.sum(e, axis=axis, keepdims=True) + 1e-12)
