"""Exercise 10, positions: hidden checks and the misconception catalogue.

Each hidden test cell of ``solutions/10_positions/positions.ipynb`` calls one
``check_*`` function below with the learner's ``sinusoidal_encoding`` or
``apply_rotary``.  Inputs are chosen so that no mistake can hide: ``n`` never
equals ``d_model`` (a transposed encoding has another shape), ``d_model`` is
at least 6 (with one pair of columns the exponent mistakes change nothing),
the positions pass 50 (a 1-based or multiplied angle is far off), and the
rotary positions are not ``0, 1, ..., n-1`` (a row index in their place is
caught) and come with one or two leading axes.  A wrong answer is matched
against ``MISTAKES`` in order; the first symptom that fits names the mistake.
Every mistake has a wrong implementation in ``tests/submissions/10_positions/``.
"""
import numpy as np

from ..checks import rng as hidden_inputs
from ..checks import Batched, Mistake, attempt, close, expect, modifies_input, probed_once, reference, reproduces
from ..i18n import N_, _

BASE = 10000.0


# --------------------------------------------------------------------------- mistaken formulas
def _power(d, exponent):
    """The exponents of 10000 in the frequencies, per pair (2i, 2i+1): "2i" (the contract's 2i / d),
    "i" (i / d), or a fitted (per, scale): scale * i / d for pair i, or scale * j / d for column j
    (with per "column": (d,) exponents, one per column)."""
    per, scale = {"2i": ("pair", 2.0), "i": ("pair", 1.0), "column": ("column", 1.0)}.get(exponent, exponent)
    return scale * np.arange(d if per == "column" else d // 2) / d


def _encoding(n, d, *, swap=False, exponent="2i", layout="interleaved", start=0, divide=True):
    """What sinusoidal_encoding(n, d) returns under one mistaken formula."""
    pos = np.arange(start, start + n)[:, None]                             # (n, 1)
    power = _power(d, exponent)                                            # (d/2,) or (d,)
    angles = pos / BASE ** power if divide else pos * BASE ** power        # (n, d/2) or (n, d)
    if power.shape[0] == d:                                                # one frequency per column
        column = np.arange(d)
        PE = np.where(column % 2, np.cos(angles), np.sin(angles))
        return np.where(column % 2, np.sin(angles), np.cos(angles)) if swap else PE
    first, second = (np.cos(angles), np.sin(angles)) if swap else (np.sin(angles), np.cos(angles))
    if layout == "halves":
        return np.concatenate([first, second], axis=1)
    PE = np.empty((n, d))
    PE[:, 0::2], PE[:, 1::2] = first, second
    return PE


def _rotate(X, positions, *, sign=1.0, layout="interleaved", exponent="2i", output="interleaved"):
    """What apply_rotary(X, positions) returns under one mistaken formula."""
    X = np.asarray(X, dtype=float)
    d = X.shape[-1]
    theta = BASE ** -_power(d, exponent)                                   # (d/2,)
    angles = sign * np.asarray(positions, dtype=float)[:, None] * theta    # (n, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    if layout == "halves":                                                 # pair i with i + d/2
        a, b = X[..., :d // 2], X[..., d // 2:]
        return np.concatenate([a * cos - b * sin, a * sin + b * cos], axis=-1)
    even, odd = X[..., 0::2], X[..., 1::2]
    new_even, new_odd = even * cos - odd * sin, even * sin + odd * cos
    if output == "halves":                                                 # right pairs, stored as halves
        return np.concatenate([new_even, new_odd], axis=-1)
    out = np.empty(X.shape)
    out[..., 0::2], out[..., 1::2] = new_even, new_odd
    return out


def _encoding_variant(**options):
    def detect(record):
        if record.function != "sinusoidal_encoding" or record.got is None:
            return False
        n, d = (int(a) for a in record.args[:2])
        return close(record.got, _encoding(n, d, **options))
    return detect


# The exponents tried for a family of frequencies: 10000 ** (-scale * i / d) for pair i, or
# 10000 ** (-scale * j / d) for column j, with the scale in quarters up to 8, fitted to the learner's
# answer and named with it.  A pair's scale 2 is the contract's, and 1 has its own name.
SCALES = tuple(np.arange(1, 33) / 4)
FITTED = {"pair": N_("your frequencies fit 10000 ** (-{exponent} / d) for pair i (columns 2i and 2i+1)"),
          "column": N_("your frequencies fit 10000 ** (-{exponent} / d) for column j")}


def _exponent_fitted(function, compute, per, named_elsewhere=()):
    """A detector that fits the exponent's scale (per pair or per column) to the learner's answer: the
    detail names it, and every call of the test must fit the same one."""
    def detect(record):
        if record.function != function or record.got is None:
            return False
        for scale in SCALES:
            if scale not in named_elsewhere and reproduces(record, compute(record, (per, scale))):
                index = "i" if per == "pair" else "j"
                return _(FITTED[per]).format(exponent=index if scale == 1 else f"{scale:g} * {index}")
        return False
    detect.same_detail = True   # read by Mistake: every call of a test must fit the same scale
    return detect


def _sinusoidal_fitted(per, named_elsewhere=()):
    return _exponent_fitted("sinusoidal_encoding", lambda record, exponent: _encoding(
        *(int(a) for a in record.args[:2]), exponent=exponent), per, named_elsewhere)


def _axes_swapped(record):
    """The right encoding, transposed (verified on the values, not only the shape)."""
    want = np.shape(record.want)
    return (record.function == "sinusoidal_encoding" and record.got is not None and want[0] != want[1]
            and record.got.shape == want[::-1] and close(record.got, np.asarray(record.want).T))


def _arguments_swapped(record):
    """Called with its two arguments the other way round, the learner's function returns the right
    encoding: it takes (d_model, n), not the contract's (n, d_model)."""
    if record.function != "sinusoidal_encoding" or len(record.args) < 2:
        return False
    n, d_model = record.args[:2]
    if n == d_model:
        return False

    def right_the_other_way(record):
        other = attempt(record.callee, "sinusoidal_encoding", (d_model, n), want=record.want,
                        arg_names=("n", "d_model"))
        return other.error is None and close(other.got, record.want)
    return probed_once(record, "arguments swapped", right_the_other_way)


def _rotary_variant(**options):
    def detect(record):
        if record.function != "apply_rotary" or record.got is None:
            return False
        return close(record.got, _rotate(*record.args[:2], **options))
    return detect


def _row_index(record):
    if record.function != "apply_rotary" or record.got is None:
        return False
    n = np.shape(record.args[0])[-2]
    return (not np.array_equal(record.args[1], np.arange(n))
            and close(record.got, _rotate(record.args[0], np.arange(n))))


def _leading_axes(record):
    """Fails (or changes shape) only when X has leading axes: verified by calling the learner's function
    on one (n, d) slice of the same X, which must give the right answer."""
    if record.function != "apply_rotary" or np.ndim(record.args[0]) <= 2:
        return False
    if not (record.error is not None or record.got.shape != np.shape(record.args[0])):
        return False
    def right_on_one_slice(record):
        X, positions = np.asarray(record.args[0], dtype=float), record.args[1]
        stacked = X.reshape(-1, *X.shape[-2:])                     # (batch, n, d)

        def right(part):
            trial = attempt(record.callee, "apply_rotary", (part, positions),
                            want=_ref().apply_rotary(part, positions), arg_names=("X", "positions"))
            return trial.error is None and close(trial.got, trial.want)
        # right on (n, d), wrong with one leading axis too (code for one batch axis only is fixed_rank)
        return right(stacked[0]) and (X.ndim == 3 or not right(stacked))
    return probed_once(record, "one slice", right_on_one_slice)


MISTAKES = [
    Mistake("positions_and_dimensions_swapped",
            "the encoding is transposed: it has shape (d_model, n), one row per dimension, instead of "
            "(n, d_model), one row per position (the row convention: row pos is added to the embedding "
            "of the token at position pos). Put the positions on axis 0: "
            "`angles = np.arange(n)[:, None] * theta[None, :]`, shape (n, d_model / 2).",
            _axes_swapped,
            hints=("Look at the shape of the array `sinusoidal_encoding` returns: which axis holds the positions?",
                   "Print the shape of your encoding for 3 positions and d_model 4: the contract asks for (3, 4), "
                   "one row per position. Is yours (4, 3)?",
                   "The book's row convention: row pos of the encoding is added to the embedding of the token "
                   "at position pos, so the positions run along axis 0 and the d_model dimensions along axis 1.")),
    Mistake("arguments_swapped",
            "your function takes its two parameters in the other order: given d_model first and n second, it "
            "returns the right encoding. The contract's signature is `sinusoidal_encoding(n, d_model)`, the "
            "number of positions first.",
            _arguments_swapped,
            hints=("Look at the first line of your function: in which order does it name its two parameters?",
                   "Call it for 3 positions and d_model 4 and print the shape: it should be 3 × 4. Then compare "
                   "its first row with the encoding of position 0, zeros and ones alternating.",
                   "The contract fixes the order of the parameters: the number of positions first, then the "
                   "dimension of each encoding. A caller passes them by position, not by name.")),
    Mistake("sin_cos_swapped",
            "sine and cosine are swapped: the even columns hold cosines and the odd columns sines, so "
            "row 0 is [1, 0, 1, 0, ...] instead of [0, 1, 0, 1, ...]. PE[pos, 2i] = sin(pos * theta_i) "
            "and PE[pos, 2i+1] = cos(pos * theta_i).",
            _encoding_variant(swap=True),
            hints=("Look at which function fills the even columns of the encoding and which fills the odd ones.",
                   "Print row 0 of your encoding, position 0: it should be [0, 1, 0, 1, ...], since sin 0 is 0 "
                   "and cos 0 is 1. What do your even columns hold?",
                   "In pair i the sine goes into column 2i, the even one, and the cosine into column 2i+1, the "
                   "odd one (Section 10.2).")),
    Mistake("exponent_i_over_d_model",
            "the frequencies are 10000 ** (-i / d_model), not 10000 ** (-2i / d_model): the exponent is "
            "i / d_model instead of 2i / d_model (or the base is 100 instead of 10000, which gives the same "
            "numbers). Pair i of columns (2i, 2i+1) must use theta_i = 10000 ** (-2i / d_model), so the "
            "exponents run 0, 2/d, 4/d, ... up to (d - 2)/d; with i / d_model the slowest pair is far too fast. "
            "Use `10000 ** (-np.arange(0, d_model, 2) / d_model)`.",
            _encoding_variant(exponent="i"),
            hints=("Look at the exponent of 10000 in your frequencies: what does it give for the last pair of "
                   "columns?",
                   "For d_model 4 the second pair (columns 2 and 3) should use the frequency 10000 to the power "
                   "minus 2/4, which is 0.01: row 1 of the visible test is [sin 1, cos 1, sin 0.01, cos 0.01]. "
                   "What is your row 1?",
                   "Pair i has the exponent 2i / d_model, where 2i is the index of its even column, so the "
                   "exponents run 0, 2/d_model, 4/d_model and so on, and the slowest pair's wavelength comes "
                   "close to 10000 × 2π (Section 10.2).")),
    Mistake("frequency_per_column",
            "every column has its own frequency, a power of 10000 that changes with j, the column index, so "
            "the sine and the cosine of a pair no longer share one angle. Columns 2i and 2i+1 share "
            "theta_i = 10000 ** (-2i / d_model): compute d_model / 2 angles per position and take the "
            "sine and the cosine of each (in a loop over the columns j, the exponent is "
            "`2 * (j // 2) / d_model`).",
            _sinusoidal_fitted("column"),
            hints=("Look at where the frequency of each column is computed: which index does it depend on, the "
                   "column's or the pair's?",
                   "For a few positions, add the squares of columns 0 and 1, then of columns 2 and 3: if a pair's "
                   "sine and cosine share one angle, sine squared plus cosine squared is 1 in every row. What do "
                   "you get?",
                   "Columns 2i and 2i+1 share the angle pos × theta_i: there are d_model / 2 frequencies, one "
                   "per pair, not one per column (Section 10.2).")),
    Mistake("exponent_other",
            "the frequencies are not the contract's theta_i = 10000 ** (-2i / d_model), one per pair of "
            "columns: the sine in column 2i and the cosine in column 2i+1 share it. Check the base (10000, "
            "where another base scales every exponent) and the exponent: the 2i of the formula is the even "
            "column index, which `np.arange(0, d_model, 2)` already holds. Compute the d_model / 2 frequencies "
            "at once: `10000 ** (-np.arange(0, d_model, 2) / d_model)`.",
            _sinusoidal_fitted("pair", named_elsewhere=(1.0, 2.0)),
            hints=("Look at how the frequencies are computed: the base and the exponent that pair i gets.",
                   "Print the frequencies your code computes for d_model 4: they should be 1 and 0.01 (10000 to "
                   "the power minus 2/4), as row 1 of the visible test, [sin 1, cos 1, sin 0.01, cos 0.01], "
                   "shows. What is your second one?",
                   "The exponent is 2i / d_model, with 2i the index of the pair's even column, running 0, "
                   "2/d_model, 4/d_model and so on. An index doubled once too often, or a base other than "
                   "10000, stretches every exponent by the same factor.")),
    Mistake("halves_concatenated",
            "the sines fill the first half of the columns and the cosines the second half. The encoding "
            "interleaves them: sines in the EVEN columns 0, 2, 4, ... and cosines in the ODD columns "
            "1, 3, 5, ...; assign `PE[:, 0::2] = np.sin(angles)` and `PE[:, 1::2] = np.cos(angles)`.",
            _encoding_variant(layout="halves"),
            hints=("Look at how the sines and the cosines are placed into the columns of the encoding.",
                   "Print row 0 for d_model 6: it should be [0, 1, 0, 1, 0, 1], sines and cosines alternating. Is "
                   "yours [0, 0, 0, 1, 1, 1]?",
                   "The sines go into the even columns 0, 2, 4, ... and the cosines into the odd columns 1, 3, "
                   "5, ..., so the sine and the cosine of a pair sit side by side (Section 10.2).")),
    Mistake("positions_from_one",
            "the positions start at 1: row 0 must be position 0, whose encoding is [0, 1, 0, 1, ...]. "
            "Use `np.arange(n)`, not `np.arange(1, n + 1)`.",
            _encoding_variant(start=1),
            hints=("Look at the positions your rows stand for: which position does row 0 encode?",
                   "Print row 0: position 0 gives [0, 1, 0, 1, ...], because sin 0 is 0 and cos 0 is 1. Does your "
                   "row 0 hold what row 1 should hold?",
                   "Positions and column indices start at 0 in the contract: row pos encodes position pos, for "
                   "pos from 0 to n - 1.")),
    Mistake("multiplied_not_divided",
            "the position is multiplied by 10000 ** (2i / d_model) instead of divided by it: the angle "
            "is pos / 10000 ** (2i / d_model) = pos * theta_i, which shrinks with i (the wavelengths "
            "grow from 2 pi to 10000 * 2 pi).",
            _encoding_variant(divide=False),
            hints=("Look at how the position and the power of 10000 are combined into an angle.",
                   "Print the angles of position 1 for d_model 4: they should be 1 and 0.01, shrinking from pair "
                   "to pair. Do yours grow instead?",
                   "The angle is pos divided by 10000 to the power 2i / d_model, that is pos times theta_i with "
                   "theta_i at most 1, so the wavelengths grow from 2π to 10000 × 2π (Section 10.2).")),
    Mistake("rotary_clockwise",
            "the rotation goes the wrong way (clockwise): the sign of the sine is flipped, which is "
            "the same as rotating by -positions. Counter-clockwise by the angle a is "
            "x'_2i = x_2i cos a - x_2i+1 sin a, x'_2i+1 = x_2i sin a + x_2i+1 cos a.",
            _rotary_variant(sign=-1.0),
            hints=("Look at the signs in your two rotation formulas, the one for the even column of a pair and "
                   "the one for the odd column.",
                   "Rotate the row [1, 0, 1, 0] to position 1, as in the visible test: counter-clockwise, pair 0 "
                   "becomes [cos 1, sin 1], so column 1 is positive, about 0.84. What sign does your column 1 "
                   "have?",
                   "A counter-clockwise rotation by an angle a takes (1, 0) to (cos a, sin a) and (0, 1) to "
                   "(-sin a, cos a). Turning the other way is the same as rotating by the negative positions.")),
    Mistake("rotary_half_split",
            "column i is paired with column i + d/2 (the 'half-split' layout of GPT-NeoX and LLaMA "
            "code). This exercise uses RoFormer's interleaved pairs: column 2i with column 2i+1, "
            "`X[..., 0::2]` with `X[..., 1::2]`.",
            _rotary_variant(layout="halves"),
            hints=("Look at which two columns your code rotates together as one pair.",
                   "Rotate the row [1, 0, 0, 0] (d 4) to position 1: with interleaved pairs only columns 0 and 1 "
                   "change, to cos 1 and sin 1, and columns 2 and 3 stay 0. Which column receives sin 1 in yours?",
                   "Pair i is the even column 2i and the odd column 2i+1 right after it, the interleaved layout "
                   "of RoFormer that the contract uses (Section 10.7).")),
    Mistake("rotary_output_not_interleaved",
            "the pairs (2i, 2i+1) are rotated correctly, but the results are stored as two halves "
            "(all rotated even columns, then all rotated odd columns). Write them back where they came "
            "from: `out[..., 0::2] = ...` and `out[..., 1::2] = ...`.",
            _rotary_variant(output="halves"),
            hints=("Look at where the rotated values are written in the result: in which columns do they land?",
                   "Call it on a random row with d 4 at position 0: a rotation by the angle 0 moves nothing, so "
                   "the row should come back unchanged. Does it, column by column?",
                   "The rotated pair goes back into the columns 2i and 2i+1 it came from, so the result has the "
                   "layout of `X`, one pair after another.")),
    Mistake("rotary_exponent_i_over_d",
            "the frequencies are 10000 ** (-i / d) instead of theta_i = 10000 ** (-2i / d) for pair i (an "
            "exponent of i / d, or a base of 100 instead of 10000, which gives the same numbers): the pairs "
            "(2i, 2i+1) use the frequencies of the sinusoidal encoding with d_model = d. Use "
            "`10000 ** (-np.arange(0, d, 2) / d)`.",
            _rotary_variant(exponent="i"),
            hints=("Look at the frequencies theta_i your rotation uses: what exponent of 10000 does pair i get?",
                   "Rotate the row [1, 0, 1, 0] to position 1, as in the visible test: pair 1 should turn by 0.01 "
                   "radian, to [cos 0.01, sin 0.01] in columns 2 and 3. By what angle does yours turn?",
                   "RoPE uses the frequencies of the sinusoidal encoding with d in place of d_model: theta_i is "
                   "10000 to the power minus 2i / d, one per pair, from 1 down to nearly 1 / 10000 (Section "
                   "10.7).")),
    Mistake("rotary_exponent_other",
            "the frequencies are not the contract's theta_i = 10000 ** (-2i / d) for pair i: check the base "
            "(10000, where another base scales every exponent) and the exponents, which run 0, 2/d, 4/d, ... up "
            "to (d - 2)/d. Use `10000 ** (-np.arange(0, d, 2) / d)`.",
            _exponent_fitted("apply_rotary", lambda record, exponent: _rotate(*record.args[:2], exponent=exponent),
                             "pair", named_elsewhere=(1.0, 2.0)),
            hints=("Look at how theta_i is computed: the base and the exponent that pair i gets.",
                   "Print the frequencies your code uses for d 4: they should be 1 and 0.01, so that the row "
                   "[1, 0, 1, 0] at position 1 becomes [cos 1, sin 1, cos 0.01, sin 0.01], as in the visible "
                   "test. What is your second one?",
                   "The exponent of pair i is 2i / d, with 2i the index of its even column, running 0, 2/d, 4/d "
                   "and so on. An index doubled once too often, or a base other than 10000, stretches every "
                   "exponent by the same factor.")),
    Mistake("rotary_row_index_not_positions",
            "row j is rotated by its row index j, not by positions[j]. The positions need not be "
            "0, 1, ..., n-1 (a decoder rotates its new token by its own position, e.g. [5]): use "
            "`np.asarray(positions)[:, None] * theta`.",
            _row_index,
            hints=("Look at which numbers your angles are built from: the `positions` argument, or something "
                   "else?",
                   "Call it on a single row with `positions` [5]: the row should turn by 5 × theta_i in every "
                   "pair. Does it come back unchanged, as if its position were 0?",
                   "Row j turns by positions[j], whatever its place in the array: a decoder rotates its one new "
                   "token by that token's own position in the sequence (Section 10.7).")),
    Mistake("rotary_leading_axes_ignored",
            "your function works on an (n, d) array but not on (..., n, d) with leading axes (a batch, "
            "heads). Index the last axis from the end, `X[..., 0::2]` and `X[..., 1::2]`, take the "
            "width as `X.shape[-1]`, and let the (n, d/2) angles broadcast over the leading axes.",
            _leading_axes,
            hints=("Look at the lines that read the shape of `X` or index its axes: which of them assume that `X` "
                   "has exactly two axes?",
                   "Call it on an array of shape (2, 3, 6) with positions [4, 5, 6], as in the visible test, and "
                   "on each of its two (3, 6) slices: the result should have shape (2, 3, 6) and hold the two "
                   "slices' results.",
                   "`X` may have any number of leading axes (batches, heads): the columns are always the last "
                   "axis and the rows the one before it, and the (n, d/2) angles broadcast over the rest.")),
    modifies_input(N_("`X[..., 0::2] = ...` on the input"), N_("`out = np.empty(X.shape)`, then fill `out`")),
]


# --------------------------------------------------------------------------- checks
def _ref():
    return reference(__name__)


def _call_encoding(sinusoidal_encoding, n, d_model):
    record = attempt(sinusoidal_encoding, "sinusoidal_encoding", (n, d_model),
                     want=_ref().sinusoidal_encoding(n, d_model), arg_names=("n", "d_model"))
    expect(record, MISTAKES)
    return record.got


def _call_rotary(apply_rotary, X, positions):
    positions = np.asarray(positions)
    record = attempt(apply_rotary, "apply_rotary", (X, positions), want=_ref().apply_rotary(X, positions),
                     arg_names=("X", "positions"), batched=Batched((2, None), _ref().apply_rotary))  # X (..., n, d)
    expect(record, MISTAKES)
    return record.got


def _sizes(rng, n_range, d_range):
    """(n, d_model): n in ``n_range``, d_model even in ``d_range``, never equal (the sizes are the whole input:
    drawn, so that encodings memorised from one draw miss the next)."""
    while True:
        n, d_model = int(rng.integers(*n_range)), 2 * int(rng.integers(d_range[0] // 2, d_range[1] // 2))
        if n != d_model:
            return n, d_model


def check_sinusoidal_encoding(sinusoidal_encoding):
    """Several sizes, n != d_model, with positions beyond 50."""
    rng = hidden_inputs("check_sinusoidal_encoding")
    for n_range, d_range in [((5, 10), (8, 14)), ((10, 16), (6, 10)), ((51, 90), (12, 22)), ((1, 2), (6, 12)),
                             ((3, 8), (24, 40))]:
        PE = _call_encoding(sinusoidal_encoding, *_sizes(rng, n_range, d_range))
    assert np.allclose(PE[:, 1::2][0], 1.0), _("sinusoidal_encoding: row 0 must have 1 in every odd column")


def _not_row_indexes(draw):
    """Positions from ``draw()`` that are not 0, 1, ..., n-1 (a row index in their place would pass)."""
    while True:
        positions = np.asarray(draw())
        if not np.array_equal(positions, np.arange(len(positions))):
            return positions


def check_apply_rotary(apply_rotary):
    """(n, d) arrays, positions in any order and not 0..n-1, up to 63."""
    rng = hidden_inputs("check_apply_rotary")
    shuffled = _not_row_indexes(lambda: rng.choice(16, size=5, replace=False))
    later = int(rng.integers(2, 20)) + np.arange(4)                             # a block that starts later
    far = rng.permutation([int(rng.integers(40, 64)), int(rng.integers(0, 10)), int(rng.integers(10, 40))])
    shifted = int(rng.integers(1, 10)) + np.arange(6)
    for (n, d), positions in [((5, 6), shuffled), ((4, 8), later), ((3, 10), far), ((6, 4), shifted)]:
        _call_rotary(apply_rotary, rng.normal(size=(n, d)), positions)
    X = rng.normal(size=(4, 6))
    out = _call_rotary(apply_rotary, X, [0, 0, 0, 0])
    assert np.allclose(out, X), _("apply_rotary: at position 0 every row must stay unchanged")


def check_apply_rotary_batched(apply_rotary):
    """(n, d) first, then the same rotation with one and two leading axes."""
    rng = hidden_inputs("check_apply_rotary_batched")
    positions = _not_row_indexes(lambda: rng.choice(12, size=5, replace=False))
    _call_rotary(apply_rotary, rng.normal(size=(5, 8)), positions)
    _call_rotary(apply_rotary, rng.normal(size=(3, 5, 8)), positions)          # (B, n, d)
    X = rng.normal(size=(2, 3, 5, 8))                                          # (B, heads, n, d)
    out = _call_rotary(apply_rotary, X, positions)
    assert np.allclose(np.linalg.norm(out, axis=-1), np.linalg.norm(X, axis=-1)), (
        _("apply_rotary: a rotation must keep the length of every row"))


def check_apply_rotary_relative(apply_rotary):
    """q at m and k at n: the score depends on n - m only; rotating by a then b is rotating by a + b."""
    rng = hidden_inputs("check_apply_rotary_relative")
    d = 8
    q, k = rng.normal(size=(1, d)), rng.normal(size=(1, d))
    m = np.sort(rng.choice(30, size=4, replace=False))
    Q = _call_rotary(apply_rotary, np.repeat(q, 4, axis=0), m)                # q at m
    K = _call_rotary(apply_rotary, np.repeat(k, 4, axis=0), m + 5)            # k at m + 5
    scores = np.sum(Q * K, axis=-1)                                           # (4,)
    assert np.allclose(scores, scores[0], rtol=1e-4, atol=1e-6), (
        _("apply_rotary: the score of a query at m and a key at m + 5 must not depend on m"))
    X = rng.normal(size=(3, d))
    a, b = rng.integers(0, 40, size=3), rng.integers(0, 40, size=3)
    once = _call_rotary(apply_rotary, X, a)
    twice = _call_rotary(apply_rotary, once, b)
    assert np.allclose(twice, _ref().apply_rotary(X, a + b), rtol=1e-4, atol=1e-6), (
        _("apply_rotary: rotating by positions a and then by b must equal rotating by a + b"))
