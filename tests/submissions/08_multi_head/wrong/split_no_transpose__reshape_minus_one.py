def split_heads(X, num_heads):
    return X.reshape(*X.shape[:-2], num_heads, X.shape[-2], -1)
