def general_attention(Q, K, V, W):
    """Luong 'general' attention: the attentional context."""
    return softmax(general_scores(Q, K, W), axis=-1) @ V
