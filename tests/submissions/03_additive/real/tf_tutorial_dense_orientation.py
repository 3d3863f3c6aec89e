"""TensorFlow NMT-tutorial BahdanauAttention `V(tanh(W1(values) + W2(query)))` mapped W1 -> W_a, W2 -> U_a, each Dense applied as `x @ kernel`.

Mistakes: W_a is applied to the encoder states and U_a to the decoder state (swapped), and both are applied
Keras-Dense style as `x @ W` on matrices of shape (d_a, d), i.e. the wrong way round; this only runs when
d_s = d_h = d_a, and fails with a shape error otherwise. The swap is said in orientation_swapped's
detail ("W_a and U_a are also swapped"), found together with it, not under its own id.
Names: orientation_swapped
Localised: w_u_swapped
"""


def additive_scores(s_prev, H, W_a, U_a, v_a):
    return np.tanh(H @ W_a + s_prev @ U_a) @ v_a            # (T_x,)


def additive_attention(s_prev, H, W_a, U_a, v_a):
    score = additive_scores(s_prev, H, W_a, U_a, v_a)
    attention_weights = softmax(score, axis=0)
    context_vector = np.sum(attention_weights[:, None] * H, axis=0)
    return context_vector, attention_weights


def additive_attention_all(S_prev, H, W_a, U_a, v_a):
    score = np.tanh((H @ W_a)[None, :, :] + (S_prev @ U_a)[:, None, :]) @ v_a   # (T_y, T_x)
    attention_weights = softmax(score, axis=-1)
    return attention_weights @ H, attention_weights
