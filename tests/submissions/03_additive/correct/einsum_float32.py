def additive_scores(s_prev, H, W_a, U_a, v_a):
    s32, H32, W32, U32, v32 = (np.asarray(a, dtype=np.float32) for a in (s_prev, H, W_a, U_a, v_a))
    hidden = np.tanh(np.einsum("ad,d->a", W32, s32)[None, :] + np.einsum("ad,td->ta", U32, H32))
    return np.einsum("ta,a->t", hidden, v32)


def additive_attention(s_prev, H, W_a, U_a, v_a):
    e = additive_scores(s_prev, H, W_a, U_a, v_a)
    w = np.exp(e - e.max())
    alpha = w / w.sum()
    return np.einsum("t,td->d", alpha, H), alpha


def additive_attention_all(S_prev, H, W_a, U_a, v_a):
    hidden = np.tanh(np.einsum("ad,id->ia", W_a, S_prev)[:, None, :] + np.einsum("ad,jd->ja", U_a, H)[None])
    E = np.einsum("ija,a->ij", hidden, v_a)
    E = E - E.max(axis=1, keepdims=True)
    A = np.exp(E) / np.exp(E).sum(axis=1, keepdims=True)
    return np.einsum("ij,jd->id", A, H), A
