def split_heads(X, num_heads):
    """(batch, seq, d_model) -> (batch, heads, seq, d_head)."""
    batch, seq, d_model = X.shape
    return X.reshape(batch, seq, num_heads, d_model // num_heads).transpose(0, 2, 1, 3)
