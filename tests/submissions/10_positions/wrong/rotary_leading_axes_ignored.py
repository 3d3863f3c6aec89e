def apply_rotary(X, positions):
    n, d = X.shape
    out = np.empty((n, d))
    for j in range(n):
        for i in range(d // 2):
            a = positions[j] * 10000.0 ** (-2 * i / d)
            x, y = X[j, 2 * i], X[j, 2 * i + 1]
            out[j, 2 * i] = x * np.cos(a) - y * np.sin(a)
            out[j, 2 * i + 1] = x * np.sin(a) + y * np.cos(a)
    return out
