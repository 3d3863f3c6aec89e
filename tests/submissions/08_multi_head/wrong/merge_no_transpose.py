def merge_heads(X):
    *lead, num_heads, n, d_head = X.shape
    return X.reshape(*lead, n, num_heads * d_head)
