"""Transpose-trick softmax `(exp(x).T / sum(exp(x), -1)).T` without an axis argument (multi-head-attention tutorial scripts).

Mistakes: no `axis` parameter (always the last axis); no maximum subtracted, so large scores overflow to
inf / inf = nan; the transposes stand in for `keepdims`, which only lines up for 1-D and 2-D inputs (a 3-D
input fails to broadcast).
Names: missing_argument, no_max_subtraction
Localised: missing_keepdims
"""


def softmax(x):
    exps = np.exp(x)
    return (exps.T / np.sum(exps, axis=-1)).T
