"""The numerically stable softmax (chapter 1); every later chapter imports it
from here.

It computes in float64 and touches the array as few times as possible: the
exponential is taken in place on one new array.
"""
import numpy as np


def softmax(x, axis=-1):
    """Numerically stable softmax along ``axis`` (Bridle 1990); ``-inf`` gets
    weight 0.
    """
    x = np.asarray(x, dtype=float)
    # a new array; the largest entry becomes 0
    weights = x - np.max(x, axis=axis, keepdims=True)
    np.exp(weights, out=weights)  # in place: every entry in [0, 1]
    weights /= np.sum(weights, axis=axis, keepdims=True)
    return weights
