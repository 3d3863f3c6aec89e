def split_heads(X, num_heads):
    batch, seq_len, d_model = X.shape
    return X.reshape(batch, num_heads, seq_len, d_model // num_heads)
