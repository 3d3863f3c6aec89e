def split_heads(X, num_heads):
    *lead, n, d_model = X.shape
    X = X.reshape(*lead, n, d_model // num_heads, num_heads)
    return np.moveaxis(X, -1, -3)


def merge_heads(X):
    *lead, num_heads, n, d_head = X.shape
    return np.moveaxis(X, -3, -1).reshape(*lead, n, num_heads * d_head)
