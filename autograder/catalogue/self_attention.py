"""Exercise 07, masking and self-attention: hidden checks and the misconception catalogue.

Each hidden test cell of ``solutions/07_self_attention/self_attention.ipynb``
calls one ``check_*`` function below with the learner's ``causal_mask`` or
``self_attention``.  Inputs are random (``checks.rng``) and chosen so that no mistake
can hide: ``d_model``, ``d_k`` and ``d_v`` all differ (so using ``W_q`` for
the keys, skipping the value projection or scaling by ``sqrt(d_model)`` all
change the answer), the weights are random and non-symmetric, and the causal
tests check rows above, on and below the diagonal.  A wrong answer is matched
against ``MISTAKES`` in order; the first symptom that fits names the mistake.
Every mistake has a wrong implementation in ``tests/submissions/07_self_attention/``.
"""
import numpy as np

from ..checks import rng as hidden_inputs
from ..checks import (Batched, Mistake, additive_mask, attempt, close, expect, formula, large_factor,
                      masked_weight_not_zero, no_max_subtraction, reference)
from ..checks import softmax as _softmax
from ..i18n import _



def _tri(n, kind):
    ones = np.ones((n, n), dtype=bool)
    return {"causal": np.tril(ones), "upper": np.triu(ones), "strict_upper": np.triu(ones, 1),
            "strict_lower": np.tril(ones, -1)}[kind]


# --------------------------------------------------------------------------- mistaken formulas
def _variant(record, *, key="k", value="v", scale="d_k", mask="flag", after=False, axis=-1, fill=-np.inf,
             transposed=False, scores=False):
    """What self_attention returns for the record's inputs under one mistaken formula (with ``scores``,
    the scores it normalises; with ``transposed``, scores K Q^T, row j holding key j's products)."""
    X, W_q, W_k, W_v = (np.asarray(a, dtype=float) for a in record.args[:4])
    causal = bool(record.kwargs.get("causal", False))
    Q = X @ W_q
    K = X @ (W_q if key == "q" else W_k)
    V = X if value == "x" else X @ W_v
    S = (K @ Q.T if transposed else Q @ K.T) / {"d_k": np.sqrt(Q.shape[-1]), "d_model": np.sqrt(X.shape[-1]),
                                                 "none": 1.0}[scale]
    n = X.shape[0]
    m = None if (mask == "none" or (mask == "flag" and not causal)) else _tri(n, "causal" if mask == "flag" else mask)
    if m is not None and not after:
        S = np.where(m, S, fill)
    if scores:
        return S                                       # (n, n)
    W = _softmax(S, axis=axis)
    if m is not None and after:
        W = W * m
    return W @ V, W


def _same(got, alt, rows=slice(None)):
    """Both outputs of self_attention equal the mistaken ones (optionally on some rows only)."""
    return (got is not None and all(np.shape(g) == np.shape(a) for g, a in zip(got, alt))
            and all(close(g[rows], a[rows]) for g, a in zip(got, alt)))


def _visible(record):
    """The causal mask of a causal self_attention call (None for any other call)."""
    return _tri(np.shape(record.args[0])[0], "causal") if _causal(record) else None


def _causal(record):
    return record.function == "self_attention" and bool(record.kwargs.get("causal", False))


def _mask_record_equals(record, kind):
    return record.function == "causal_mask" and record.got is not None and close(record.got, _tri(int(record.args[0]), kind))


def _upper_triangle(record):
    if record.function == "causal_mask":
        return _mask_record_equals(record, "upper")
    return _causal(record) and _same(record.got, _variant(record, mask="upper"))


def _true_means_blocked(record):
    if record.function == "causal_mask":
        return _mask_record_equals(record, "strict_upper")
    if not _causal(record):
        return False
    if record.error is not None:  # every key of the last row blocked: nothing left to attend to
        return False
    # the last query sees no key at all (nan, or uniform with a -1e9 fill): compare the other rows
    return _same(record.got, _variant(record, mask="strict_upper", fill=-1e9), rows=slice(0, -1))


def _diagonal_excluded(record):
    if record.function == "causal_mask":
        return _mask_record_equals(record, "strict_lower")
    if not _causal(record) or record.got is None:
        return False
    # the first query sees no key at all (nan, or uniform with a -1e9 fill): compare the other rows
    return _same(record.got, _variant(record, mask="strict_lower", fill=-1e9), rows=slice(1, None))


def _formula(**options):
    """The detector of one mistaken formula of self_attention (``checks.formula``: mistakes of this
    family are also found two at a time)."""
    return formula(_variant, "self_attention", **options)


_flag_ignored = _formula(mask="none")
_wq_for_keys = _formula(key="q")
_no_scaling = _formula(scale="none")
_scaled_by_d_model = _formula(scale="d_model")
_masked_after_softmax = _formula(after=True)
_softmax_over_queries = _formula(axis=0)
_values_not_projected = _formula(value="x")
_mask_fill_zero = _formula(fill=0.0)
_transposed_scores = _formula(transposed=True)


MISTAKES = [
    additive_mask("causal_mask"),
    Mistake("causal_upper_triangle",
            "the causal mask lets each token see the FUTURE: it is True where j >= i (the upper "
            "triangle), so query i attends to later tokens and never to earlier ones. A decoder "
            "may only look back: the mask must be True where j <= i, the lower triangle with the "
            "diagonal, `np.tril(np.ones((n, n), dtype=bool))`.",
            _upper_triangle,
            hints=("Look at which keys your causal masking lets query i see: those on which side of the diagonal of "
                   "the n × n mask?",
                   "Print `causal_mask` for 3 tokens: row 0 should be True only in column 0, row 2 in all three "
                   "columns. With `causal` True, row 0 of the weights of `self_attention` should be 1 at key 0 "
                   "and 0 elsewhere.",
                   "A decoder may only look back: query i may attend to the keys j ≤ i, itself and the tokens "
                   "before it, never to a later one.")),
    Mistake("causal_true_means_blocked",
            "the causal mask is inverted: it is True where j > i, the positions to BLOCK (the "
            "convention of some libraries). In this book True means 'this query may attend to this "
            "key', so the mask must be True where j <= i: `np.tril(np.ones((n, n), dtype=bool))`.",
            _true_means_blocked,
            hints=("Look at how True and False are read in your causal masking, in the mask you build and where you "
                   "apply it: which value lets a query attend to a key?",
                   "Print `causal_mask` for 3 tokens and count the True entries of each row: row i should have "
                   "i + 1 of them, columns 0 to i. With `causal` True, query 0 of `self_attention` should put all "
                   "its weight on key 0.",
                   "In this book a mask is True where attention is allowed, so the causal mask is True on and below "
                   "the diagonal.")),
    Mistake("causal_diagonal_excluded",
            "the diagonal is excluded from the causal mask (True only where j < i): a token cannot "
            "attend to itself, and the first token has no visible key at all, so its weights are "
            "nan (or uniform). Include the diagonal: True where j <= i, `np.tril(..., k=0)`.",
            _diagonal_excluded,
            hints=("Look at the diagonal of your causal mask, where query and key are the same token: what does it "
                   "hold?",
                   "Print `causal_mask` for 3 tokens and look at row 0: the first token should see exactly one key. "
                   "With `causal` True, query 0 of `self_attention` should put weight 1 on key 0.",
                   "Query i may attend to the keys j ≤ i, the tokens before it and itself, so even the first token "
                   "has one visible key.")),
    Mistake("mask_not_boolean",
            "the mask holds numbers, not booleans, and the contract asks for a bool array: `~mask` then "
            "fails on floats and gives -1 and -2 on integers, and `scores[mask]` picks rows by number. "
            "Build it with `dtype=bool`, for example `np.tril(np.ones((n, n), dtype=bool))`.",
            lambda record: record.function == "causal_mask" and record.got is not None and record.kinds[:1] != ("b",),
            even_if_close=True,
            hints=("Look at the type of the array `causal_mask` returns: what is its `dtype`?",
                   "Print the `dtype` of your mask for 3 tokens and compare it with the contract's: it should "
                   "be bool, whatever values it holds.",
                   "The contract asks for a boolean mask: NumPy reads a boolean array as a selection of entries, "
                   "and an array of 0 and 1 as numbers, for inverting and for indexing alike.")),
    Mistake("causal_flag_ignored",
            "with `causal=True` the weights are not masked: every query still attends to later "
            "tokens. When `causal` is True, replace the scores where the causal mask is False by "
            "`-np.inf` (for example `np.where(causal_mask(n), scores, -np.inf)`) before the softmax.",
            _flag_ignored,
            hints=("Look at what `self_attention` does with its `causal` argument: does it change the scores?",
                   "Call it on the same `X` with `causal` False and with `causal` True: the weights should differ, "
                   "and with True every weight above the diagonal should be exactly 0.",
                   "With `causal` True query i may attend only to the keys j ≤ i: every later key gets weight "
                   "exactly 0.")),
    Mistake("wq_for_keys",
            "the keys are computed with `W_q`: `K = X @ W_q` makes the scores `Q Q^T`, a symmetric "
            "matrix, so query i and query j always score each other alike. Queries, keys and values "
            "each have their own matrix: `Q = X @ W_q`, `K = X @ W_k`, `V = X @ W_v`.",
            _wq_for_keys,
            hints=("Look at how you compute the keys: which projection matrix do they use?",
                   "Without `causal`, print the scores your code passes to the softmax on a small random example: "
                   "with distinct `W_q` and `W_k` the score matrix should not be symmetric.",
                   "Queries, keys and values each come from `X` through their own matrix, `W_q`, `W_k` and `W_v`, "
                   "so a query and a key of one token can differ.")),
    Mistake("no_scaling",
            "the scores are not scaled: divide `Q @ K.T` by `sqrt(d_k)`, where `d_k = W_q.shape[1]` "
            "is the length of a query (chapter 6). Without it the softmax saturates as d_k grows.",
            _no_scaling,
            hints=("Look at the scores just before the softmax: what are they divided by?",
                   "With `W_q` and `W_k` of 4 columns, d_k equal to 4, compare one score your code passes to the "
                   "softmax with the dot product of that query and key: it should be half of it, divided by √4.",
                   "Self-attention is scaled dot-product attention: the scores are divided by √d_k, the square root "
                   "of the dimension of a query vector (chapter 6).")),
    Mistake("scaled_by_d_model",
            "the scores are divided by `sqrt(d_model)` (the width of X), not by `sqrt(d_k)`. The "
            "scale is the length of the vectors in the dot product, the query and key length "
            "`d_k = W_q.shape[1]`.",
            _scaled_by_d_model,
            hints=("Look at the number you divide the scores by: which array's shape does it come from?",
                   "Take `X` with 9 columns and `W_q` and `W_k` with 4, so that d_model is 9 and d_k is 4, and "
                   "print the number your code divides the scores by: it should be 2, whatever the width of `X`.",
                   "The factor comes from the dot products of queries with keys, of d_k terms each. d_model is the "
                   "dimension of the tokens before the projection.")),
    Mistake("masked_after_softmax",
            "the mask is applied after the softmax (the weights are multiplied by the mask), so the "
            "rows no longer sum to 1. Mask the SCORES before the softmax: set the blocked scores to "
            "`-np.inf`, then the remaining weights are renormalised automatically.",
            _masked_after_softmax,
            hints=("Look at where the causal mask enters: on the scores, before the softmax, or on the weights, "
                   "after it?",
                   "Call it with `causal` True and add up each row of the weights: every row should sum to 1, with "
                   "the weights above the diagonal exactly 0.",
                   "The softmax has to see the mask: blocked scores become minus infinity, so that the softmax "
                   "spreads the whole weight over the visible keys.")),
    Mistake("softmax_over_queries",
            "the softmax runs over the queries (axis 0), so each COLUMN of the weights sums to 1. "
            "In the row convention each query's row sums to 1: use `axis=-1`. In self-attention "
            "the weight matrix is square, so this mistake changes no shape.",
            _softmax_over_queries,
            hints=("Look at the axis of your softmax: along which axis of the n × n scores does it normalise?",
                   "Add up your weights along each row: every row, one query, should sum to 1. The weight matrix is "
                   "square, so its shape cannot tell you which axis was normalised.",
                   "In the row convention row i of the weights holds query i's weights over the keys, so the "
                   "softmax runs along the last axis.")),
    Mistake("values_not_projected",
            "the values are the rows of X itself: the output mixes `X`, not `V = X @ W_v`. Project "
            "the values with their own matrix; the output then has d_v columns.",
            _values_not_projected,
            hints=("Look at the matrix your weights multiply at the end: where do your values come from?",
                   "Call it with d_model ≠ d_v, say `X` with 5 columns and `W_v` with 3, and look at the shape of "
                   "your output: it should be n × 3, one column per column of `W_v`.",
                   "The output averages the values, and the values are a projection of `X` of their own: d_v "
                   "numbers per token.")),
    Mistake("mask_fill_zero",
            "the blocked scores are 0 instead of -inf (set to 0, or multiplied by the mask): exp(0) = 1, so "
            "every query still gives later tokens a positive weight. Replace them by `-np.inf` before the "
            "softmax: `np.where(causal_mask(n), scores, -np.inf)`.",
            _mask_fill_zero,
            hints=("Look at the value a blocked score gets before the softmax: what weight does the softmax give "
                   "that value?",
                   "Call it with `causal` True and print row 0 of the weights: query 0 may see key 0 only, so its "
                   "weight there should be 1 and every other weight of the row exactly 0.",
                   "The softmax gives a score s a weight proportional to e^s, positive for every finite s: only "
                   "minus infinity gives a blocked key exactly 0.")),
    Mistake("transposed_scores",
            "the scores are transposed: you computed K Q^T, whose row j holds key j's products with every "
            "query. Query i's scores are row i of `Q @ K.T`; the matrix is square in self-attention, so no "
            "shape tells them apart.",
            _transposed_scores,
            hints=("Look at the product that gives your scores: which factor comes first, the queries or the keys?",
                   "Take `W_q` and `W_k` different, compute by hand the score of query 0 against key 1, the dot "
                   "product of row 0 of Q with row 1 of K, and compare it with entry 0, 1 of your scores.",
                   "In the row convention row i of the scores holds query i's products with every key. The square "
                   "shape of self-attention hides a transposed matrix.")),
    masked_weight_not_zero(_visible),
    no_max_subtraction(lambda record: _variant(record, scores=True)),
]


# --------------------------------------------------------------------------- checks
def _ref():
    return reference(__name__)


def _call_self_attention(self_attention, X, W_q, W_k, W_v, causal=None):
    kwargs = {} if causal is None else {"causal": causal}
    want = _ref().self_attention(X, W_q, W_k, W_v, **kwargs)
    record = attempt(self_attention, "self_attention", (X, W_q, W_k, W_v), kwargs, want=want,
                     arg_names=("X", "W_q", "W_k", "W_v"),
                     batched=Batched.unbatched((2, None, None, None), _ref().self_attention))
    expect(record, MISTAKES)
    return record.got


def _inputs(rng, n, d_model, d_k, d_v):
    X = rng.normal(size=(n, d_model))                              # (n, d_model)
    W_q = rng.normal(scale=0.6, size=(d_model, d_k))               # random, non-symmetric
    W_k = rng.normal(scale=0.6, size=(d_model, d_k))
    W_v = rng.normal(size=(d_model, d_v))
    return X, W_q, W_k, W_v


def check_causal_mask(causal_mask):
    """Shapes, the lower triangle with the diagonal, and a boolean dtype."""
    rng = hidden_inputs("causal_mask")
    # The size is the whole input: drawn from wide ranges, so that masks memorised from one draw miss
    # the next; the call is described by its range, so that the report reads the same on every draw.
    for low, high in ((4, 40), (40, 100), (1, 2)):
        n = int(rng.integers(low, high))
        record = attempt(causal_mask, "causal_mask", (n,), want=_ref().causal_mask(n), arg_names=("n",))
        record.call = (_("causal_mask(n) with n from {low} to {high}").format(low=low, high=high - 1)
                       if high - low > 1 else f"causal_mask({n})")
        expect(record, MISTAKES)
    n = int(rng.integers(5, 40))
    mask = np.asarray(causal_mask(n))
    assert mask[3, 3] and mask[3, 0] and not mask[3, 4], (
        _("causal_mask(n), n from 5 to 39: row i must be True at columns 0..i and False after i"))


def check_self_attention(self_attention):
    """No mask: random non-square projections, rows sum to 1, permutation equivariance."""
    rng = hidden_inputs("self_attention")
    for n, d_model, d_k, d_v in [(6, 5, 3, 4), (4, 7, 2, 6)]:
        X, W_q, W_k, W_v = _inputs(rng, n, d_model, d_k, d_v)
        out, weights = _call_self_attention(self_attention, X, W_q, W_k, W_v)
        assert np.allclose(weights.sum(axis=-1), 1.0), _("self_attention: each row of the weights must sum to 1")
    _call_self_attention(self_attention, X, W_q, W_k, W_v, causal=False)
    # Permuting the tokens permutes the outputs the same way (no positions without a mask).
    perm = rng.permutation(n)
    out_p, weights_p = _call_self_attention(self_attention, X[perm], W_q, W_k, W_v)
    assert np.allclose(out_p, out[perm], rtol=1e-4, atol=1e-6), (
        _("self_attention: permuting the rows of X must permute the rows of the output the same way"))
    assert np.allclose(weights_p, weights[perm][:, perm], rtol=1e-4, atol=1e-6), (
        _("self_attention: permuting the rows of X must permute both axes of the weights"))
    # Large scores (above 1000): exp overflows unless the softmax subtracts the maximum.
    X, W_q, W_k, W_v = _inputs(rng, 5, 6, 4, 3)
    scores = (X @ W_q) @ (X @ W_k).T / np.sqrt(4)
    _call_self_attention(self_attention, X, W_q * large_factor(scores), W_k, W_v)


def check_self_attention_causal(self_attention):
    """causal=True: the future gets weight exactly 0, the first token sees only itself,
    and row i of the output does not depend on later tokens."""
    rng = hidden_inputs("self_attention_causal")
    for n, d_model, d_k, d_v in [(6, 5, 3, 4), (5, 8, 4, 2)]:
        X, W_q, W_k, W_v = _inputs(rng, n, d_model, d_k, d_v)
        out, weights = _call_self_attention(self_attention, X, W_q, W_k, W_v, causal=True)
        assert np.allclose(weights.sum(axis=-1), 1.0), _("self_attention: each row of the weights must sum to 1")
        assert np.allclose(out[0], X[0] @ W_v, rtol=1e-4, atol=1e-6), (
            _("self_attention(causal=True): the first token can only attend to itself, so its output is v_0"))
    # Changing the later tokens must not change the earlier outputs.
    k = 3
    X2 = X.copy()
    X2[k:] = rng.normal(size=X2[k:].shape)
    out2, _weights2 = _call_self_attention(self_attention, X2, W_q, W_k, W_v, causal=True)
    assert np.allclose(out2[:k], out[:k], rtol=1e-4, atol=1e-6), (
        _("self_attention(causal=True): the outputs of the first tokens changed when only later tokens changed"))
