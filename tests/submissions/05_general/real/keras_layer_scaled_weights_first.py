"""Keras-style Luong "general" layer written with the Transformer habit: scores divided by sqrt(d_k), returns (attention_weights, context).

Mistakes: general_scores and general_attention divide the bilinear scores by sqrt(d_k) (Luong's general
score is not scaled); general_attention returns (weights, output), the weights first.
Names: outputs_in_wrong_order, scaled_scores
"""


def general_scores(Q, K, W):
    d_k = K.shape[-1]
    return (Q @ W.T) @ K.T / np.sqrt(d_k)


def general_attention(Q, K, V, W):
    attention_weights = softmax(general_scores(Q, K, W), axis=-1)
    context = attention_weights @ V
    return attention_weights, context
