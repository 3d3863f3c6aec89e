"""Exercise 02, the RNN encoder and the fixed-length context: hidden checks and misconceptions.

The hidden test cells of ``solutions/02_seq2seq/seq2seq.ipynb`` call the
``check_*`` functions below with the learner's ``rnn_encoder`` and
``fixed_context``.  Inputs are random (``checks.rng``) with T, d_x and d_h all
different and a non-symmetric recurrent matrix, so that a transposed weight,
a missing recurrence or an extra row changes the shape or the values.  A wrong
answer is matched against ``MISTAKES`` in order; the first symptom that fits
names the mistake.  Every mistake has a wrong implementation in
``tests/submissions/02_seq2seq/wrong/``.
"""
import numpy as np

from ..checks import rng as hidden_inputs
from ..checks import Batched, Mistake, Stage, attempt, close, expect, nan_where_finite, reference
from ..i18n import N_, _


def _ref():
    return reference(__name__)


def _encode(X, W_xh, W_hh, b_h, h0=None, *, transpose=False, recurrence=True, squash=True):
    """The recurrence, and the variants that the mistakes compute."""
    h = np.zeros(W_hh.shape[0]) if h0 is None else np.asarray(h0, dtype=float)
    W = W_hh.T if transpose else W_hh
    states = []
    for x in np.asarray(X, dtype=float):
        a = x @ W_xh + (h @ W if recurrence else 0.0) + b_h
        h = np.tanh(a) if squash else a
        states.append(h)
    return np.array(states)


def _args(record):
    """(X, W_xh, W_hh, b_h, h0) of an rnn_encoder call."""
    X, W_xh, W_hh, b_h, *rest = record.args
    return X, W_xh, W_hh, b_h, (rest[0] if rest else None)


def _is_encoder(record):
    return record.function == "rnn_encoder"


def _encoder_variant(**variant):
    def detect(record):
        return _is_encoder(record) and close(record.got, _encode(*_args(record), **variant))
    return detect


def _h0_as_row(record):
    if not _is_encoder(record):
        return False
    X, W_xh, W_hh, b_h, h0 = _args(record)
    start = np.zeros(W_hh.shape[0]) if h0 is None else h0
    with_start = np.vstack([start, record.want])                  # (T + 1, d_h): h0 kept as row 0
    return close(record.got, with_start) or close(record.got, with_start[:-1])


def _h0_ignored(record):
    if not _is_encoder(record):
        return False
    X, W_xh, W_hh, b_h, h0 = _args(record)
    return h0 is not None and close(record.got, _encode(X, W_xh, W_hh, b_h))


def _bias_missing(record):
    if not _is_encoder(record):
        return False
    X, W_xh, W_hh, b_h, h0 = _args(record)
    return close(record.got, _encode(X, W_xh, W_hh, np.zeros_like(b_h), h0))


def _context(reduce):
    def detect(record):
        return record.function == "fixed_context" and close(record.got, reduce(np.asarray(record.args[0])))
    return detect


MISTAKES = [
    Mistake("returns_last_state",
            "rnn_encoder returned only the last state, shape (d_h,). It must return every state, one per "
            "input step, stacked into H of shape (T, d_h); the last one is what fixed_context picks from H.",
            lambda record: _is_encoder(record) and record.got is not None and np.shape(record.got) == np.shape(
                record.want)[1:] and close(record.got, record.want[-1]) and len(record.want) > 1,
            hints=("Look at what your rnn_encoder returns after its loop over the input steps: how many states "
                   "does it hold?",
                   "Call it on an X of 3 rows and print the shape of the result: the contract asks for one state "
                   "per input step, (T, d_h), so 3 rows here.",
                   "rnn_encoder returns H, every state stacked one per row. Picking the last one out of H is the "
                   "job of fixed_context.")),
    Mistake("recurrence_missing",
            "each state depends only on its own input: the previous state never enters the update, so "
            "H[t] = tanh(X[t] @ W_xh + b_h). An RNN carries the past forward: "
            "H[t] = tanh(X[t] @ W_xh + H[t-1] @ W_hh + b_h), starting from h0 (zeros when h0 is None).",
            _encoder_variant(recurrence=False),
            hints=("Look at the update of the state at each step: which quantities does the new state depend on?",
                   "Call it twice on the same inputs with h0 left out, once as they are and once with X[0] "
                   "changed: the right H changes in every row, because each state carries the earlier inputs. "
                   "Which of your rows change?",
                   "An RNN carries the past forward: each state is computed from its own input row and the "
                   "previous state, through W_hh, and the state before the first step is h0, or zeros when h0 is "
                   "None.")),
    Mistake("transposed_recurrence",
            "the recurrent weights are used transposed (W_hh @ h, the column convention). In this book's row "
            "convention the state is a row vector and the update is h @ W_hh: "
            "H[t] = tanh(X[t] @ W_xh + H[t-1] @ W_hh + b_h).",
            _encoder_variant(transpose=True),
            hints=("Look at the recurrent term of your update, the one that brings the previous state in through "
                   "W_hh.",
                   "On the visible example, with h0 left out, compare your H with the expected states row by "
                   "row: where does the first difference appear? Then compute H[1] by hand from H[0], X[1] and "
                   "the contract's formula, and compare term by term.",
                   "In the book's row convention a state is a row vector standing on the left of its weight "
                   "matrix, so the recurrent term is the previous state times W_hh. With a non-symmetric W_hh, "
                   "the matrix times the state is another vector.")),
    Mistake("h0_returned_as_row",
            "the initial state h0 is returned as the first row of H. H holds one state per input step, "
            "H[t] being the state after reading X[t], so it has shape (T, d_h): keep h0 only to compute H[0] "
            "and do not store it.",
            _h0_as_row,
            hints=("Look at the first row of the H you return: which state is it, and how many rows does H have?",
                   "Call it on an X of 3 rows with a given h0 and compare your first row with h0: the right H "
                   "has 3 rows, and its H[0] is the state after reading X[0], not h0 itself.",
                   "H holds one state per input step, H[t] being the state after reading X[t]. The initial state "
                   "h0 is only the previous state of the first step and is not a row of H.")),
    Mistake("h0_ignored",
            "the initial state h0 you were given is ignored: the encoder always starts from zeros. Use zeros "
            "only when h0 is None; otherwise start the recurrence from h0.",
            _h0_ignored,
            hints=("Look at where your loop's state starts: what becomes of the h0 the caller passes?",
                   "Call it on the same inputs twice, with h0 left out and with h0 set to 0.5, -0.5 and 0.25 "
                   "(the visible example): the two H must differ, already in H[0]. Do yours?",
                   "Zeros are only the default: the recurrence starts from h0 whenever one is given, and from "
                   "zeros only when h0 is None.")),
    Mistake("no_tanh",
            "the tanh is missing: your states are a linear recurrence X[t] @ W_xh + H[t-1] @ W_hh + b_h. "
            "Apply np.tanh to the whole sum at every step.",
            _encoder_variant(squash=False),
            hints=("Look at the last operation of each step: what is done to the sum of the input term, the "
                   "recurrent term and the bias before it becomes the new state?",
                   "With h0 left out, H[0] of the visible example is the tanh of X[0] times W_xh plus b_h, about "
                   "0.537, -0.197 and 0.0: compare it with your H[0], and check that all your states lie between "
                   "-1 and 1.",
                   "An Elman RNN squashes the whole sum through tanh at every step, so every state lies between "
                   "-1 and 1 and the recurrence is not linear.")),
    Mistake("bias_missing",
            "the bias b_h is missing from the update. Add it inside the tanh at every step: "
            "tanh(X[t] @ W_xh + H[t-1] @ W_hh + b_h).",
            _bias_missing,
            hints=("Look at the terms your update adds up inside the tanh: compare them one by one with the "
                   "contract's formula.",
                   "Call it twice on the same inputs, once with b_h as given and once with b_h set to zeros: the "
                   "right H changes, since the bias enters every step. Does yours?",
                   "Each step adds three terms inside the tanh: the input term, the recurrent term and the bias "
                   "b_h, the same bias at every step.")),
    Mistake("column_convention",
            "the weights are applied in the column convention (`W_xh @ x_t`, `W_hh @ h`), which does not fit "
            "their shapes here: W_xh is (d_x, d_h) and W_hh is (d_h, d_h), made for row vectors. In this book's "
            "row convention the update is `np.tanh(x_t @ W_xh + h @ W_hh + b_h)`.",
            lambda record: _is_encoder(record) and record.error is not None and any(
                phrase in record.error for phrase in ("not aligned", "mismatch in its core dimension")),
            hints=("Look at the matrix products of your update: do the shapes of the two factors of each product "
                   "fit together?",
                   "Print the shapes of X[0], W_xh, the state and W_hh on an example with d_x and d_h different "
                   "(say 2 and 3): in each product the last dimension of the left factor must equal the first "
                   "dimension of the right one.",
                   "In the book's row convention a vector stands on the left of its weight matrix: an input row "
                   "of dimension d_x meets W_xh, of shape (d_x, d_h), and a state of dimension d_h meets W_hh, "
                   "of shape (d_h, d_h).")),
    nan_where_finite(
        "tanh_overflow",
        "your states contain `nan` for large inputs: a hand-written tanh (e^a - e^-a) / (e^a + e^-a) "
        "overflows to inf / inf once |a| exceeds about 710, although tanh(a) is simply +-1 there. Use "
        "`np.tanh`, which is exact for every input (or the stable form 1 - 2 / (np.exp(2 * a) + 1)).",
        hints=("Look at how your update turns the sum inside the tanh into a state: can any step of it give inf "
               "when that sum is large?",
               "Scale X up so that X[0] times W_xh reaches about 1000 and print H[0]: the right states are "
               "finite, each entry about +1 or -1. Print the intermediate values of one step to find where the "
               "first inf or `nan` appears.",
               "tanh of any real number lies between -1 and 1, so the states are finite for every input. Only "
               "intermediate values such as the exponential of 1000 leave the floating-point range, which ends "
               "near 709 for `np.exp`.")),
    Mistake("first_state",
            "you returned the FIRST encoder state H[0]. It has read only x_1; the vector a plain "
            "encoder-decoder hands to its decoder is the state after the whole input has been read, the last "
            "state H[-1].",
            _context(lambda H: H[0]),
            hints=("Look at which row of H your fixed_context picks: which inputs has that state read?",
                   "Call it on the 3 × 2 array with rows (1, 2), (3, 4) and (5, 6), as the visible test does: "
                   "the state after the whole input is (5, 6). Compare with what yours returns.",
                   "The fixed-length vector of a plain encoder–decoder is the state after the whole input has "
                   "been read: H[t] has read X[0] up to X[t], so only the last row has read everything.")),
    Mistake("mean_over_time",
            "you returned the mean of the states over time. A plain encoder-decoder does not average its "
            "states: its single fixed-length vector is the last state H[-1], the state after the whole input.",
            _context(lambda H: H.mean(axis=0)),
            hints=("Look at how your fixed_context turns the T rows of H into one vector of dimension d_h: does "
                   "it pick a row or combine several?",
                   "Call it on the 3 × 2 array with rows (1, 2), (3, 4) and (5, 6): a right fixed_context "
                   "returns (5, 6), one of the rows unchanged. Compare with yours.",
                   "A plain encoder–decoder does not summarise its states: the decoder gets the last state, "
                   "which has read the whole input. Weighting all the states is what attention adds in chapter "
                   "3.")),
    Mistake("last_column",
            "you returned the last COLUMN H[:, -1] (one feature of every state, shape (T,)). The rows of H are "
            "the time steps, so the last state is the last ROW, H[-1], of shape (d_h,).",
            _context(lambda H: H[:, -1]),
            hints=("Look at the index you use to take the state out of H: along which axis of H does it select?",
                   "Call it on an H of shape (3, 2) and print the shape of your result: the state is a vector of "
                   "dimension d_h, here (2,), not one of dimension T.",
                   "In the row convention each row of H is one state, with d_h entries. A column holds one "
                   "feature of every state across the T steps.")),
    Mistake("all_states",
            "you returned every state (shape (T, d_h)). The point of a plain encoder-decoder is that the decoder "
            "gets ONE fixed-length vector, whatever the input length: return the last state H[-1], shape (d_h,).",
            _context(lambda H: H),
            hints=("Look at what your fixed_context returns: how many states, and of what shape?",
                   "Call it on an H of shape (6, 4) and print the shape of your result: the contract asks for "
                   "one vector of shape (4,), that is (d_h,), whatever T is.",
                   "The point of a plain encoder–decoder is its bottleneck: whatever the number of input steps, "
                   "the decoder gets one fixed-length vector, the state after the whole input.")),
]


# --------------------------------------------------------------------------- stages
def _first_step(**zeros):
    """The record's rnn_encoder call on its first input row alone and without h0 (the contract's zero
    state); ``zeros`` sets b_h to 0 too."""
    def probe(record):
        X, W_xh, W_hh, b_h, _h0 = _args(record)
        b_h = np.zeros_like(b_h) if "b_h" in zeros else b_h
        return (np.asarray(X)[:1], W_xh, W_hh, b_h), dict(record.kwargs)
    return probe


# For a wrong answer that no mistake names: where it shows.  A message says what the probe observed and
# only what follows from that for any code.
STAGES = [
    Stage("rnn_encoder", _first_step(),
          right=N_("with one input row and no h0 your state is right: the mistake shows only from the second step "
                   "on, or with a given h0")),
    Stage("rnn_encoder", _first_step(b_h=0),
          right=N_("with one input row and no h0 your state is wrong, and right when b_h = 0 too: the mistake shows "
                   "through the bias b_h"),
          wrong=N_("even with one input row, no h0 and b_h = 0 your state is wrong: the mistake shows in the first "
                   "step already, whose state is tanh(X[0] @ W_xh) from the zero state (check the initial state, "
                   "X[0] @ W_xh and the tanh)")),
]


def _parameters(rng, T, d_x, d_h):
    X = rng.normal(size=(T, d_x))                          # (T, d_x)
    W_xh = rng.normal(scale=0.6, size=(d_x, d_h))          # (d_x, d_h)
    W_hh = rng.normal(scale=0.6, size=(d_h, d_h))          # (d_h, d_h), not symmetric
    b_h = rng.normal(scale=0.5, size=d_h)                  # (d_h,)
    return X, W_xh, W_hh, b_h


def _expect_encoder(rnn_encoder, args):
    names = ("X", "W_xh", "W_hh", "b_h", "h0")[:len(args)]
    record = attempt(rnn_encoder, "rnn_encoder", args, want=_ref().rnn_encoder(*args), arg_names=names,
                     batched=Batched.unbatched((2, None, None, None, 1)[:len(args)], _ref().rnn_encoder))
    expect(record, MISTAKES, stages=STAGES)
    return record.got


def check_rnn_encoder(rnn_encoder):
    """Random inputs with T, d_x and d_h all different; h0 left out or None; a single step."""
    rng = hidden_inputs("rnn_encoder")
    for T, d_x, d_h in [(5, 3, 4), (7, 2, 6)]:
        X, W_xh, W_hh, b_h = _parameters(rng, T, d_x, d_h)
        H = _expect_encoder(rnn_encoder, (X, W_xh, W_hh, b_h))
        assert np.all(np.abs(H) <= 1), _("rnn_encoder: tanh states must lie between -1 and 1")
    X, W_xh, W_hh, b_h = _parameters(rng, 6, 4, 3)
    _expect_encoder(rnn_encoder, (X, W_xh, W_hh, b_h, None))
    X, W_xh, W_hh, b_h = _parameters(rng, 1, 3, 5)
    _expect_encoder(rnn_encoder, (X, W_xh, W_hh, b_h))
    # Large inputs: pre-activations up to 1500, where tanh is +-1 (and e^a overflows above about 710).
    _expect_encoder(rnn_encoder, _saturating(rng, 5, 3, 4))


def _saturating(rng, T, d_x, d_h, largest=1500.0):
    """Encoder arguments whose pre-activations all lie beyond +-20 at every step (their largest is
    ``largest``), in every draw: tanh is then +-1 in float32 as in float64.  A pre-activation near 0,
    summed from terms near 1500, would carry a float32 rounding error beyond the tolerance, and a
    correct float32 encoder would fail in some draws."""
    for _attempt in range(1000):
        X, W_xh, W_hh, b_h = _parameters(rng, T, d_x, d_h)
        inputs = X @ W_xh                                        # (T, d_h): the input's part of each pre-activation
        factor = largest / np.abs(inputs).max()
        recurrent = np.abs(W_hh).sum(axis=0) + np.abs(b_h)       # (d_h,): the most |h W_hh + b| can add
        if np.all(factor * np.abs(inputs) >= 20.0 + recurrent):
            return X * factor, W_xh, W_hh, b_h
    raise RuntimeError("no saturating encoder inputs in 1000 draws")


def check_rnn_encoder_h0(rnn_encoder):
    """A given, non-zero initial state h0."""
    rng = hidden_inputs("rnn_encoder_h0")
    for T, d_x, d_h in [(4, 3, 5), (6, 5, 2)]:
        X, W_xh, W_hh, b_h = _parameters(rng, T, d_x, d_h)
        h0 = rng.uniform(-0.9, 0.9, size=d_h)
        _expect_encoder(rnn_encoder, (X, W_xh, W_hh, b_h, h0))


def check_fixed_context(fixed_context):
    """States of random encoders with T different from d_h: the result is the last state, (d_h,)."""
    rng = hidden_inputs("fixed_context")
    for T, d_x, d_h in [(6, 3, 4), (3, 2, 5), (1, 2, 3)]:
        H = _ref().rnn_encoder(*_parameters(rng, T, d_x, d_h))          # (T, d_h)
        record = attempt(fixed_context, "fixed_context", (H,), want=_ref().fixed_context(H), arg_names=("H",),
                         batched=Batched.unbatched((2,), _ref().fixed_context))
        expect(record, MISTAKES)
