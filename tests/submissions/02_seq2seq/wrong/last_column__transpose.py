def fixed_context(H):
    return H.T[-1]
