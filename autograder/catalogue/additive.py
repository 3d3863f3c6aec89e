"""Exercise 03, additive (Bahdanau) attention: hidden checks and the misconception catalogue.

The hidden test cells of ``solutions/03_additive/additive.ipynb`` call the
``check_*`` functions below with the learner's ``additive_scores``,
``additive_attention`` and ``additive_attention_all``.  Inputs are random
(``checks.rng``); T_y, T_x, d_h, d_s and d_a are all different, so that a transposed
weight or a swapped output changes a shape, and one check uses square weights
(d_s = d_h = d_a) with non-symmetric matrices, so that a transposed or swapped
W_a / U_a runs and changes the values.  A wrong answer is matched against
``MISTAKES`` in order; the first symptom that fits names the mistake.  Every
mistake has a wrong implementation in ``tests/submissions/03_additive/wrong/``.
"""
import numpy as np

from ..checks import rng as hidden_inputs
from ..checks import (Batched, Mistake, all_close, attempt, close, exp_out_of_range, expect, large_factor, probed_once,
                      nan_where_finite, reference)
from ..checks import softmax as _softmax
from ..i18n import N_, _


def _ref():
    return reference(__name__)


def _kind(record):
    """'scores', 'one' (additive_attention) or 'all' (additive_attention_all)."""
    name = record.call.split("(", 1)[0]
    return {"additive_scores": "scores", "additive_attention": "one", "additive_attention_all": "all"}[name]


def _scores(S, H, W_a, U_a, v_a, *, tanh=True, tanh_after=False, transposed=False, swapped=False):
    """e = v_a . tanh(W_a s + U_a h_j) for s of shape (d_s,) or every row of S (T_y, d_s); and the mistakes' variants."""
    S = np.asarray(S, dtype=float)
    if swapped:                                # W_a applied to h_j and U_a to s (needs d_s = d_h)
        W_a, U_a = U_a, W_a
    if transposed:                             # s @ W_a and H @ U_a: the weights read the other way round
        W_a, U_a = W_a.T, U_a.T
    query = S @ W_a.T                          # (d_a,) or (T_y, d_a)
    keys = H @ U_a.T                           # (T_x, d_a)
    inside = query[..., None, :] + keys        # (T_x, d_a) or (T_y, T_x, d_a)
    if tanh_after:
        return np.tanh(inside @ v_a)
    return (np.tanh(inside) if tanh else inside) @ v_a


def _answer(record, e, axis=-1):
    """What the called function returns when its scores are ``e`` (weights = softmax along ``axis``)."""
    if _kind(record) == "scores":
        return e
    H = np.asarray(record.args[1], dtype=float)
    weights = _softmax(e, axis=axis)
    return weights @ H, weights


def _matches(record, answer):
    got = record.got
    if isinstance(answer, tuple):
        return isinstance(got, tuple) and all(close(g, a) for g, a in zip(got, answer))
    return close(got, answer)


def _variant(**mistake):
    def detect(record):
        return record.got is not None and _matches(record, _answer(record, _scores(*record.args, **mistake)))
    return detect


def _raw_scores(record):
    return _scores(*record.args)


def _weights_as_scores(record):
    return _kind(record) == "scores" and close(record.got, _softmax(_raw_scores(record)))


def _scores_as_weights(record):
    if _kind(record) == "scores":
        return False
    e, H = _raw_scores(record), np.asarray(record.args[1], dtype=float)
    context, weights = record.got
    return close(weights, e) or close(context, e @ H)


def _hard(record):
    if _kind(record) == "scores":
        return False
    weights = record.got[1]
    one_hot = np.all((weights == 0) | (weights == 1)) and np.all(weights.sum(axis=-1) == 1)
    return bool(one_hot) and not np.all((record.want[1] == 0) | (record.want[1] == 1))


def _ignores_weights(record):
    if _kind(record) == "scores":
        return False
    H = np.asarray(record.args[1], dtype=float)
    context = record.got[0]
    rows = context if context.ndim == 2 else context[None, :]
    return any(close(rows, np.broadcast_to(summary, rows.shape))
               for summary in (H.mean(axis=0), H.sum(axis=0), H[-1]))


def _over_steps(record):
    if _kind(record) != "all":
        return False
    return (_matches(record, _answer(record, _raw_scores(record), axis=0))
            or close(record.got[1], _softmax(_raw_scores(record), axis=0)))


def _reused(record):
    if _kind(record) != "all" or record.got is None:
        return False
    weights = record.got[1]
    # every row the same, and one step's right weights (computed once, for that step, and reused)
    return (weights.ndim == 2 and weights.shape[0] > 1 and np.allclose(weights, weights[:1])
            and not np.allclose(record.want[1], record.want[1][:1])
            and any(close(weights[0], right) for right in record.want[1]))


SHAPE_ERRORS = ("mismatch in its core dimension", "not aligned", "could not be broadcast")


def _square_trial(record):
    """The learner's answer on square inputs (d_s = d_h = d_a, W_a and U_a not symmetric), where a swapped
    or transposed matrix runs: what a call that raised a shape error does once the shapes allow it.
    Computed once per record (it calls the learner's function again); None where it cannot be made."""
    def square(record):
        rng = hidden_inputs("square probe")
        T_x = np.shape(record.args[1])[0]
        T_y = np.shape(record.args[0])[0] if _kind(record) == "all" else None
        args = _inputs(rng, T_x, 4, 4, 4, T_y=T_y)
        name = record.call.split("(", 1)[0]
        first = "S_prev" if name == "additive_attention_all" else "s_prev"
        return attempt(record.callee, name, args, want=getattr(_ref(), name)(*args),
                       arg_names=(first, "H", "W_a", "U_a", "v_a"))
    return probed_once(record, "square", square, unknown=None)


def _matrices(**mistake):
    """The mistaken use of W_a and U_a that ``mistake`` describes (for the matrices transposed, also with the
    two swapped, as a Keras port does: the detail says so): reproduced by the answer, or, when the call
    raised a shape error, by the answer on square inputs (verified, not guessed from the error's words)."""
    alone = _variant(**mistake)
    both = _variant(swapped=True, transposed=True) if mistake.get("transposed") else (lambda record: False)

    def formula(record):
        return alone(record) or (both(record) and _("W_a is applied to the encoder states and U_a to the "
                                                    "decoder state, each the wrong way round"))

    def detect(record):
        if record.error is None:
            return formula(record)
        if not any(phrase in record.error for phrase in SHAPE_ERRORS):
            return False
        trial = _square_trial(record)
        return trial is not None and trial.error is None and not all_close(trial.got, trial.want) and formula(trial)
    return detect


def _shape_error(*phrases):
    def detect(record):
        return record.error is not None and any(p in record.error for p in phrases)
    return detect


def _no_pair_broadcast(record):
    """A broadcast error where T_y != T_x, verified, not guessed from the error's words: with as many decoder
    steps as input positions the code runs, and its weights are the softmax of the scores of the pairs
    (i, i) alone, v_a . tanh(W_a s_i + U_a h_i), one per step: the two terms were added row by row."""
    if _kind(record) != "all" or not _shape_error("could not be broadcast")(record):
        return False

    def pairs_row_by_row(record):
        S, H, W_a, U_a, v_a = (np.asarray(a, dtype=float) for a in record.args[:5])
        S = S[np.arange(H.shape[0]) % S.shape[0]]                                   # (T_x, d_s): T_y = T_x
        trial = attempt(record.callee, "additive_attention_all", (S, H, W_a, U_a, v_a), arg_names=(
            "S_prev", "H", "W_a", "U_a", "v_a"), want=_ref().additive_attention_all(S, H, W_a, U_a, v_a))
        diagonal = _softmax(np.tanh(S @ W_a.T + H @ U_a.T) @ v_a)                   # (T_x,)
        parts = trial.got if isinstance(trial.got, tuple) else (trial.got,)
        return trial.error is None and any(np.shape(p) == diagonal.shape and close(p, diagonal) for p in parts)
    return probed_once(record, "rows added", pairs_row_by_row)


NO_MAX = N_("overflow: `np.exp` of a large score is `inf`, and `inf / inf` is `nan`; with the largest score of "
          "the whole array subtracted instead, an output step whose scores all lie far below it underflows to 0, "
          "and `0 / 0` is `nan`. The softmax over the input positions must subtract each step's own largest "
          "score first, `np.exp(e - e.max(axis=-1, keepdims=True))`; softmax does not change when the same "
          "number is subtracted from every score.")


MISTAKES = [
    Mistake("weights_as_scores",
            "additive_scores returned weights that sum to 1: you applied the softmax already. It must return "
            "the raw scores e_j = v_a . tanh(W_a s_prev + U_a h_j); the softmax over the input positions comes "
            "afterwards, in additive_attention.",
            _weights_as_scores,
            hints=("Look at the last step of your additive_scores: does it return the scores themselves or "
                   "something computed from them?",
                   "On the chapter's worked example your additive_scores should return about 0.1436, -0.5329 and "
                   "-0.0589, raw numbers that need not be positive or sum to 1. Add up yours and compare.",
                   "The contract splits the work in three steps: additive_scores stops at the raw scores e_j, "
                   "the softmax over the input positions belongs to additive_attention, and the weighted sum "
                   "comes last.")),
    Mistake("scores_as_weights",
            "the raw scores are used as weights: there is no softmax between the scores and the weighted sum. "
            "First compute the scores e_j, then alpha = softmax(e) over the input positions j (non-negative, "
            "summing to 1), then c = sum_j alpha_j h_j.",
            _scores_as_weights,
            hints=("Look at what happens between the scores and the weighted sum in your attention function: how "
                   "are the scores turned into weights?",
                   "On the chapter's worked example print the weights you multiply H by, and your alpha: both "
                   "should be about 0.4301, 0.2187 and 0.3513, non-negative and summing to 1, not the raw scores "
                   "0.1436, -0.5329 and -0.0589.",
                   "Scores, then weights, then context: the weights are the softmax of the scores over the input "
                   "positions j, and the context is the sum of the h_j weighted by them.")),
    Mistake("hard_alignment",
            "hard alignment: your weights are 1 at the best-scoring input position and 0 elsewhere (an argmax), "
            "so the context is a single h_j. Additive attention is soft: alpha = softmax(e) gives every position a "
            "positive weight and the context is the weighted sum of ALL the h_j, which is what lets gradients "
            "reach the scores.",
            _hard,
            hints=("Look at how your weights are obtained from the scores: how many input positions can get a "
                   "weight other than 0?",
                   "On the chapter's worked example alpha should be about 0.4301, 0.2187 and 0.3513: every input "
                   "position keeps a positive weight and the context mixes all three rows of H. Compare with "
                   "your alpha and c.",
                   "Additive attention is a soft alignment: the softmax gives every position a positive weight, "
                   "and that smoothness lets gradients reach the scores. The argmax has gradient 0 almost "
                   "everywhere.")),
    Mistake("no_tanh",
            "the tanh is missing: you computed v_a . (W_a s_prev + U_a h_j). Without the tanh the part "
            "v_a . W_a s_prev is the same for every j and cancels in the softmax, so the weights could never "
            "depend on the decoder state. Compute v_a . tanh(W_a s_prev + U_a h_j).",
            _variant(tanh=False),
            hints=("Look at the inside of your score: what is done to the sum of the decoder term and the "
                   "encoder term before the product with v_a?",
                   "On the chapter's worked example the vector inside the first score is (1.5, 1) and v_a is (1, "
                   "-1), so the right first score is about 0.1436, not 0.5. Print the same steps in every "
                   "function of yours that computes scores and see where they part.",
                   "Without a nonlinearity the score splits into a decoder part, the same for every j, and an "
                   "encoder part. The softmax cancels the first, so the weights could not depend on the decoder "
                   "state.")),
    Mistake("tanh_after_v",
            "the tanh is applied after the product with v_a: you computed tanh(v_a . (W_a s_prev + U_a h_j)). "
            "The tanh belongs inside, on the d_a-dimensional vector: e_j = v_a . tanh(W_a s_prev + U_a h_j).",
            _variant(tanh_after=True),
            hints=("Look at the last two operations of your score, the tanh and the product with v_a: which "
                   "comes first?",
                   "Multiply v_a by 10 in the chapter's worked example: the right scores grow tenfold (the first "
                   "from about 0.1436 to 1.436), since v_a reads the score out last. Do yours?",
                   "The tanh acts on the d_a-dimensional vector, the decoder term plus the encoder term. Then "
                   "v_a reads that vector out into one number, the score e_j, with no squashing after it.")),
    Mistake("context_ignores_weights",
            "the context vector ignores the attention weights (it is the mean, the sum or the last of the h_j, "
            "the same whatever the weights). The context is the weighted sum c = sum_j alpha_j h_j, i.e. "
            "alpha @ H.",
            _ignores_weights,
            hints=("Look at the line that computes your context vector: which quantities go into it?",
                   "On the chapter's worked example, change v_a to (-1, 1) and call your function again: alpha "
                   "changes, so the context must change too. Compare your two contexts.",
                   "The context is the weighted sum of all the annotations, each h_j multiplied by its weight "
                   "alpha_j: it moves whenever the weights move.")),
    Mistake("softmax_over_steps",
            "the softmax runs over the decoder steps (axis 0 of the (T_y, T_x) score matrix), so each COLUMN "
            "sums to 1. Each output step i distributes its attention over the input positions j: take the "
            "softmax along the last axis, so that every ROW sums to 1.",
            _over_steps,
            hints=("Look at the softmax in your additive_attention_all: along which axis of the T_y × T_x score "
                   "matrix does it normalise?",
                   "On the visible example with two decoder steps, add up your A along each axis: every row, one "
                   "output step, should sum to 1. Is it the rows or the columns of yours that do?",
                   "Each output step i distributes its attention over the input positions j, so the softmax runs "
                   "over j, the last axis: the normalisation is over the input positions, never over the output "
                   "steps.")),
    Mistake("weights_reused",
            "every output step got the same weights: they were computed once and reused. The weights must be "
            "recomputed at every step i from that step's decoder state S_prev[i]; row i of A depends on "
            "S_prev[i].",
            _reused,
            hints=("Look at where the decoder states S_prev enter your additive_attention_all: does each output "
                   "step use its own row?",
                   "On the visible example with two decoder steps, compare the two rows of your A: the right "
                   "rows differ (row 1 is about 0.5213, 0.1440 and 0.3347), each equal to additive_attention's "
                   "alpha for that step's decoder state.",
                   "Row i of A is computed from S_prev[i]: the alignment changes with the decoder state, so it "
                   "is recomputed for every output step.")),
    Mistake("w_u_swapped",
            "W_a and U_a are swapped: W_a belongs to the decoder state and U_a to the encoder states, "
            "e_j = v_a . tanh(W_a s_prev + U_a h_j). (With W_a of shape (d_a, d_s) and U_a of shape (d_a, d_h) "
            "the swap only runs when d_s = d_h.)",
            _matrices(swapped=True),
            hints=("Look at which weight matrix multiplies which state in your score: the decoder state and the "
                   "encoder states each have their own.",
                   "Call your function with d_s, d_h and d_a all different (say 2, 3 and 4): W_a is d_a × d_s "
                   "and U_a is d_a × d_h, so which state can each of them multiply without a shape error?",
                   "In e_j, W_a carries the decoder state s_prev and U_a each encoder state h_j. The two are not "
                   "interchangeable, and even with d_s equal to d_h swapping them gives other scores.")),
    Mistake("no_pair_broadcast",
            "the decoder and encoder terms do not broadcast: S_prev @ W_a.T is (T_y, d_a) and H @ U_a.T is "
            "(T_x, d_a). Every pair (i, j) needs its own sum: add axes, "
            "(S_prev @ W_a.T)[:, None, :] + (H @ U_a.T)[None, :, :], which is (T_y, T_x, d_a).",
            _no_pair_broadcast,
            hints=("Look at the line where your additive_attention_all adds the decoder term and the encoder "
                   "term: what shape has each of them?",
                   "Print the shapes of the two terms with T_y 4 and T_x 6: one is 4 × d_a, the other 6 × d_a. "
                   "The sum must hold one vector for every pair of a step i and a position j, 4 × 6 × d_a. What "
                   "does yours give?",
                   "Broadcasting pairs every output step with every input position only when the two terms get "
                   "their axes of dimension 1 in different places. Added row by row, step i meets position i "
                   "alone.")),
    Mistake("orientation_swapped",
            "the weight matrices are used the wrong way round (for example s_prev @ W_a or H @ U_a). W_a has "
            "shape (d_a, d_s) and maps s_prev to W_a @ s_prev (row form: s_prev @ W_a.T); U_a has shape "
            "(d_a, d_h) and maps each h_j to U_a @ h_j, so for all rows at once H @ U_a.T, of shape (T_x, d_a).",
            _matrices(transposed=True),
            hints=("Look at each matrix product in your score: which state does each of W_a and U_a multiply, "
                   "and on which side of the matrix does the state stand?",
                   "Check the shapes with d_s, d_h and d_a all different (say 2, 3 and 4): W_a, of shape d_a × "
                   "d_s, must turn s_prev into a vector of dimension d_a, and U_a must turn each row of H into "
                   "one. Which of your products raise a shape error?",
                   "The contract follows the paper's column form, W_a s_prev and U_a h_j, with the matrix on the "
                   "left. With the states stored as rows, the same products put each state on the left of the "
                   "transposed matrix.")),
    nan_where_finite("no_max_subtraction", NO_MAX,
                     overflows=lambda record: exp_out_of_range(_scores(*record.args[:5])),
                     hints=("Look at the softmax step of your attention functions: what values does the "
                            "exponential receive when the scores are in the thousands?",
                            "Multiply v_a by 10000 in the chapter's worked example, so that the first score is "
                            "about 1436, beyond the range of `np.exp` (about 709), and call your functions: the "
                            "right weights are finite. With several decoder steps, also try one whose scores all "
                            "lie far below the matrix's largest.",
                            "Softmax does not change when the same number is subtracted from all the scores of "
                            "one output step. Subtracting each step's own largest score keeps every exponent at "
                            "most 0. The notebook's `softmax` already does this.")),
]


def _inputs(rng, T_x, d_h, d_s, d_a, T_y=None):
    S = rng.normal(size=(d_s,) if T_y is None else (T_y, d_s))   # s_prev (d_s,) or S_prev (T_y, d_s)
    H = rng.normal(size=(T_x, d_h))                              # (T_x, d_h)
    W_a = rng.normal(scale=0.7, size=(d_a, d_s))                 # (d_a, d_s)
    U_a = rng.normal(scale=0.7, size=(d_a, d_h))                 # (d_a, d_h)
    v_a = rng.normal(size=d_a)                                   # (d_a,)
    return S, H, W_a, U_a, v_a


def _expect(function, name, args):
    first = "S_prev" if name == "additive_attention_all" else "s_prev"
    queries = 2 if name == "additive_attention_all" else 1   # trailing axes of s_prev (d_s,) or S_prev (T_y, d_s)
    record = attempt(function, name, args, want=getattr(_ref(), name)(*args),
                     arg_names=(first, "H", "W_a", "U_a", "v_a"),
                     batched=Batched.unbatched((queries, 2, None, None, None), getattr(_ref(), name)))
    expect(record, MISTAKES)
    return record.got


def check_additive_scores(additive_scores):
    """Random inputs with T_x, d_h, d_s and d_a all different: one raw score per input position."""
    rng = hidden_inputs("additive_scores")
    for T_x, d_h, d_s, d_a in [(5, 3, 4, 6), (7, 6, 2, 3)]:
        _expect(additive_scores, "additive_scores", _inputs(rng, T_x, d_h, d_s, d_a))


def check_additive_attention(additive_attention):
    """Random inputs: weights non-negative, summing to 1 over the input positions; context = weighted sum."""
    rng = hidden_inputs("additive_attention")
    for T_x, d_h, d_s, d_a in [(5, 3, 4, 6), (4, 7, 5, 2)]:
        args = _inputs(rng, T_x, d_h, d_s, d_a)
        context, weights = _expect(additive_attention, "additive_attention", args)
        assert np.all(weights >= 0) and np.isclose(weights.sum(), 1.0), (
            _("additive_attention: the weights must be non-negative and sum to 1 over the input positions"))
        assert np.allclose(context, weights @ args[1]), (
            _("additive_attention: the context must be the weighted sum of the rows of H, alpha @ H"))
    _expect(additive_attention, "additive_attention", _large(_inputs(rng, 6, 3, 4, 5)))


def _large(args):
    """The same inputs with v_a scaled (``checks.large_factor``): scores beyond the range of `np.exp`."""
    S, H, W_a, U_a, v_a = args
    return S, H, W_a, U_a, v_a * large_factor(_scores(S, H, W_a, U_a, v_a))


def check_additive_attention_all(additive_attention_all):
    """Several decoder steps at once (T_y different from T_x); a single step; every row sums to 1."""
    rng = hidden_inputs("additive_attention_all")
    for T_y, T_x, d_h, d_s, d_a in [(4, 6, 3, 5, 7), (6, 3, 5, 2, 4), (1, 5, 4, 3, 6)]:
        args = _inputs(rng, T_x, d_h, d_s, d_a, T_y=T_y)
        _context, weights = _expect(additive_attention_all, "additive_attention_all", args)
        assert np.allclose(weights.sum(axis=-1), 1.0), (
            _("additive_attention_all: each row of A (one output step) must sum to 1 over the input positions"))
    _expect(additive_attention_all, "additive_attention_all", _large_with_a_low_step(rng))


def _large_with_a_low_step(rng, tries=200):
    """Large inputs (``_large``) where, in every draw, one output step's scores all lie more than 800 below
    the largest score of the whole array: a softmax shifted by that global maximum underflows to 0 / 0
    there, as one without any shift overflows everywhere."""
    for _try in range(tries):
        args = _large(_inputs(rng, 5, 3, 4, 6, T_y=3))
        e = _scores(*args)                                           # (T_y, T_x)
        if e.max() - e.max(axis=-1).min() > 800:
            return args
    raise RuntimeError("no draw with a low output step")   # the catalogue's own bug, never the learner's


def check_square_weights(additive_scores, additive_attention_all):
    """d_s = d_h = d_a with non-symmetric W_a and U_a: a transposed or swapped matrix changes the values."""
    rng = hidden_inputs("square_weights")
    _expect(additive_scores, "additive_scores", _inputs(rng, 5, 4, 4, 4))
    _expect(additive_attention_all, "additive_attention_all", _inputs(rng, 6, 4, 4, 4, T_y=3))
