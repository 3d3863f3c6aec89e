"""Additive (Bahdanau) attention, in the book's row convention.

Bahdanau, Cho and Bengio (2015), Eqs. (5)-(6) and Appendix A.1.2:

    e_ij     = v_a^T tanh(W_a s_{i-1} + U_a h_j)            alignment score
    alpha_ij = exp(e_ij) / sum_k exp(e_ik)                  softmax over input
    positions j c_i      = sum_j alpha_ij h_j                           context
    vector

``i`` indexes output (decoder) steps and ``j`` input (encoder) positions.
Shapes: ``H`` is ``(T_x, d_h)`` with one annotation h_j per row, ``W_a`` is
``(d_a, d_s)``, ``U_a`` is ``(d_a, d_h)`` and ``v_a`` is ``(d_a,)``, so that
``W_a @ s_prev`` and ``U_a @ h_j`` are ``(d_a,)`` vectors as in the paper.

The last two functions are the batched forward and backward passes used to
train the toy encoder-decoder of chapter 3 (``attention.seq2seq``).
"""
import numpy as np

from .softmax import softmax


def additive_scores(s_prev, H, W_a, U_a, v_a):
    """Raw alignment scores e_j = v_a . tanh(W_a s_prev + U_a h_j) (Bahdanau et
    al. 2015, Eq. 6).

    s_prev : (d_s,)      decoder state before this output step, s_{i-1}
    H      : (T_x, d_h)  encoder annotations, one per row
    W_a    : (d_a, d_s),  U_a : (d_a, d_h),  v_a : (d_a,)
    returns e : (T_x,), one score per input position
    """
    query = W_a @ s_prev  # (d_a,)   the decoder's part, the same for every j
    keys = H @ U_a.T                    # (T_x, d_a) row j is U_a h_j
    return np.tanh(query + keys) @ v_a  # (T_x, d_a) @ (d_a,) -> (T_x,)


def additive_attention(s_prev, H, W_a, U_a, v_a):
    """One decoder step of additive attention: (c, alpha) (Bahdanau et al.
    2015, Eqs. 5-6).

    returns c : (d_h,) the context vector sum_j alpha_j h_j, and alpha : (T_x,)
    summing to 1
    """
    # (T_x,) softmax over input positions
    alpha = softmax(additive_scores(s_prev, H, W_a, U_a, v_a))
    return alpha @ H, alpha  # (d_h,), (T_x,)


def additive_attention_all(S_prev, H, W_a, U_a, v_a):
    """Additive attention for every decoder step at once, by broadcasting.

    S_prev : (T_y, d_s)  row i is the decoder state before output step i
    returns C : (T_y, d_h), row i = c_i;  A : (T_y, T_x), row i = alpha_i (each
    row sums to 1)
    """
    queries = S_prev @ W_a.T                                  # (T_y, d_a)
    keys = H @ U_a.T                                          # (T_x, d_a)
    # (T_y, T_x, d_a): every (i, j) pair
    hidden = np.tanh(queries[:, None, :] + keys[None, :, :])
    E = hidden @ v_a  # (T_y, T_x) scores e_ij
    A = softmax(E, axis=-1)  # (T_y, T_x) softmax over j, per row i
    return A @ H, A  # (T_y, d_h), (T_y, T_x)


# ---------------------------------------------------------- training (batched)
def batch_forward(s_prev, H, HU, W_a, v_a):
    """Additive attention for a batch at one decoder step.

    s_prev : (B, d_s), H : (B, T_x, d_h), HU : (B, T_x, d_a) = H @ U_a.T,
        computed once per batch
    returns c : (B, d_h), alpha : (B, T_x), and a cache for ``batch_backward``
    """
    hidden = np.tanh((s_prev @ W_a.T)[:, None, :] + HU)       # (B, T_x, d_a)
    alpha = softmax(hidden @ v_a, axis=-1)                    # (B, T_x)
    c = np.einsum("bt,btd->bd", alpha, H)                     # (B, d_h)
    return c, alpha, (s_prev, hidden, alpha)


def batch_backward(dc, H, W_a, v_a, cache):
    """Gradients of ``batch_forward`` given dL/dc (B, d_h).

    returns ds_prev (B, d_s), dH (B, T_x, d_h), dHU (B, T_x, d_a), dW_a (d_a,
    d_s), dv_a (d_a,)
    """
    s_prev, hidden, alpha = cache
    dalpha = np.einsum("bd,btd->bt", dc, H)  # (B, T_x)
    dH = alpha[:, :, None] * dc[:, None, :]  # (B, T_x, d_h)
    # softmax Jacobian (chapter 1)
    de = alpha * (dalpha - np.sum(alpha * dalpha, axis=-1, keepdims=True))
    dv_a = np.einsum("bt,bta->a", de, hidden)  # (d_a,)
    # (B, T_x, d_a) through tanh
    dHU = de[:, :, None] * v_a * (1.0 - hidden ** 2)
    dquery = dHU.sum(axis=1)  # (B, d_a): the query is shared by every j
    return dquery @ W_a, dH, dHU, dquery.T @ s_prev, dv_a
