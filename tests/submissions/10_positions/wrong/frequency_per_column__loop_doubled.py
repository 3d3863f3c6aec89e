def sinusoidal_encoding(n, d_model):
    """The column loop of many tutorials: i already steps by 2, and the exponent doubles it again."""
    PE = np.zeros((n, d_model))
    for pos in range(n):
        for i in range(0, d_model, 2):
            PE[pos, i] = np.sin(pos / 10000 ** ((2 * i) / d_model))
            PE[pos, i + 1] = np.cos(pos / 10000 ** ((2 * (i + 1)) / d_model))
    return PE
