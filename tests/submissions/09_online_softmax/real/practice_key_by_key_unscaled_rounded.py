"""Practice-site statement "softmax(QK^T)V with an online softmax": key by key, unscaled, answer rounded to 4 decimals.

Mistakes: `block_size` is accepted but the keys are streamed one at a time (harmless: the result does not
depend on the block size); the scores are not divided by sqrt(d); the output is rounded to 4 decimals.
Names: no_scale, rounded
"""


def online_softmax_attention(Q, K, V, block_size):
    n = Q.shape[0]
    running_max = np.full(n, -np.inf)
    denominator = np.zeros(n)
    numerator = np.zeros((n, V.shape[1]))
    for j in range(K.shape[0]):
        s = Q @ K[j]
        new_max = np.maximum(running_max, s)
        correction = np.exp(running_max - new_max)
        weight = np.exp(s - new_max)
        denominator = denominator * correction + weight
        numerator = numerator * correction[:, None] + weight[:, None] * V[j]
        running_max = new_max
    return np.round(numerator / denominator[:, None], 4)
