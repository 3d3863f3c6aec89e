"""Exercise 05, general (bilinear) attention: hidden checks and the misconception catalogue.

Each hidden test cell of ``solutions/05_general/general.ipynb`` calls one
``check_*`` function below with the learner's function.  ``W`` is random and
never symmetric.  The first case of every check has d_q = d_k, so that the
mistakes that only type-check for a square ``W`` (``Q W K^T``, or ``W``
ignored) give an answer whose values name the mistake; the later cases have
d_q != d_k and n != m, where a wrong orientation cannot even be computed.
Every mistake has a wrong implementation in ``tests/submissions/05_general/``.
"""
import numpy as np

from ..checks import rng as hidden_inputs
from ..checks import (Batched, Mistake, attempt, close, either, expect, formula, large_factor, no_max_subtraction,
                      reference, weights_sum_to_one)
from ..checks import softmax as _softmax


def _ref():
    return reference(__name__)


def _QKW(record):
    args = [np.asarray(a, dtype=float) for a in record.args]
    W = args[2] if record.function == "general_scores" else args[3]
    return args[0], args[1], W


# --------------------------------------------------------------------------- mistaken formulas
FUNCTIONS = ("general_scores", "general_attention")


def _general(record, *, w="transposed", scale=None, over="keys", normalised=True):
    """What general_scores (the scores) or general_attention ((output, weights)) returns for the record's
    call under one mistaken formula (Luong et al. 2015, eq. 8, general score k_j^T W q_i, all pairs
    ``Q @ W.T @ K.T``): ``w="as_is"`` computes Q W K^T, ``w="ignored"`` Q K^T; ``scale`` divides the
    scores by sqrt(d_q) or sqrt(d_k); ``over="queries"`` normalises over the queries."""
    Q, K, W = _QKW(record)                              # Q (n, d_q), K (m, d_k), W (d_k, d_q)
    S = {"transposed": lambda: Q @ W.T @ K.T, "as_is": lambda: Q @ W @ K.T, "ignored": lambda: Q @ K.T}[w]()
    if scale is not None:
        S = S / np.sqrt({"d_q": Q.shape[-1], "d_k": K.shape[-1]}[scale])
    if record.function == "general_scores" or not normalised:
        return S                                        # (n, m)
    V = np.asarray(record.args[2], dtype=float)         # (m, d_v)
    weights = _softmax(S, axis=-1 if over == "keys" else 0)
    return weights @ V, weights


def _transposed_scores(record):
    if record.function != "general_scores":
        return False
    Q, K, W = _QKW(record)
    return close(record.got, K @ W @ Q.T)                          # (m, n)


_w_not_transposed = formula(_general, FUNCTIONS, w="as_is")      # q_i^T W k_j: needs d_q == d_k
_w_ignored = formula(_general, FUNCTIONS, w="ignored")           # plain dot products: needs d_q == d_k
_scaled = either(formula(_general, FUNCTIONS, scale="d_q"), formula(_general, FUNCTIONS, scale="d_k"))
_softmax_over_queries = formula(_general, "general_attention", over="queries")


MISTAKES = [
    Mistake("w_not_transposed",
            "W is used the wrong way round: you computed Q W K^T, whose entries are q_i^T W k_j = "
            "k_j^T W^T q_i, the score of W^T. With W of shape (d_k, d_q), row i of `Q @ W.T` is W q_i, "
            "so the scores k_j^T W q_i of all pairs are `Q @ W.T @ K.T`, shape (n, m). (When d_q != d_k, "
            "`Q @ W` does not even have matching shapes.)",
            _w_not_transposed,
            hints=("Look at how `W` enters your scores: which of its two axes meets the query, and which meets the "
                   "key?",
                   "With a non-symmetric square `W`, compute k_1^T W q_0 by hand and compare it with entry 0, 1 of "
                   "your scores. Then try queries and keys of different sizes, d_q ≠ d_k: with `W` of shape "
                   "d_k × d_q your code should still run.",
                   "In the contract `W` maps a query into the key space: W q_i has d_k entries, like a key, and the "
                   "score is its dot product with k_j.")),
    Mistake("w_ignored",
            "W is ignored: your scores are the plain dot products Q K^T, as in dot-product attention. "
            "General attention scores every pair with k_j^T W q_i: compute `Q @ W.T @ K.T`. (When "
            "d_q != d_k the plain dot product is not even defined.)",
            _w_ignored,
            hints=("Look at your score computation: where does `W` appear in it?",
                   "Call your function twice with the same `Q` and `K` but two different `W`: the scores should "
                   "change. Try queries and keys of different sizes, d_q ≠ d_k, too.",
                   "General attention scores each pair with the bilinear form k_j^T W q_i. Without `W` it is the "
                   "plain dot product of chapter 4.")),
    Mistake("transposed_scores",
            "the score matrix is transposed: you returned K W Q^T, shape (m, n), one row per key. In the "
            "row convention row i holds query i's scores: `Q @ W.T @ K.T`, shape (n, m).",
            _transposed_scores,
            hints=("Look at how your score matrix is laid out: does it have one row per query or one row per key?",
                   "Call `general_scores` with 2 queries and 3 keys and look at the shape of the result: it should "
                   "be 2 × 3, and entry i, j should be k_j^T W q_i, the score of query i against key j.",
                   "In the row convention the scores are n × m: row i holds query i's scores against all m keys.")),
    Mistake("scaled_scores",
            "the scores are divided by a square root of a dimension: Luong's general attention uses "
            "k_j^T W q_i itself, `softmax(Q @ W.T @ K.T)` over the keys (the scaling belongs to chapter 6).",
            _scaled,
            hints=("Look at the scores after the bilinear form: is anything done to them before they are returned "
                   "or passed to the softmax?",
                   "Compute one score by hand, k_j^T W q_i, and compare it with the matching score of your code: "
                   "they should be equal, with no factor such as √d_q or √d_k between them.",
                   "Luong's general score is the bilinear form itself. Dividing by the square root of a dimension "
                   "is the scaling of chapter 6.")),
    Mistake("softmax_over_queries",
            "the softmax runs over the queries (axis 0), so each column of the weights sums to 1. Each "
            "query's scores must be normalised over the keys: `softmax(scores, axis=-1)`, so that every "
            "row of the (n, m) weights sums to 1.",
            _softmax_over_queries,
            hints=("Look at the axis of your softmax: along which axis of the n × m score matrix does it "
                   "normalise?",
                   "On an example with n ≠ m, add up your weights along each row: each row, one query, should sum "
                   "to 1. Add them along each column too and compare.",
                   "Each query's scores are normalised over the keys, the last axis of the n × m scores, as in "
                   "every attention of the row convention.")),
    no_max_subtraction(lambda record: _general(record, normalised=False)),
]


def _inputs(rng, n, m, d_q, d_k, d_v=None):
    Q, K = rng.normal(size=(n, d_q)), rng.normal(size=(m, d_k))
    W = rng.normal(size=(d_k, d_q))
    if d_q == d_k:
        W += 2.0 * np.triu(np.ones((d_k, d_q)), 1)           # clearly non-symmetric: W != W^T
    V = None if d_v is None else rng.normal(size=(m, d_v))
    return Q, K, V, W


def check_general_scores(general_scores):
    """A square non-symmetric W first (d_q = d_k), then d_q != d_k; never n = m."""
    rng = hidden_inputs("general_scores")
    for n, m, d_q, d_k in [(3, 5, 4, 4), (4, 6, 3, 5), (2, 3, 6, 2)]:
        Q, K, _, W = _inputs(rng, n, m, d_q, d_k)
        record = attempt(general_scores, "general_scores", (Q, K, W), want=_ref().general_scores(Q, K, W),
                         arg_names=("Q", "K", "W"), batched=Batched.unbatched((2, 2, None), _ref().general_scores))
        expect(record, MISTAKES)


def check_general_attention(general_attention):
    """As above with values of yet another size d_v; each row of the weights sums to 1."""
    rng = hidden_inputs("general_attention")
    for n, m, d_q, d_k, d_v in [(3, 5, 4, 4, 2), (4, 2, 3, 5, 6), (1, 6, 2, 3, 4), (4, 6, 3, 2, 5)]:
        Q, K, V, W = _inputs(rng, n, m, d_q, d_k, d_v)
        if n == 4 and m == 6:                           # scores above 1000: exp overflows without the max
            # (times the larger sqrt(d): scores divided by it, a mistake, still overflow, in every draw)
            Q = Q * large_factor(Q @ W.T @ K.T) * np.sqrt(max(d_q, d_k))
        record = attempt(general_attention, "general_attention", (Q, K, V, W),
                         want=_ref().general_attention(Q, K, V, W), arg_names=("Q", "K", "V", "W"),
                         batched=Batched.unbatched((2, 2, 2, None), _ref().general_attention))
        expect(record, MISTAKES, extra_check=weights_sum_to_one())
