"""Attention building blocks that later chapters reuse (row convention: one token per row)."""
import numpy as np


def softmax(x, axis=-1):
    """Numerically stable softmax along ``axis`` (Bridle 1990); ``-inf`` gets weight 0."""
    x = np.asarray(x, dtype=float)
    shifted = x - np.max(x, axis=axis, keepdims=True)  # largest entry becomes 0: exp cannot overflow
    weights = np.exp(shifted)
    return weights / np.sum(weights, axis=axis, keepdims=True)
