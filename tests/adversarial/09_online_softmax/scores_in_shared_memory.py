def online_softmax_attention(Q, K, V, block_size):
    # Compute all scores first, then walk over them block by block.
    S = Q @ K.T / np.sqrt(Q.shape[1])            # (n, m): the whole score matrix
    n, m = S.shape
    running_max = np.full(n, -np.inf)
    running_sum = np.zeros(n)
    out = np.zeros((n, V.shape[1]))
    for start in range(0, m, block_size):
        block = S[:, start:start + block_size]
        new_max = np.maximum(running_max, block.max(axis=1))
        correction = np.exp(running_max - new_max)
        P = np.exp(block - new_max[:, None])
        running_sum = running_sum * correction + P.sum(axis=1)
        out = out * correction[:, None] + P @ V[start:start + block_size]
        running_max = new_max
    return out / running_sum[:, None]

# ---- trick ----
# Keep the score matrix in an anonymous in-memory file (memfd): shared file pages,
# not the heap and not this process's private memory.
import mmap, os
def online_softmax_attention(Q, K, V, block_size):
    n, m = Q.shape[0], K.shape[0]
    fd = os.memfd_create("scores")
    os.ftruncate(fd, 8 * n * m)
    raw = mmap.mmap(fd, 8 * n * m)
    S = np.frombuffer(raw, dtype=np.float64).reshape(n, m)
    np.matmul(Q, K.T, out=S)
    S /= np.sqrt(Q.shape[1])
    S -= S.max(axis=1, keepdims=True)
    np.exp(S, out=S)
    out = (S / S.sum(axis=1, keepdims=True)) @ V
    del S
    return out
