"""Exercise 09, online softmax attention: hidden checks and the misconception catalogue.

Each hidden test cell of ``solutions/09_online_softmax/online_softmax.ipynb``
calls one ``check_*`` function below with the learner's
``online_softmax_attention(Q, K, V, block_size)``.  Inputs are random (``checks.rng``)
with n != m and d != d_v, and block sizes that divide m, that leave a partial
last block, that equal m, exceed m, or are 1.  The right answer is the naive
softmax(Q K^T / sqrt(d)) V, which the reference solution reproduces.  A wrong
answer is matched against ``MISTAKES`` in order: most symptoms are recognised
by recomputing the mistaken algorithm on the same inputs and comparing.  The
memory check bounds the peak of the call: through the grading engine the kernel
counts it for the whole sandboxed process tree (a memory cgroup), and on a
machine without one the test is "not measured" (``Kind.NOT_MEASURED``); in a
plain notebook kernel, tracemalloc measures it.
Every mistake has a wrong implementation in ``tests/submissions/09_online_softmax/``.
"""
import numpy as np

from ..checks import rng as hidden_inputs
from ..checks import Batched, Mistake, attempt, close, either, expect, formula, modifies_input, reference
from ..i18n import N_, _

ARG_NAMES = ("Q", "K", "V", "block_size")


def _ref(Q, K, V, block_size):
    return reference(__name__).online_softmax_attention(Q, K, V, block_size)


def _inputs(record):
    """The call's inputs, for a detector that compares the answer with a recomputed one."""
    if record.got is None:   # no answer (the call raised, or was stopped): seconds of recomputing would match nothing
        raise ValueError("no answer to compare")
    Q, K, V, block_size = record.args
    return np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float), int(block_size)


def _blocks(m, block_size):
    return [(start, min(start + block_size, m)) for start in range(0, m, block_size)]


def _simulate(Q, K, V, block_size, *, rescale_sum=True, rescale_out=True, initial_max=-np.inf):
    """The block algorithm with one step changed, as a learner's mistake changes it."""
    n, d = Q.shape
    running_max = np.full(n, float(initial_max))
    running_sum = np.zeros(n)
    out = np.zeros((n, V.shape[1]))
    with np.errstate(all="ignore"):
        for start, stop in _blocks(K.shape[0], block_size):
            S = Q @ K[start:stop].T / np.sqrt(d)                    # (n, b)
            new_max = np.maximum(running_max, S.max(axis=1))        # (n,)
            correction = np.exp(running_max - new_max)              # (n,)
            P = np.exp(S - new_max[:, None])                        # (n, b)
            running_sum = (running_sum * correction if rescale_sum else running_sum) + P.sum(axis=1)
            out = (out * correction[:, None] if rescale_out else out) + P @ V[start:stop]
            running_max = new_max
        return out / running_sum[:, None]


def _online(record, *, scale="sqrt(d)", rescale="both", last_block=True, divide=True, initial_max=-np.inf):
    """online_softmax_attention under mistaken options (a family: ``checks.formula`` finds two at once)."""
    Q, K, V, b = _inputs(record)
    d = Q.shape[1]
    Q = {"sqrt(d)": Q, "none": Q * np.sqrt(d), "d": Q / np.sqrt(d)}[scale]
    stop = K.shape[0] if last_block else ((K.shape[0] - 1) // b) * b   # the loop ends one block early
    if stop == 0:
        return None
    K, V = K[:stop], V[:stop]
    out = _simulate(Q, K, V, b, rescale_sum=rescale in ("both", "sum only"),
                    rescale_out=rescale in ("both", "output only"), initial_max=initial_max)
    if not divide:
        S = Q @ K.T / np.sqrt(d)
        with np.errstate(all="ignore"):
            out = out * np.exp(S - S.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)
    return out


def _formula(**options):
    return formula(_online, "online_softmax_attention", **options)


_no_scale = _formula(scale="none")
_scale_by_d = _formula(scale="d")
_no_rescale = either(lambda record: _formula(rescale="sum only")(record) or _formula(rescale="output only")(record),
                     _formula(rescale="none"))
_last_block_dropped = _formula(last_block=False)


def _per_block_softmax(record):
    Q, K, V, b = _inputs(record)
    blocks = _blocks(K.shape[0], b)
    if len(blocks) < 2:
        return False
    parts = [_ref(Q, K[start:stop], V[start:stop], b) for start, stop in blocks]   # each block on its own
    return close(record.got, sum(parts)) or close(record.got, sum(parts) / len(parts))


_no_final_division = _formula(divide=False)


def _scores(record):
    Q, K, _, _ = _inputs(record)
    return Q @ K.T / np.sqrt(Q.shape[1])


def _bad_rows(record):
    return ~np.all(np.isfinite(record.got), axis=1) & np.all(np.isfinite(record.want), axis=1)


def _no_max_subtraction(record):
    return record.got is not None and np.any(_bad_rows(record) & (_scores(record).max(axis=1) > 709))


def _max_init_zero(record):
    bad = _bad_rows(record)
    return record.got is not None and np.any(bad) and np.all(_scores(record)[bad].max(axis=1) < -700)


def _full_score_matrix(record):
    """Traced calls only: the peak is over the bound; the detail says by how much."""
    if record.peak_bytes is None or record.peak_bytes <= record.memory_bound:
        return False
    n, m = np.shape(record.args[0])[0], np.shape(record.args[1])[0]
    matrix = 8 * n * m
    if record.peak_bytes < 0.9 * matrix:   # over the bound, yet no array as large as the whole matrix
        return _("your function holds more than one block's worth of memory at a time ({peak:.1f} MB at its "
                 "peak, the bound is {bound:.1f} MB; one (n, m) float64 matrix is {matrix:.1f} MB)").format(
                     peak=record.peak_bytes / 1e6, bound=record.memory_bound / 1e6, matrix=matrix / 1e6)
    return _("your function built an array as large as the full (n, m) score matrix "
             "({peak:.1f} MB at its peak, the bound is {bound:.1f} MB; "
             "one (n, m) float64 matrix is {matrix:.1f} MB)").format(
                 peak=record.peak_bytes / 1e6, bound=record.memory_bound / 1e6, matrix=matrix / 1e6)


FULL_MATRIX_FIX = N_(
    "process the keys block by block: hold only one (n, block_size) block of scores at a time, "
    "with the running max and the running sum (one number per query) and the (n, d_v) output "
    "accumulator, and never compute `Q @ K.T` for all keys at once.")

MISTAKES = [
    modifies_input(N_("`Q *= scale` or `Q /= np.sqrt(d)`"), "`scores = Q @ K_block.T / np.sqrt(d)`"),
    Mistake("full_score_matrix", FULL_MATRIX_FIX, _full_score_matrix, even_if_close=True,
            hints=("Look at the largest arrays your function creates, before and during the loop over the blocks: "
                   "how many numbers does each hold, compared with one (n, block_size) block of scores?",
                   "The visible test measures the peak with `tracemalloc` for n 512, m 1024 and block_size 32. "
                   "Divide your peak by one float64 block, 8 × n × block_size bytes: it should be a few blocks, "
                   "far from the m / block_size blocks of a whole (n, m) matrix. How many is it?",
                   "Only one block of scores may exist at a time: each block's scores and exponentials are "
                   "folded into the running maximum, the running sum and the (n, d_v) output, then dropped "
                   "before the next block (Section 9.4).")),
    Mistake("no_scale",
            "the scores are not scaled: the result equals softmax(Q K^T) V. Divide every block of "
            "scores by sqrt(d), where d = Q.shape[1], before taking the maximum and the exponential.",
            _no_scale,
            hints=("Look at how each block's scores are computed from `Q` and the block of keys, before the "
                   "maximum and the exponential are taken.",
                   "On the small example of the notebook, compare your output with the naive result (the softmax "
                   "of Q K^T / √d, times V) and with the same formula without the division by √d: which of the "
                   "two does yours match?",
                   "Every score is a dot product of d numbers, so, as in chapter 6, it is divided by √d before "
                   "the softmax. Working block by block changes where the scores are kept, not their formula.")),
    Mistake("scale_by_d",
            "the scores are divided by d instead of sqrt(d). Scaled dot-product attention divides "
            "Q K^T by the square root of the key dimension: `/ np.sqrt(d)`.",
            _scale_by_d,
            hints=("Look at the number by which each block's scores are divided.",
                   "With d 4, the scores should be the plain dot products Q K^T divided by 2. Print one block's "
                   "scores next to the dot products with the same keys: what is the ratio in your code?",
                   "Scaled dot-product attention divides by the square root of d, the dimension of the queries "
                   "and keys, so that the scores keep a spread of about 1 whatever d is (chapter 6).")),
    Mistake("no_rescale",
            "the running sum and the output accumulator are not rescaled when the running max "
            "changes. Both were computed relative to the old maximum: when a block raises it from "
            "m_old to m_new, multiply the running sum AND the accumulated output by "
            "exp(m_old - m_new) before adding the new block's terms.",
            _no_rescale,
            hints=("Look at what happens to the running sum and to the running output when a block raises a "
                   "query's running maximum.",
                   "On the same small inputs, compare your output for block_size m (one block: nothing to "
                   "rescale) with block_size 1: they should agree to about 1e-16. Print the running maximum after "
                   "each block too: do the two start to differ where it grows?",
                   "The running sum and the running output are both measured relative to the current maximum: "
                   "when it grows from an old to a new value, both are multiplied by the same correction "
                   "factor, the exponential of old minus new (Section 9.4).")),
    Mistake("last_block_dropped",
            "the last block of keys is missing: your loop stops before the final, shorter block "
            "when m is not a multiple of block_size (for example `range(m // block_size)`). Loop "
            "with `for start in range(0, m, block_size)` and slice `K[start:start + block_size]`; "
            "the last slice is simply shorter.",
            _last_block_dropped,
            hints=("Look at the bounds of your loop over the blocks: which keys does the last iteration see?",
                   "Call it with m 10 keys and block_size 4 and print the keys each block uses: the blocks should "
                   "be keys 0 to 3, 4 to 7 and 8 to 9, every key exactly once. Which keys does your loop never "
                   "reach?",
                   "Every one of the m keys takes part in the softmax. When block_size does not divide m the "
                   "last block is simply shorter, and a slice that runs past the end of `K` just stops there.")),
    Mistake("per_block_softmax",
            "each block is normalised on its own: you take a separate softmax over every block and "
            "add (or average) the block outputs. The softmax must be normalised over ALL m keys: keep "
            "one running max and one running sum per query across the blocks and divide once, at the end.",
            _per_block_softmax,
            hints=("Look at what your loop carries from one block to the next, and at where the division by a sum "
                   "of exponentials takes place.",
                   "Compare your output for block_size 1 with the one for block_size m on the same small inputs: "
                   "they should agree. With block_size 1, does your output still change when you change `Q`?",
                   "The softmax of a query is normalised over all its m scores: across the blocks only a "
                   "running maximum, a running sum and an unnormalised running output are carried, and the one "
                   "division comes after the last block (Section 9.4).")),
    Mistake("no_final_division",
            "the output is not normalised: you return the accumulated sum of exp(s - max) v without "
            "dividing it by the running sum of exp(s - max). Divide each query's row by its running "
            "sum at the end.",
            _no_final_division,
            hints=("Look at the end of your function, after the last block: what is done with the running output "
                   "before it is returned?",
                   "Call it with `V` all ones (d_v 1): attention averages the values, so every output should be "
                   "1, up to rounding, whatever `Q` and `K` are. What do you get?",
                   "The running output is a sum of values weighted by the exponentials of the scores minus the "
                   "maximum. The softmax average is that sum divided by the running sum of the same "
                   "exponentials, once per query at the end.")),
    Mistake("no_max_subtraction",
            "overflow: `np.exp` of a large score is `inf`, and `inf / inf` is `nan`. Subtract the "
            "running maximum before `np.exp` (and rescale by exp(m_old - m_new) when it changes).",
            _no_max_subtraction,
            hints=("Look at every `np.exp` in your function: what is the largest number each one can receive?",
                   "Call it as the visible test does, with the query [30, 0] and the keys [40, 0], [-40, 0] and "
                   "[39, 0] (scores of about 850), and print the largest argument of each `np.exp`: above about "
                   "709 it returns inf. Where does inf appear first?",
                   "Softmax does not change when the same number is subtracted from all of a query's scores: "
                   "subtracting the running maximum keeps every exponent at or below 0, and the correction "
                   "factor's exponent, old minus new, is at or below 0 too (Section 9.2).")),
    Mistake("max_init_zero",
            "the running maximum starts at 0 instead of -inf: for a query whose scores are all very "
            "negative (below about -745), exp(score - 0) underflows to 0, the running sum stays 0 and "
            "0 / 0 gives `nan`. Start the running maximum at `-np.inf` so that the first block sets it.",
            _max_init_zero,
            hints=("Look at the value your running maximum starts from, and at what is subtracted from a query's "
                   "scores before `np.exp`.",
                   "Call it on a query whose scores are all about -1000, for example one pointing away from every "
                   "key, and print its running maximum and running sum after the first block: they should be its "
                   "own largest score and a sum of at least 1.",
                   "What is subtracted must be each query's own largest score so far, so that its largest "
                   "exponential is 1 and its sum never falls to 0. Before the first block no score has been "
                   "seen, and only minus infinity lies below every score.")),
]


def _expect(function, Q, K, V, block_size, memory_bound=None):
    args = (Q, K, V, block_size)
    record = attempt(function, "online_softmax_attention", args, want=_ref(*args), arg_names=ARG_NAMES,
                     memory_bound=memory_bound, batched=Batched.unbatched((2, 2, 2, None), _ref))
    expect(record, MISTAKES)
    return record.got


def check_random(online_softmax_attention):
    """Random non-square inputs; block sizes that divide m, leave a partial block, equal or exceed m, or are 1."""
    rng = hidden_inputs("random")
    for n, m, d, d_v, block_size in [(5, 12, 4, 3, 4), (7, 10, 6, 2, 3), (9, 23, 8, 5, 5),
                                     (4, 9, 5, 7, 9), (6, 5, 3, 4, 8), (3, 11, 2, 5, 1)]:
        Q = rng.normal(scale=1.5, size=(n, d))
        K = rng.normal(scale=1.5, size=(m, d))
        V = rng.normal(size=(m, d_v))
        _expect(online_softmax_attention, Q, K, V, block_size)


def check_large_scores(online_softmax_attention):
    """Scores of magnitude about 1000: no overflow, no 0/0, including a query whose scores are all very negative."""
    rng = hidden_inputs("large_scores")
    n, m, d, d_v = 6, 14, 4, 3
    # Whole numbers (and halves): the scores are exact even in float32, so a correct float32
    # implementation is right on every draw, and only a wrong formula changes the answer.
    direction = np.ones(d) / np.sqrt(d)                              # 0.5 in every coordinate
    K = rng.integers(-2, 3, size=(m, d)) + 40.0 * direction          # every key points roughly along `direction`
    K[-2] = K[-1] = 46.0 * direction                                 # query 1: its top two keys come last, equal (1/2 each),
    K[-3] = 46.0 * direction - [0.0, 0.0, 0.0, 0.5]                  # its third 7.5 below: the scale shows in every draw
    Q = rng.integers(-30, 31, size=(n, d)).astype(float)             # scores up to about 1000
    Q[0] = -60.0 * direction                                         # all of this query's scores are below -745
    Q[1] = 60.0 * direction                                          # all of this query's scores are above 709
    V = rng.normal(size=(m, d_v))
    for block_size in (4, 5):
        _expect(online_softmax_attention, Q, K, V, block_size)


def check_memory(online_softmax_attention):
    """Peak memory during the call: far below one (n, m) score matrix."""
    rng = hidden_inputs("memory")
    n, m, d, d_v, block_size = 1024, 2048, 16, 8, 64
    Q, K, V = rng.normal(size=(n, d)), rng.normal(size=(m, d)), rng.normal(size=(m, d_v))
    bound = 8 * (8 * n * block_size) + 8 * (8 * n * (d + d_v))       # a few blocks and accumulators, in bytes
    _expect(online_softmax_attention, Q, K, V, block_size, memory_bound=bound)
