"""Practice-site softmax ported to NumPy: one `scores` argument, whole-array sum, rounded to 4 decimals (Deep-ML-style answers).

Mistakes: no `axis` parameter (the reductions run over the whole array); the global maximum is subtracted
(harmless here, since the sum is global too); the normalisation is over the whole array, not each slice along
`axis`; the result is rounded to 4 decimals.
Names: missing_argument, rounded
Localised: whole_array
"""


def softmax(scores):
    scores = np.asarray(scores, dtype=float)
    exp_scores = np.exp(scores - np.max(scores))
    probabilities = exp_scores / np.sum(exp_scores)
    return np.round(probabilities, 4)
