"""Attention without the (n, m) score matrix (chapter 9).

* ``online_softmax_attention``: exact softmax attention over blocks of keys,
  with a running maximum and a running sum per query (the online softmax of
  Milakov and Gimelshein 2018, used for attention by Rabe and Staats 2021 and
  by FlashAttention, Dao et al. 2022).  Memory: O(n * block_size + n * d_v).
* ``linear_attention``: kernelised attention phi(Q) (phi(K)^T V)
  (Katharopoulos et al. 2020).  Memory O(d * d_v) beyond its inputs and output,
  but it is a different model, not the softmax.
* ``fast_weight_attention``: the causal, unnormalised form, written as the fast
  weight programmer of Schmidhuber (1992): a matrix memory written with outer
  products, read with the query (Schlag et al. 2021).
"""
import numpy as np


def online_softmax_attention(Q, K, V, block_size=256):
    """softmax(Q K^T / sqrt(d)) V, one block of ``block_size`` keys at a time.

    Q : (..., n, d), K : (..., m, d), V : (..., m, d_v); returns out (..., n,
        d_v), equal to ``scaled_dot_product_attention(Q, K, V)[0]`` up to
        rounding.

    Per query it keeps the running maximum M of the scores seen so far, the
    running sum L = sum_j exp(s_j - M) and the running numerator
    O = sum_j exp(s_j - M) v_j.  When a block raises the maximum from M to M',
    L and O are multiplied by exp(M - M'); at the end out = O / L.
    (Milakov and Gimelshein 2018, Algorithm 3; Dao et al. 2022, Algorithm 1.)
    """
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    block_size = int(block_size)
    if block_size < 1:
        raise ValueError("block_size must be a positive integer, "
                         f"got {block_size}")
    n, m, d_v = Q.shape[-2], K.shape[-2], V.shape[-1]
    batch = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    scale = 1.0 / np.sqrt(Q.shape[-1])
    running_max = np.full(batch + (n, 1), -np.inf)  # (..., n, 1)  M
    running_sum = np.zeros(batch + (n, 1))          # (..., n, 1)  L
    # (..., n, d_v) O, the unnormalised output
    out = np.zeros(batch + (n, d_v))
    # (..., n, d_v) this block's contribution
    numerator = np.empty(batch + (n, d_v))
    width = min(block_size, m)
    # one block of scores, reused
    buffer = np.empty(int(np.prod(batch, dtype=int)) * n * width)
    for start in range(0, m, block_size):
        # (..., b, d): b = block_size, or fewer at the end
        K_block = K[..., start:start + block_size, :] * scale
        V_block = V[..., start:start + block_size, :]          # (..., b, d_v)
        b = K_block.shape[-2]
        # (..., n, b), contiguous
        S = buffer[:buffer.size // width * b].reshape(batch + (n, b))
        # this block's scores
        np.matmul(Q, np.swapaxes(K_block, -1, -2), out=S)
        # (..., n, 1)
        new_max = np.maximum(running_max, np.max(S, axis=-1, keepdims=True))
        # (..., n, 1); 0 at the first block
        correction = np.exp(running_max - new_max)
        S -= new_max
        np.exp(S, out=S)  # every entry in [0, 1]
        running_sum *= correction
        running_sum += np.sum(S, axis=-1, keepdims=True)
        out *= correction  # rescale what was summed before
        out += np.matmul(S, V_block, out=numerator)
        running_max = new_max
    out /= running_sum
    return out


def elu_plus_one(x):
    """phi(x) = elu(x) + 1, the positive feature map of Katharopoulos et al.
    (2020).
    """
    x = np.asarray(x, dtype=float)
    return np.where(x > 0, x + 1.0, np.exp(np.minimum(x, 0.0)))


def linear_attention(Q, K, V, feature_map=elu_plus_one):
    """Linear attention (Katharopoulos et al. 2020), without an (n, m) matrix.

    out_i = phi(q_i)^T (sum_j phi(k_j) v_j^T) / phi(q_i)^T (sum_j phi(k_j)).
    Q : (..., n, d), K : (..., m, d), V : (..., m, d_v); returns (..., n, d_v).
    With ``feature_map=None`` the features are the raw queries and keys and
    there is no normalisation: out = Q (K^T V), unnormalised linear attention.
    """
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    if feature_map is None:
        return Q @ (np.swapaxes(K, -1, -2) @ V)  # (n, d) @ ((d, m) @ (m, d_v))
    phi_Q, phi_K = feature_map(Q), feature_map(K)  # (..., n, d), (..., m, d)
    memory = np.swapaxes(phi_K, -1, -2) @ V            # (..., d, d_v)
    normaliser = np.sum(phi_K, axis=-2)[..., :, None]  # (..., d, 1)
    return (phi_Q @ memory) / (phi_Q @ normaliser)     # (..., n, d_v)


def fast_weight_attention(Q, K, V):
    """Causal unnormalised linear attention as a fast weight programmer
    (Schmidhuber 1992).

    A fast weight matrix W (d_v, d) starts at 0.  At step t the slow network's
    key k_t and value v_t write W <- W + v_t k_t^T (an outer product), and the
    query reads y_t = W q_t = sum_{j <= t} (k_j . q_t) v_j.  Schlag et al.
    (2021) show this equals causal linear attention without normalisation.
    Q, K : (n, d), V : (n, d_v); returns (n, d_v).  Memory O(d * d_v).
    """
    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))
    W = np.zeros((V.shape[-1], K.shape[-1]))   # (d_v, d) the fast weights
    out = np.empty((Q.shape[0], V.shape[-1]))  # (n, d_v)
    for t in range(Q.shape[0]):
        W += np.outer(V[t], K[t])  # write: W_t = W_{t-1} + v_t k_t^T
        out[t] = W @ Q[t]          # read:  y_t = W_t q_t
    return out
