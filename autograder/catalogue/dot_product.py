"""Exercise 04, dot-product attention: hidden checks and the misconception catalogue.

Each hidden test cell of ``solutions/04_dot_product/dot_product.ipynb`` calls one
``check_*`` function below with the learner's function.  Inputs are random
(``checks.rng``) and never square: the number of queries n, the number of keys m, the
key size d and the value size d_v all differ, so a transposed score matrix, a
softmax over the wrong axis or a product with the keys instead of the values
changes the shape or the values.  A wrong answer is matched against
``MISTAKES`` in order; the first symptom that fits names the mistake.  Every
mistake has a wrong implementation in ``tests/submissions/04_dot_product/``.
"""
import numpy as np

from ..checks import (Batched, Mistake, Unreturned, attempt, close, expect, formula, large_factor,
                      no_max_subtraction, reference, weights_sum_to_one)
from ..checks import rng as hidden_inputs
from ..checks import softmax as _softmax
from ..i18n import N_, _


def _ref():
    return reference(__name__)


def _args(record):
    return [np.asarray(a, dtype=float) for a in record.args]


def _row_scores(record):
    """The correct scores Q K^T of a row-convention call (dot_scores or dot_product_attention)."""
    Q, K = _args(record)[:2]
    return Q @ K.T                                            # (n, m)


def _transposed_scores(record):
    return record.function == "dot_scores" and close(record.got, _row_scores(record).T)


# --------------------------------------------------------------------------- mistaken formulas
ATTENTION = ("dot_product_attention", "dot_product_attention_columns")


def _attention(record, *, scale=False, over="keys", normalised=True, average="values"):
    """(output, weights) of the record's call (either convention) under one mistaken formula (Luong et al.
    2015, eq. 8, dot score; the weights a softmax over the keys, the output their average of the values):
    ``scale`` divides the scores by sqrt(d), ``over="queries"`` normalises over the queries,
    ``normalised=False`` uses the raw scores as weights, ``average="keys"`` averages the keys."""
    Q, K, V = _args(record)[:3]
    if record.function == "dot_product_attention":              # Q (n, d), K (m, d), V (m, d_v)
        S = Q @ K.T                                              # (n, m)
        keys_axis, averaged = -1, (K if average == "keys" else V)
    else:                                                        # Q (d, n), K (d, m), V (d_v, m)
        S = K.T @ Q                                              # (m, n)
        keys_axis, averaged = 0, (K if average == "keys" else V)
    if scale:
        S = S / np.sqrt(Q.shape[1 if record.function == "dot_product_attention" else 0])
    axis = keys_axis if over == "keys" else (0 if keys_axis == -1 else 1)
    W = _softmax(S, axis=axis) if normalised else S
    output = W @ averaged if record.function == "dot_product_attention" else averaged @ W
    return output, W


def _attention_scores(record):
    """The right scores of an attention call, one row per query: Q K^T, or (K^T Q)^T in columns."""
    Q, K = _args(record)[:2]
    return Q @ K.T if record.function == "dot_product_attention" else (K.T @ Q).T


_no_softmax = formula(_attention, ATTENTION, normalised=False)
_scaled = formula(_attention, ATTENTION, scale=True)
_softmax_over_queries = formula(_attention, "dot_product_attention", over="queries")
_columns_normalise_rows = formula(_attention, "dot_product_attention_columns", over="queries")
_weights_on_keys = formula(_attention, ATTENTION, average="keys")


def _columns_row_convention_output(record):
    if record.function != "dot_product_attention_columns":
        return False
    # every part the code returns is the row convention's (a part transposed alone is another mistake)
    returned = [(g, w) for g, w in zip(record.got, record.want) if not isinstance(g, Unreturned)]
    return bool(returned) and all(close(g, w.T) for g, w in returned)


MISTAKES = [
    Mistake("transposed_scores",
            "the score matrix is transposed: you returned K Q^T, shape (m, n), one row per key. In the "
            "row convention row i holds query i's scores, S[i, j] = q_i . k_j: compute `Q @ K.T`, shape (n, m).",
            _transposed_scores,
            hints=("Look at how your score matrix is laid out: which of `Q` and `K` gives its rows, and which its "
                   "columns?",
                   "Call `dot_scores` with 2 queries and 3 keys of the same size and look at the shape of the "
                   "result: it should be 2 × 3, and entry i, j should be the dot product of query i with key j.",
                   "In the row convention every matrix has one row per query: the scores are n × m, row i holding "
                   "query i's scores against the m keys.")),
    Mistake("no_softmax",
            "the raw scores are used as weights: without a softmax they are not positive and do not sum "
            "to 1. Apply the softmax over the keys to the scores, then average the values with the result.",
            _no_softmax,
            hints=("Look at the step between the scores and the weights: what turns a query's scores into its "
                   "weights?",
                   "On a small example, print the weights of one query (a row in the row convention, a column in "
                   "the column convention) and add them up: they should all be positive and sum to 1. Compare them "
                   "with that query's raw scores.",
                   "Attention weights are a distribution over the keys: the softmax of each query's scores makes "
                   "them positive and makes them sum to 1.")),
    Mistake("scaled_scores",
            "the scores are divided by sqrt(d): that is scaled dot-product attention (chapter 6). Luong's "
            "dot attention uses the plain dot products: `softmax(Q @ K.T)` over the keys.",
            _scaled,
            hints=("Look at the scores between the dot products and the softmax: is anything done to them on the "
                   "way?",
                   "On a small example, compute the dot product of one query with one key by hand and compare it "
                   "with the score your code passes to the softmax: they should be equal, with no factor between "
                   "them.",
                   "Luong's dot attention uses the dot product itself as the score. Dividing by √d is the scaled "
                   "dot-product attention of chapter 6, not this exercise.")),
    Mistake("softmax_over_queries",
            "the softmax runs over the queries (axis 0), so each column of the weights sums to 1. "
            "Attention normalises each query's scores over the keys: in the row convention use "
            "`softmax(scores, axis=-1)`, so that every row of the (n, m) weights sums to 1.",
            _softmax_over_queries,
            hints=("Look at the axis of your softmax: along which axis of the n × m score matrix does it "
                   "normalise?",
                   "On an example with n ≠ m, add up your weights along each row: each row, one query, should sum "
                   "to 1. Add them along each column too and compare.",
                   "Each query spreads its attention over the keys, so the softmax normalises each query's scores "
                   "over the keys: in the row convention, along each row.")),
    Mistake("weights_on_keys",
            "the weights average the keys instead of the values. The keys are only used to compute the "
            "scores; the output is the weighted sum of the values: `weights @ V` in the row convention "
            "(shape (n, d_v)), `V @ weights` in the column convention (shape (d_v, n)).",
            _weights_on_keys,
            hints=("Look at the last step, where the weights are used: which matrix do they average?",
                   "Call your function with keys of size d and values of size d_v, d ≠ d_v, and look at the shape "
                   "of your output: it should hold d_v numbers per query, the size of a value.",
                   "The keys only decide the weights, through the scores: the output is the weighted average of the "
                   "values.")),
    Mistake("columns_normalise_rows",
            "in the column convention each query is a column of K^T Q (shape (m, n)), so the softmax must "
            "run down the columns, `softmax(K.T @ Q, axis=0)`, and every column of the weights sums to 1. "
            "Your weights are normalised along the rows, that is over the queries.",
            _columns_normalise_rows,
            hints=("Look at the axis of the softmax in `dot_product_attention_columns`: in the m × n score matrix, "
                   "where are one query's scores?",
                   "On an example with n ≠ m, add up your weights down each column: each of the n columns, one "
                   "query, should sum to 1. Add them along each row too and compare.",
                   "In the column convention every query is a column, so its scores are normalised down that "
                   "column, over the m keys.")),
    Mistake("columns_row_convention_output",
            "you returned row-convention results: output (n, d_v) and weights (n, m). In the column "
            "convention every vector is a column: return `V @ weights` with shape (d_v, n) and the "
            "weights with shape (m, n), one column per query (the transposes of the row results).",
            _columns_row_convention_output,
            hints=("Look at the shapes of the arrays `dot_product_attention_columns` returns: in the column "
                   "convention, what does one column hold?",
                   "Call it with `Q` of shape d × n, `K` of shape d × m and `V` of shape d_v × m, n ≠ m, and "
                   "compare the shapes you get with d_v × n for the output and m × n for the weights.",
                   "In the column convention every vector is a column, the results too: one column of the output "
                   "and one column of the weights per query.")),
    no_max_subtraction(lambda record: _attention_scores(record)),
]


def check_dot_scores(dot_scores):
    """Random non-square Q and K: S[i, j] = q_i . k_j."""
    rng = hidden_inputs("dot_scores")
    for n, m, d in [(3, 5, 4), (6, 2, 3), (1, 4, 7)]:
        Q, K = rng.normal(size=(n, d)), rng.normal(size=(m, d))
        record = attempt(dot_scores, "dot_scores", (Q, K), want=_ref().dot_scores(Q, K), arg_names=("Q", "K"),
                         batched=Batched.unbatched((2, 2), _ref().dot_scores))
        expect(record, MISTAKES)


def check_dot_product_attention(dot_product_attention):
    """Random non-square inputs with d != d_v; each row of the weights sums to 1."""
    rng = hidden_inputs("dot_product_attention")
    for n, m, d, d_v, large in [(3, 5, 4, 2, False), (4, 2, 3, 6, False), (1, 6, 5, 3, False), (4, 7, 3, 2, True)]:
        Q, K, V = rng.normal(size=(n, d)), rng.normal(size=(m, d)), rng.normal(size=(m, d_v))
        if large:                                       # scores above 1000: exp overflows without the max
            # (times sqrt(d): scores divided by sqrt(d), a mistake, still overflow, in every draw)
            Q = Q * large_factor(Q @ K.T) * np.sqrt(d)
        record = attempt(dot_product_attention, "dot_product_attention", (Q, K, V),
                         want=_ref().dot_product_attention(Q, K, V), arg_names=("Q", "K", "V"),
                         batched=Batched.unbatched((2, 2, 2), _ref().dot_product_attention))
        expect(record, MISTAKES, extra_check=weights_sum_to_one())


def check_dot_product_attention_columns(dot_product_attention_columns):
    """Column convention: V Softmax(K^T Q); each column sums to 1; the transposes of the row results."""
    rng = hidden_inputs("dot_product_attention_columns")
    for d, n, m, d_v, large in [(4, 3, 5, 2, False), (3, 6, 2, 7, False), (5, 1, 4, 3, False), (3, 4, 6, 2, True)]:
        Q, K, V = rng.normal(size=(d, n)), rng.normal(size=(d, m)), rng.normal(size=(d_v, m))
        if large:
            Q = Q * large_factor(K.T @ Q, axis=0) * np.sqrt(d)
        want = _ref().dot_product_attention_columns(Q, K, V)
        record = attempt(dot_product_attention_columns, "dot_product_attention_columns", (Q, K, V),
                         want=want, arg_names=("Q", "K", "V"))
        expect(record, MISTAKES, extra_check=weights_sum_to_one(N_("column"), axis=0))
        rows = _ref().dot_product_attention(Q.T, K.T, V.T)
        assert close(record.got[0], rows[0].T) and close(record.got[1], rows[1].T), (
            _("dot_product_attention_columns(Q, K, V) must equal the transposed results of "
            "dot_product_attention(Q.T, K.T, V.T)"))
