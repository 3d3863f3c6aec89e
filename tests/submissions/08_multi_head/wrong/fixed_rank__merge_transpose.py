def merge_heads(X):
    batch, heads, seq, d_head = X.shape
    return X.transpose(0, 2, 1, 3).reshape(batch, seq, heads * d_head)
