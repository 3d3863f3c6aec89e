def split_heads(X, num_heads):
    *lead, n, d_model = X.shape
    return X.reshape(*lead, n, num_heads, d_model // num_heads)
