"""Blog/gist attention snippet reused for Luong dot attention: `exp(x) / sum(exp(x), axis=0)` softmax, scores scaled by sqrt(d), only `weights @ V` returned.

Mistakes: the scores are divided by sqrt(d) (scaled dot-product, not Luong's dot); in the row version the
snippet softmax normalises over axis 0, the queries; it subtracts no maximum, so large scores overflow to
nan; both attention functions return only the output, not (output, weights). dot_scores is right.
Names: no_max_subtraction, returns_single_array, scaled_scores, softmax_over_queries
"""


def _softmax(x):
    return np.exp(x) / np.sum(np.exp(x), axis=0)


def dot_scores(Q, K):
    return np.dot(Q, K.T)


def dot_product_attention(Q, K, V):
    d = Q.shape[-1]
    scores = np.dot(Q, K.T) / np.sqrt(d)
    weights = _softmax(scores)
    return np.dot(weights, V)


def dot_product_attention_columns(Q, K, V):
    d = Q.shape[0]
    weights = _softmax(np.dot(K.T, Q) / np.sqrt(d))       # (m, n), columns sum to 1
    return np.dot(V, weights)
