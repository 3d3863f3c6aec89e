"""Exercise 08, multi-head attention: hidden checks and the misconception catalogue.

Each hidden test cell of ``solutions/08_multi_head/multi_head.ipynb`` calls one
``check_*`` function below with the learner's ``split_heads``, ``merge_heads``
or ``multi_head_attention``.  Inputs are random (``checks.rng``) and non-square:
``n``, ``d_head`` and ``num_heads`` all differ, so a reshape without a
transpose moves numbers to other places instead of failing; ``sqrt(d_model)``
differs from ``sqrt(d_head)``; cross-attention uses ``n != m``; batches have
one or two leading axes, whose size never equals ``num_heads`` (a batched mask
that is not given its own head axis then fails to broadcast).  A wrong answer
is matched against ``MISTAKES`` in order; the first symptom that fits names
the mistake.  Every mistake has a wrong implementation in
``tests/submissions/08_multi_head/``.
"""
import numpy as np

from ..checks import rng as hidden_inputs
from ..checks import (Batched, Fit, Mistake, Stage, attempt, close, either, expect, formula, large_factor, probed_once,
                      masked_weight_not_zero, no_max_subtraction, reference, weights_sum_to_one)
from ..checks import softmax as _softmax
from ..i18n import N_, _

MHA_ARGS = ("X_q", "X_kv", "W_q", "W_k", "W_v", "W_o", "num_heads")


def _mask_of(record):
    """The mask of a multi_head_attention record (passed as the 8th argument), or None."""
    return record.args[7] if len(record.args) > 7 else record.kwargs.get("mask")


def _visible_per_head(record):
    """The mask with a head axis, broadcastable to the weights (..., num_heads, n, m)."""
    mask = _mask_of(record) if record.function == "multi_head_attention" else None
    return None if mask is None else np.asarray(mask, dtype=bool)[..., None, :, :]


# --------------------------------------------------------------------------- mistaken formulas
# Other divisors of the scores found in public code: d_head itself, its fourth root (a square root taken
# twice), the square root of the number of heads, and a scale `d_head ** -0.5` used as a divisor.
OTHER_SCALES = {"d_head": lambda d_head, h: float(d_head), "d_head ** 0.25": lambda d_head, h: d_head ** 0.25,
                "sqrt(num_heads)": lambda d_head, h: np.sqrt(h), "1 / sqrt(d_head)": lambda d_head, h: d_head ** -0.5}
OTHER_SCALE_FITTED = Fit(tuple(OTHER_SCALES), N_("your scores are divided by {value}"))


def _split(X, h, how="ok"):
    *lead, n, d_model = X.shape
    d = d_model // h
    if how == "no_transpose":
        return X.reshape(*lead, h, n, d)                               # rows cut across tokens
    if how == "strided":
        return np.moveaxis(X.reshape(*lead, n, d, h), -1, -3)          # head g gets columns g, g+h, ...
    return np.swapaxes(X.reshape(*lead, n, h, d), -3, -2)


def _merge(X, how="ok"):
    *lead, h, n, d = X.shape
    if how == "no_transpose":
        return X.reshape(*lead, n, h * d)
    if how == "strided":
        return np.moveaxis(X, -3, -1).reshape(*lead, n, d * h)
    return np.swapaxes(X, -3, -2).reshape(*lead, n, h * d)


def _mha(record, *, split="ok", merge="ok", scale="sqrt(d_head)", wo=True, use_mask=True, average=False,
         scores=False, softmax_axis=-1):
    """What multi_head_attention returns for the record's inputs under one mistaken formula (``scores``:
    the scaled scores of every head instead, -inf where masked, (..., num_heads, n, m))."""
    X_q, X_kv, W_q, W_k, W_v, W_o = (np.asarray(a, dtype=float) for a in record.args[:6])
    h = int(record.args[6])
    mask = _mask_of(record)
    Q, K, V = _split(X_q @ W_q, h, split), _split(X_kv @ W_k, h, split), _split(X_kv @ W_v, h, split)
    d_model = W_q.shape[-1]
    d_head = d_model // h
    S = Q @ np.swapaxes(K, -1, -2) / {"sqrt(d_head)": np.sqrt(d_head), "d_model": np.sqrt(d_model), "none": 1.0,
                                      **{text: divisor(d_head, h) for text, divisor in OTHER_SCALES.items()}}[scale]
    if mask is not None and use_mask:
        mask = np.asarray(mask, dtype=bool)
        S = np.where(mask[..., None, :, :] if mask.ndim >= 2 else mask, S, -np.inf)
    if scores:
        return S
    A = _softmax(S, axis=softmax_axis)
    out = _merge(A @ V, merge)
    if wo:
        out = out @ W_o
    return out, (A.mean(axis=-3) if average else A)


def _same(got, alt):
    return got is not None and all(close(g, a) for g, a in zip(got, alt))


def _formula(**options):
    """The detector of one mistaken formula of multi_head_attention (``checks.formula``: mistakes of
    this family are also found two at a time)."""
    return formula(_mha, "multi_head_attention", **options)


def _split_heads_is(how):
    return lambda record: record.function == "split_heads" and close(
        record.got, _split(np.asarray(record.args[0], dtype=float), int(record.args[1]), how))


def _merge_heads_is(how):
    return lambda record: record.function == "merge_heads" and close(
        record.got, _merge(np.asarray(record.args[0], dtype=float), how))


_split_no_transpose = either(_split_heads_is("no_transpose"), _formula(split="no_transpose"))
_strided = either(lambda record: _split_heads_is("strided")(record) or _merge_heads_is("strided")(record)
                  or _formula(split="strided")(record), _formula(split="strided", merge="strided"))
_merge_no_transpose = either(_merge_heads_is("no_transpose"), _formula(merge="no_transpose"))


def _heads_axis_not_moved(record):
    if record.function != "split_heads":
        return False
    X, h = np.asarray(record.args[0], dtype=float), int(record.args[1])
    *lead, n, d_model = X.shape
    return close(record.got, X.reshape(*lead, n, h, d_model // h))


def _single_head(record):
    if record.function != "multi_head_attention" or record.returned is None:
        return False
    got = record.returned if isinstance(record.returned, tuple) else (record.returned,)
    weights = got[1] if len(got) > 1 else None
    # one attention over all the columns changes the output too: right output, heads-less weights is
    # another mistake (the heads' weights reduced before returning them), left to be localised
    return weights is not None and np.shape(weights) == np.shape(record.want[1])[:-3] + np.shape(record.want[1])[-2:] \
        and not close(weights, record.want[1].mean(axis=-3)) and not close(got[0], record.want[0])


def _mha_variant(**options):
    return _formula(**options)


def _mask_not_broadcast(record):
    """Verified, not guessed from the error's words: the same call with the mask given its heads axis
    runs and answers in the contract's shapes (its values are diagnosed by the test's other calls)."""
    mask = _mask_of(record)
    if not (record.function == "multi_head_attention" and record.error is not None and "broadcast" in record.error
            and mask is not None and np.ndim(mask) >= 3):
        return False
    return probed_once(record, "mask_with_heads", lambda record: _right_with_heads_axis(record, mask))


def _right_with_heads_axis(record, mask):
    with_heads = np.asarray(mask)[..., None, :, :]
    args = record.args[:7] + (with_heads,) if len(record.args) > 7 else record.args
    kwargs = {**record.kwargs, "mask": with_heads} if "mask" in record.kwargs else record.kwargs
    trial = attempt(record.callee, record.function, args, kwargs, want=record.want, arg_names=MHA_ARGS)
    return trial.error is None and trial.got is not None and all(
        np.shape(g) == np.shape(w) for g, w in zip(trial.got, record.want))


_mask_ignored = _formula(use_mask=False)


MISTAKES = [
    Mistake("split_no_transpose",
            "split_heads reshapes straight to (..., num_heads, n, d_head) without a transpose. "
            "`reshape` keeps NumPy's reading order, so a 'head' then holds pieces of several "
            "tokens instead of one column slice of every token. Reshape to "
            "(..., n, num_heads, d_head) first, then swap the two middle axes: "
            "`np.swapaxes(X.reshape(*lead, n, num_heads, d_head), -3, -2)`.",
            _split_no_transpose,
            hints=("Look at the step that puts the heads on their own axis (in `split_heads`, or wherever "
                   "`multi_head_attention` cuts the projections into heads): which numbers end up in head 0?",
                   "Split the visible test's X (tokens [0..5] and [6..11], d_model 6) into 3 heads and print head "
                   "0: it should hold columns 0 and 1 of every token, [[0, 1], [6, 7]]. Does yours hold numbers "
                   "of token 0 only?",
                   "A reshape never moves numbers. It only regroups them in reading order. Each token's row has "
                   "to be cut into num_heads blocks of d_head first, and only then can the heads axis change "
                   "places with the tokens axis (Section 8.3).")),
    Mistake("heads_strided_columns",
            "head h does not get the column slice h*d_head:(h+1)*d_head: your heads take every "
            "num_heads-th column (columns h, h + num_heads, ...), because the last axis was "
            "reshaped to (d_head, num_heads) instead of (num_heads, d_head). Reshape each row to "
            "(num_heads, d_head), so that head h is the h-th block of d_head consecutive columns.",
            _strided,
            hints=("Look at how the last axis is cut into heads in `split_heads`, and put back together in "
                   "`merge_heads`: which columns of the projection does head 0 receive?",
                   "Split the visible test's X (tokens [0..5] and [6..11]) into 3 heads: head 0 should be "
                   "[[0, 1], [6, 7]], two consecutive columns. Is yours [[0, 3], [6, 9]]? And does merging the "
                   "visible test's expected heads give back X?",
                   "Head h owns d_head consecutive columns, from h × d_head up to (h + 1) × d_head. When the "
                   "last axis is regrouped, num_heads must be the outer factor and d_head the inner one, the "
                   "one that runs fastest in reading order.")),
    Mistake("heads_axis_not_moved",
            "split_heads returned (..., n, num_heads, d_head): the heads axis is still after the tokens. "
            "Move it before them, `np.swapaxes(X.reshape(*lead, n, num_heads, d_head), -3, -2)`, so that "
            "each head is a (n, d_head) matrix for the attention.",
            _heads_axis_not_moved,
            hints=("Look at the order of the axes in what `split_heads` returns, and compare it with the "
                   "contract's (..., num_heads, n, d_head).",
                   "Print the shape of what `split_heads` returns for an array of shape (5, 12) and 3 heads: the "
                   "contract asks for (3, 5, 4). Where does the axis of size 3 stand in yours?",
                   "Each head must be an (n, d_head) matrix on which attention can run, so the heads axis "
                   "stands before the tokens axis. Cutting every row into blocks is only the first of the two "
                   "steps of Section 8.3.")),
    Mistake("merge_no_transpose",
            "merge_heads reshapes straight to (..., n, d_model) without a transpose. With the "
            "heads axis before the token axis, that glues rows of different tokens together. Swap "
            "the heads and token axes back first, then reshape: "
            "`np.swapaxes(X, -3, -2).reshape(*lead, n, num_heads * d_head)`.",
            _merge_no_transpose,
            hints=("Look at the step that joins the heads back into d_model columns (in `merge_heads`, or at the "
                   "end of `multi_head_attention`): which numbers end up in row 0 of the result?",
                   "Merge the visible test's expected heads, [[0, 1], [6, 7]], [[2, 3], [8, 9]] and "
                   "[[4, 5], [10, 11]]: row 0 should be token 0, [0, 1, 2, 3, 4, 5]. Does yours contain 6 or 7, "
                   "numbers of token 1?",
                   "Merging undoes splitting, its steps in reverse order: the heads axis goes back after the "
                   "tokens axis before the last two axes are joined, so that each row gathers the slices of one "
                   "token (Section 8.3).")),
    Mistake("scaled_by_d_model",
            "the scores are divided by sqrt(d_model); each head must be scaled by sqrt(d_head), "
            "the length of ITS queries and keys (d_head = d_model // num_heads). Dividing by "
            "sqrt(d_model) makes every head's weights too flat.",
            _mha_variant(scale="d_model"),
            hints=("Look at the number by which each head's scores are divided: which dimension is it computed "
                   "from?",
                   "Take d_model 12 and 3 heads: then d_head is 4, and each head's scores should be its dot "
                   "products divided by 2. Print the divisor your code uses in this case: is it √12, about 3.46?",
                   "A head's dot products sum d_head products, not d_model, so its scores are scaled by the "
                   "square root of the dimension of its own queries and keys. A larger divisor makes every "
                   "head's weights too flat (Section 8.4).")),
    Mistake("no_scaling",
            "the scores are not scaled: divide each head's `Q_h @ K_h^T` by sqrt(d_head), with "
            "d_head = d_model // num_heads.",
            _mha_variant(scale="none"),
            hints=("Look at what happens to each head's scores between the product of its queries and keys and "
                   "the softmax.",
                   "Print one head's scores just before the softmax next to the plain dot products of its queries "
                   "and keys: with d_model 12 and 3 heads (d_head 4) the scores should be half the dot products. "
                   "Are yours the dot products themselves?",
                   "Each head is scaled dot-product attention (chapter 6): its dot products of d_head terms are "
                   "divided by √d_head before the softmax, so that their spread does not grow with the "
                   "dimension.")),
    Mistake("scaled_otherwise",
            "each head's scores must be divided by sqrt(d_head), the length of its queries and keys "
            "(d_head = d_model // num_heads): `scores = Q_h @ K_h^T / np.sqrt(d_head)`.",
            _mha_variant(scale=OTHER_SCALE_FITTED),
            hints=("Look at the number by which each head's scores are divided (or multiplied): which quantity is "
                   "it computed from, and how?",
                   "With d_model 12 and 3 heads (d_head 4), divide a head's plain dot products by its scores just "
                   "before the softmax: the ratio should be √d_head, which is 2. What ratio does your code give?",
                   "The scale of chapter 6 is the square root of the dimension of the vectors whose dot "
                   "products form the scores. In a head those are its queries and keys, of dimension d_head.")),
    Mistake("missing_wo",
            "the output projection W_o is missing: the result is Concat(head_1, ..., head_h), but "
            "multi-head attention returns Concat(head_1, ..., head_h) @ W_o. Multiply the merged "
            "heads by W_o.",
            _mha_variant(wo=False),
            hints=("Look at the last step of `multi_head_attention`, after the heads are merged: what happens to "
                   "the merged heads before they are returned?",
                   "Call it twice on the same inputs, once with `W_o` the identity matrix and once with a random "
                   "`W_o`: the two outputs should differ. Do yours?",
                   "The output is the concatenation of the heads multiplied by `W_o`: through its own block of "
                   "rows of `W_o` each head writes into all d_model output columns, and the heads' "
                   "contributions add up (Section 8.5).")),
    Mistake("weights_averaged_over_heads",
            "the weights are averaged over the heads. Return every head's weights, shape "
            "(..., num_heads, n, m); the average hides what each head attends to.",
            _mha_variant(average=True),
            hints=("Look at the weights you return: what shape do they have, and what does the contract ask for?",
                   "Call it with 3 heads, 4 queries and 6 keys and print the shape of the weights: the contract "
                   "asks for (3, 4, 6), one (n, m) matrix per head. How many (n, m) matrices does yours hold?",
                   "A multi-head layer returns one weight matrix per head: each head has its own distribution "
                   "over the keys, and one matrix for all of them would hide what each head attends to (Section "
                   "8.7).")),
    Mistake("single_head",
            "your weights have no heads axis: the attention ran once over the whole d_model columns. "
            "Split Q, K and V into num_heads heads of d_head = d_model // num_heads columns, attend in each "
            "head (scaled by sqrt(d_head)), merge the heads and multiply by W_o; return the weights of every "
            "head, shape (..., num_heads, n, m).",
            _single_head,
            hints=("Look at the path from the projections to the weights you return: where are the queries, keys "
                   "and values cut into num_heads heads, and does a heads axis reach the weights?",
                   "With d_model 12, 3 heads, 4 queries and 6 keys, print the shapes of your queries just before "
                   "the scores and of the weights you return: they should be (3, 4, 4), one (n, d_head) matrix "
                   "per head, and (3, 4, 6).",
                   "Multi-head attention runs scaled dot-product attention separately in every head, on d_head "
                   "columns of the queries, keys and values, and returns the weights of all the heads along "
                   "their own axis.")),
    Mistake("softmax_over_queries",
            "each head's softmax runs over the queries (axis -2), so each column of its weights sums to 1. "
            "Each query's scores must be normalised over the keys: `softmax(scores, axis=-1)`, so that every "
            "row of every head's (n, m) weights sums to 1.",
            _mha_variant(softmax_axis=-2),
            hints=("Look at the softmax of each head's scores: along which axis does it normalise?",
                   "Sum one head's weights along the last axis, the keys': each of the n sums should be 1. Then "
                   "sum along the axis before it, the queries': which of the two gives ones in your answer?",
                   "Each query distributes its attention over the keys, so every row of a head's (n, m) weights "
                   "is one softmax, over that query's m scores.")),
    Mistake("mask_not_broadcast_over_heads",
            "the batched mask (..., n, m) was applied to scores of shape (..., num_heads, n, m) "
            "without a heads axis, so it could not be broadcast (with as many batch entries as "
            "heads it would silently mask head b with batch entry b's mask). Give the mask an axis "
            "for the heads: `mask[..., None, :, :]`, shape (..., 1, n, m).",
            _mask_not_broadcast,
            hints=("Look at the line where the mask meets the scores: what are the shapes of the two arrays "
                   "there?",
                   "With a batch of 2, 3 heads, 4 queries, 6 keys and a mask of shape (2, 4, 6), print the shapes "
                   "of the mask and of the scores where they are combined. NumPy aligns shapes from the right: "
                   "which axis of the mask meets the heads axis?",
                   "The same mask applies to every head, so it needs an axis of size 1 where the scores have "
                   "their heads axis. Broadcasting then copies it over the heads, for a batched mask as for an "
                   "(n, m) one (Section 8.4).")),
    Mistake("mask_ignored",
            "the `mask` argument is ignored: blocked keys still get weight. Before the softmax, set "
            "the scores where the mask is False to -np.inf, the same mask for every head.",
            _mask_ignored,
            hints=("Look at what your function does with its `mask` argument between the scores and the softmax.",
                   "Call it with a causal mask (n × n, True on and below the diagonal) and print one head's "
                   "weights: every weight above the diagonal should be exactly 0. Are yours?",
                   "A blocked key must get weight exactly 0 in every head: the scores it blocks are set aside "
                   "before the softmax, so that the weights of the visible keys alone sum to 1 (Section 7.3).")),
    masked_weight_not_zero(_visible_per_head),
    no_max_subtraction(lambda record: _mha(record, scores=True)),
]


# --------------------------------------------------------------------------- stages
def _with(record, **changes):
    """The record's call with some of its arguments changed (by name), for a stage's probe."""
    args = list(record.args)
    for name, value in changes.items():
        args[MHA_ARGS.index(name)] = value
    return tuple(args), dict(record.kwargs)


def _key_rows_alike(record):
    """The record's call with every row of X_kv equal to its first: every key and every value is the same,
    whatever the projections, so every output row is (x @ W_v) @ W_o whatever the weights."""
    X_kv = np.asarray(record.args[1], dtype=float)
    return _with(record, X_kv=np.broadcast_to(X_kv[..., :1, :], X_kv.shape).copy())


# For a wrong answer that no mistake names: where it shows (the first probe that tells something speaks;
# a message says what the probe observed, and only what follows from that for any code).
STAGES = [
    Stage("multi_head_attention", lambda record: _with(record, num_heads=1),
          right=N_("with num_heads=1 (one head over all d_model columns) your answer is right: the mistake shows "
                   "only with several heads")),
    Stage("multi_head_attention", _key_rows_alike,
          wrong=N_("even when every key-value row is the same (then every output row is (x @ W_v) @ W_o whatever "
                   "the weights) your answer is wrong: check the values' path (W_v, merging the heads, W_o) and "
                   "that each query's weights sum to 1 over the visible keys")),
    Stage("multi_head_attention", lambda record: _with(record, W_q=np.zeros_like(record.args[2]),
                                                       W_k=np.zeros_like(record.args[3])),
          right=N_("with W_q = W_k = 0 your answer is right: the mistake shows only through W_q and W_k (the "
                   "queries, the keys and their scores)")),
]


# --------------------------------------------------------------------------- checks
def _ref():
    return reference(__name__)


def _projections(rng, d_model):
    return [rng.normal(scale=1.0 / np.sqrt(d_model) * 1.5, size=(d_model, d_model)) for _index in range(4)]


def _call_mha(mha, X_q, X_kv, Ws, num_heads, mask=None):
    args = (X_q, X_kv, *Ws, num_heads) + (() if mask is None else (mask,))   # mask: the 8th argument
    want = _ref().multi_head_attention(*args)
    record = attempt(mha, "multi_head_attention", args, want=want, arg_names=MHA_ARGS + ("mask",),
                     batched=Batched((2, 2, None, None, None, None, None, 2), _ref().multi_head_attention))
    expect(record, MISTAKES, extra_check=weights_sum_to_one(N_("row (in every head)")), stages=STAGES)
    out, weights = record.got
    return out, weights


def check_split_heads(split_heads):
    """One, none and two leading axes; n, d_head and num_heads all different."""
    rng = hidden_inputs("split_heads")
    for shape, h in [((5, 12), 3), ((2, 5, 12), 4), ((2, 3, 4, 6), 2), ((7, 8), 2)]:
        X = rng.normal(size=shape)
        record = attempt(split_heads, "split_heads", (X, h), want=_ref().split_heads(X, h),
                         arg_names=("X", "num_heads"), batched=Batched((2, None), _ref().split_heads))
        expect(record, MISTAKES)


def check_merge_heads(merge_heads):
    """Merging undoes the split: (..., num_heads, n, d_head) -> (..., n, d_model)."""
    rng = hidden_inputs("merge_heads")
    for shape in [(3, 5, 4), (2, 4, 5, 3), (3, 2, 2, 6, 5)]:
        X = rng.normal(size=shape)
        record = attempt(merge_heads, "merge_heads", (X,), want=_ref().merge_heads(X), arg_names=("X",),
                         batched=Batched((3,), _ref().merge_heads))
        expect(record, MISTAKES)
    X = rng.normal(size=(2, 6, 12))
    record = attempt(merge_heads, "merge_heads", (_ref().split_heads(X, 3),), want=X, arg_names=("X",))
    expect(record, MISTAKES)


def check_mha_self(multi_head_attention):
    """Self-attention without a batch axis: 3 and 4 heads, one head, and permutation equivariance."""
    rng = hidden_inputs("mha_self")
    X = rng.normal(size=(5, 12))
    Ws = _projections(rng, 12)
    out, weights = _call_mha(multi_head_attention, X, X, Ws, 3)
    _call_mha(multi_head_attention, X, X, Ws, 4)
    out1, weights1 = _call_mha(multi_head_attention, X, X, Ws, 1)
    assert weights1.shape == (1, 5, 5), _("multi_head_attention with num_heads=1: weights must have shape (1, n, m)")
    perm = rng.permutation(5)
    out_p, weights_p = _call_mha(multi_head_attention, X[perm], X[perm], Ws, 3)
    assert np.allclose(out_p, out[perm], rtol=1e-4, atol=1e-6), (
        _("multi_head_attention: permuting the tokens must permute the rows of the output the same way"))


def check_mha_cross(multi_head_attention):
    """Cross-attention (n != m) with one and two batch axes."""
    rng = hidden_inputs("mha_cross")
    Ws = _projections(rng, 12)
    _call_mha(multi_head_attention, rng.normal(size=(4, 12)), rng.normal(size=(6, 12)), Ws, 3)
    _call_mha(multi_head_attention, rng.normal(size=(2, 4, 12)), rng.normal(size=(2, 6, 12)), Ws, 3)
    _call_mha(multi_head_attention, rng.normal(size=(2, 3, 4, 12)), rng.normal(size=(2, 3, 6, 12)), Ws, 4)
    # Large scores (above 1000) in every head: exp overflows unless the softmax subtracts the maximum.
    # Drawn again while the two best keys of some row are so close that the factor would take the scores
    # beyond 1e5, where float32 (a correct choice) could no longer tell them apart.
    W_q, W_k, W_v, W_o = Ws
    for _draw in range(100):
        X_q, X_kv = rng.normal(size=(4, 12)), rng.normal(size=(6, 12))
        Q, K = _ref().split_heads(X_q @ W_q, 3), _ref().split_heads(X_kv @ W_k, 3)  # (3, 4, 4), (3, 6, 4)
        scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(4)                            # (3, 4, 6)
        factor = large_factor(scores)
        if np.abs(factor * scores).max() < 1e5:
            break
    _call_mha(multi_head_attention, X_q, X_kv, [W_q * factor, W_k, W_v, W_o], 3)


def check_mha_mask(multi_head_attention):
    """A causal (n, n) mask, a padding mask (B, 1, m) and a full (B, n, m) mask; masked weights exactly 0."""
    rng = hidden_inputs("mha_mask")
    Ws = _projections(rng, 12)
    X = rng.normal(size=(2, 5, 12))
    causal = np.tril(np.ones((5, 5), dtype=bool))
    _call_mha(multi_head_attention, X, X, Ws, 3, mask=causal)
    X_q, X_kv = rng.normal(size=(2, 4, 12)), rng.normal(size=(2, 6, 12))
    lengths = np.array([6, rng.integers(1, 6)])                                # one entry padded, one not
    padding = (np.arange(6) < lengths[:, None])[:, None, :]                    # (2, 1, 6)
    _call_mha(multi_head_attention, X_q, X_kv, Ws, 3, mask=padding)
    full = rng.random(size=(2, 4, 6)) < 0.6
    full[..., 0] = True                                                        # one visible key per query
    _call_mha(multi_head_attention, X_q, X_kv, Ws, 4, mask=full)
