"""Exercise 12, the key-value cache: hidden checks and the misconception catalogue.

Each hidden test cell of ``solutions/12_kv_cache/kv_cache.ipynb`` calls one
``check_*`` function below with the learner's ``decode_step`` or
``decode_sequence``.  Inputs are random (seeded) and chosen so that no
mistake can hide: ``d_model``, ``d_k`` and ``d_v`` all differ (so scaling by
the wrong width changes the answer), the caches passed to ``decode_step``
hold 3, 5 and 9 rows before the empty one (a step that leaves its own key
out, restarts the positions or masks the past gives other numbers, and the
returned cache must have exactly ``t + 1`` rows), and one set of inputs is
large (scores in the thousands, where a softmax without its maximum
subtracted overflows).  A wrong answer is matched against ``MISTAKES`` in
order; the first symptom that fits names the mistake.  Every mistake has a
wrong implementation in ``tests/submissions/12_kv_cache/``.

A step returns ``(y_t, {"K": ..., "V": ...})``; the checks call the learner's
function through ``_flattened``, which hands it deep copies of the cache and
the parameters (so a function that changes its input dict cannot change what
the mistake models see) and turns the answer into the three arrays
``(y_t, K, V)`` that ``attempt`` compares.  The call is described by its
shapes (the dicts themselves would print every array).
"""
import copy

import numpy as np

from .. import checks
from ..checks import rng as hidden_inputs
from ..checks import Mistake, Stage, attempt, close, either, expect, formula, reference, reproduces
from ..checks import softmax as _softmax
from ..i18n import N_, _

UNUSABLE = N_("the result must be (y_t, new_cache) with new_cache a dict holding 'K' and 'V'")


# --------------------------------------------------------------------------- mistaken formulas
def _encoding(n, d_model):
    theta = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    angles = np.arange(n)[:, None] * theta
    PE = np.empty((n, d_model))
    PE[:, 0::2], PE[:, 1::2] = np.sin(angles), np.cos(angles)
    return PE


def _step(x_t, K_old, V_old, p, *, position=None, scale="d_k", own_key=True, only_first_key=False):
    """y_t of one decoding step under one mistaken formula (position None: the cache length)."""
    t = K_old.shape[0]
    pos = t if position is None else position
    z = x_t if pos == "none" else x_t + _encoding(pos + 1, x_t.shape[-1])[pos]
    q, k, v = z @ p["W_q"], z @ p["W_k"], z @ p["W_v"]
    K = np.vstack([K_old, k]) if own_key else K_old
    V = np.vstack([V_old, v]) if own_key else V_old
    width = {"d_k": q.shape[-1], "d_model": x_t.shape[-1], "d_v": V.shape[-1], "none": 1}[scale]
    scores = K @ q / np.sqrt(width)
    if only_first_key:
        scores = np.where(np.arange(K.shape[0]) == 0, scores, -np.inf)
    return _softmax(scores) @ V, k, v


def _step_args(record):
    x_t = np.asarray(record.args[0], dtype=float)
    cache, p = record.args[1], record.args[2]
    return x_t, np.asarray(cache["K"], dtype=float), np.asarray(cache["V"], dtype=float), p


def _right_scores(record):
    """The call's right scaled scores, one row per query (-inf above the diagonal for decode_sequence)."""
    if record.function == "decode_step":
        x_t, K_old, _V_old, p = _step_args(record)
        t = K_old.shape[0]
        z = x_t + _encoding(t + 1, x_t.shape[-1])[t]
        K = np.vstack([K_old, z @ p["W_k"]])
        return (K @ (z @ p["W_q"]) / np.sqrt(p["W_q"].shape[1]))[None]
    X, p = np.asarray(record.args[0], dtype=float), record.args[1]
    n = X.shape[0]
    Z = X + _encoding(n, X.shape[1])
    scores = (Z @ p["W_q"]) @ (Z @ p["W_k"]).T / np.sqrt(p["W_q"].shape[1])
    return np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)


def _sequence(X, p, whole=False, **options):
    """Y of decode_sequence when every step makes one mistake (positions as the cache length grows);
    with ``whole``, (Y, K, V)."""
    X = np.asarray(X, dtype=float)
    K = np.zeros((0, p["W_k"].shape[1]))
    V = np.zeros((0, p["W_v"].shape[1]))
    rows = []
    for x_t in X:
        y, k, v = _step(x_t, K, V, p, **options)
        rows.append(y)
        K, V = np.vstack([K, k]), np.vstack([V, v])
    return (np.array(rows), K, V) if whole else np.array(rows)


def _rows(record, index):
    return None if record.got is None else record.got[index].shape[0]


def _y_is(record, y):
    """The learner's y is the mistaken formula's, and this call tells them apart from the right y
    (with peaked weights a left-out key can weigh nothing: that call shows no mistake)."""
    return record.got is not None and close(record.got[0], y) and not close(record.want[0], y)


def _not_appended(record):
    if record.function != "decode_step" or record.got is None:
        return False
    x_t, K_old, V_old, p = _step_args(record)
    return _rows(record, 1) == K_old.shape[0] and close(record.got[1], K_old)


def _new_row_first(record):
    """The new key and value rows are put in FRONT of the cache (``np.vstack([k, K])``)."""
    if record.got is None:
        return False
    if record.function == "decode_sequence":   # every step put its row first: the cache comes out reversed
        _Y, K_new, V_new = record.want
        return K_new.shape[0] > 1 and close(record.got[1], K_new[::-1]) and close(record.got[2], V_new[::-1])
    if record.function != "decode_step":
        return False
    x_t, K_old, V_old, p = _step_args(record)
    if K_old.shape[0] == 0:
        return False
    _y, K_new, V_new = record.want
    front_K = np.vstack([K_new[-1:], K_new[:-1]])
    front_V = np.vstack([V_new[-1:], V_new[:-1]])
    return close(record.got[1], front_K) and close(record.got[2], front_V)


def _appended_twice(record):
    if record.got is None:
        return False
    if record.function == "decode_step":
        x_t, K_old, V_old, p = _step_args(record)
        return _rows(record, 1) == K_old.shape[0] + 2
    if record.function == "decode_sequence":
        return _rows(record, 1) == 2 * np.shape(record.args[0])[0]
    return False


def _sequence_cache_not_kept(record):
    """The cache stays empty: every step is decoded as the first token, at position 0."""
    if record.function != "decode_sequence" or record.got is None:
        return False
    X, p = np.asarray(record.args[0], dtype=float), record.args[1]
    alone = (X + _encoding(1, X.shape[-1])[0]) @ p["W_v"]            # each token sees only itself
    return _rows(record, 1) in (0, 1) and close(record.got[0], alone)


def _step_model(record, **options):
    """decode_step's whole answer (y_t, K, V) under mistaken options (a family: ``checks.formula``
    also finds two of them at once, such as no position and the wrong scale)."""
    x_t, K_old, V_old, p = _step_args(record)
    y, k, v = _step(x_t, K_old, V_old, p, **options)
    return y, np.vstack([K_old, k]), np.vstack([V_old, v])


def _step_variant(first_step_too=True, **options):
    """decode_step's answer, the new cache rows included, or decode_sequence's Y, is the mistaken
    formula's (``first_step_too=False``: the mistake cannot show on an empty cache)."""
    step = formula(_step_model, "decode_step", **options)

    def sequence(record):
        # the whole answer (Y and the cache), told apart from the right one on any part
        return record.function == "decode_sequence" and record.got is not None and reproduces(
            record, _sequence(record.args[0], record.args[1], whole=True, **options))

    def first_step_shows(record):
        return first_step_too or record.function != "decode_step" or _step_args(record)[1].shape[0] > 0

    both = either(sequence, step)
    detect = (lambda record: first_step_shows(record) and both(record))
    detect.family, detect.same_detail, detect.isolates, detect.pairs = (
        both.family, both.same_detail, both.isolates, both.pairs)
    return detect


def _own_key_left_out(record):
    if record.got is None:
        return False
    if record.function == "decode_step":
        x_t, K_old, V_old, p = _step_args(record)
        return K_old.shape[0] > 0 and _y_is(record, _step(x_t, K_old, V_old, p, own_key=False)[0])
    if record.function == "decode_sequence":                         # row 0 has no key at all: nan
        Y = _sequence(record.args[0], record.args[1], own_key=False)
        got = record.got[0]
        return got.shape == Y.shape and not np.all(np.isfinite(got[0])) and close(got[1:], Y[1:])
    return False


MISTAKES = [
    Mistake("appended_twice",
            "the new key and value are appended twice: the cache grows by two rows per step instead of "
            "one (a decoder that reads the position off the cache's length then encodes its tokens at "
            "positions 0, 2, 4, ...). Append k_t and v_t once, as row t: "
            "`K = np.concatenate([cache['K'], k[None]])`, and return that cache.",
            _appended_twice,
            hints=("Look at the cache your step returns: how many rows does it gain per step?",
                   "Decode one token from `empty_cache` and print the shapes of the returned K and V: they should "
                   "have 1 row each, and after a second step 2 rows.",
                   "The new token's key and value are appended once, as row t: a cache that held t rows comes "
                   "back with t + 1, and its number of rows is the next token's position.")),
    Mistake("cache_not_appended",
            "the returned cache is the old one: the new token's key and value were never appended, so "
            "the next step does not see this token and its position is read off a cache that never "
            "grows. Return the cache with k_t and v_t appended as row t, shape (t + 1, d_k) and "
            "(t + 1, d_v).",
            _not_appended,
            hints=("Look at the cache your step hands back: is it the one that holds the new token's row?",
                   "Decode one token from `empty_cache` and print the shape of the returned K: it should be 1 × "
                   "d_k, not 0 × d_k. Then check that its row is the token's key.",
                   "The contract's `new_cache` holds the old rows followed by the new token's key and value. The "
                   "tests look only at the cache returned, never at one changed elsewhere.")),
    Mistake("sequence_cache_not_kept",
            "the cache never grows in decode_sequence: every token is decoded as if it were the first, "
            "at position 0 and attending only to itself. Keep the cache that decode_step returns and "
            "pass it to the next step, `y_t, cache = decode_step(x_t, cache, params)` (and check that "
            "decode_step returns the cache WITH the new row).",
            _sequence_cache_not_kept,
            hints=("Look at how the cache travels from one step to the next in decode_sequence, and at the cache "
                   "decode_step hands back.",
                   "Inside the loop of decode_sequence, print the number of rows of the cache's K after each "
                   "step: it should grow 1, 2, 3, …, and the final cache should hold n rows.",
                   "Each step has to receive the cache the previous step returned, with its new row: only then "
                   "does token t attend over tokens 0 to t, at position t.")),
    Mistake("new_row_first",
            "the new key and value rows are put in front of the cache (`np.vstack([k, K])`): the cache "
            "must keep the tokens in order, row t for the token at position t, so append at the end: "
            "`np.vstack([K, k])` and `np.vstack([V, v])`. (y_t is the same either way, since attention "
            "does not depend on the order of the keys, but the cache is wrong for every later step.)",
            _new_row_first,
            hints=("Look at where in the cache the new key and value are placed.",
                   "Decode two tokens from `empty_cache` and compare row 0 of the cache's K with the first "
                   "token's key, worked out by hand from its input plus the encoding of position 0: row 0 should "
                   "belong to position 0.",
                   "Row j of the cache belongs to position j: the old rows stay first and the new row comes last. "
                   "y_t alone cannot show this, since attention does not depend on the order of the keys.")),
    Mistake("own_key_left_out",
            "the new token's key and value are appended only after it has attended: its query sees the "
            "t earlier keys but not its own (and the first token, with an empty cache, has nothing to "
            "attend to). Append k_t and v_t first, then attend over all t + 1 rows.",
            _own_key_left_out,
            hints=("Look at which keys the new token's query attends over, and at the moment its own key and "
                   "value join the cache.",
                   "Decode one token from `empty_cache`: it attends to itself alone, so y_0 should be a "
                   "finite vector, the token's own value. Then, on a cache of 3 rows, count the weights: "
                   "there should be 4.",
                   "The new token is part of its own past: its query attends over all t + 1 keys, the t cached "
                   "ones and its own, as the contract says.")),
    Mistake("positions_restart_at_zero",
            "every new token is encoded at position 0 (x_t + PE[0]): the position of the token is the "
            "number of rows already in the cache, t = cache['K'].shape[0], so its input is "
            "x_t + sinusoidal_encoding(t + 1, d_model)[t].",
            _step_variant(position=0, first_step_too=False),
            hints=("Look at the position added to each new token before its projections: where does its "
                   "number come from?",
                   "Call decode_step on a cache of 3 rows and print the row of the positional encoding it "
                   "adds to x_t: it should be the row of position 3, which differs from row 0. On the empty "
                   "cache the two agree.",
                   "The new token's position is the number of rows already in the cache, t: the token that "
                   "follows three cached ones is at position 3.")),
    Mistake("causal_mask_hides_past",
            "a causal mask is applied to the single query, and the row it gets (row 0 of the "
            "(t+1) x (t+1) mask) lets it see key 0 only: every token copies the first token's value. "
            "The new token is the LAST position, and every cached key is in its past: use no mask at "
            "all.",
            _step_variant(only_first_key=True, first_step_too=False),
            hints=("Look at which of the t + 1 keys receive weight from the new token's query.",
                   "On a cache of 3 rows, print the weights of the new token's query: there should be 4, all "
                   "positive and summing to 1. See which keys get weight in yours.",
                   "The new token is the last position, so every cached key is in its past: none of the t + 1 "
                   "keys is hidden, and no mask is needed.")),
    Mistake("scaled_by_d_model",
            "the scores are divided by sqrt(d_model), the dimension of x_t; divide by sqrt(d_k), the "
            "dimension of the query and the keys (`W_q.shape[1]`).",
            _step_variant(scale="d_model", first_step_too=False),
            hints=("Look at the scaling of the scores before the softmax: the square root of which dimension are "
                   "they divided by?",
                   "With `W_q` of shape 6 × 4, so that x_t has 6 features and the query 4, print the number the "
                   "scores are divided by: it should be 2, the square root of 4.",
                   "The scores are dot products of d_k-dimensional queries and keys, so they are divided by √d_k, "
                   "while d_model is the dimension of x_t, before the projections.")),
    Mistake("no_scaling",
            "the scores are not scaled: divide them by sqrt(d_k), the dimension of the query and the keys "
            "(`W_q.shape[1]`), before the softmax (Vaswani et al. 2017, Eq. 1).",
            _step_variant(scale="none", first_step_too=False),
            hints=("Look at the scores between the query and the keys on their way to the softmax: what happens "
                   "to them in between?",
                   "With d_k 4, print the scores your step feeds to the softmax and the plain dot products of the "
                   "query with each key: the scores should be half of them, divided by √4.",
                   "Equation 1 of Vaswani et al. divides the scores by √d_k, so that their spread does not grow "
                   "with the dimension of the queries and keys.")),
    checks.no_max_subtraction(_right_scores),
    Mistake("scaled_by_d_v",
            "the scores are divided by sqrt(d_v), the dimension of the values; divide by sqrt(d_k), the "
            "dimension of the query and the keys (`W_q.shape[1]`).",
            _step_variant(scale="d_v", first_step_too=False),
            hints=("Look at the number the scores are divided by before the softmax: which array "
                   "does it come from?",
                   "With `W_q` of shape 6 × 4 and `W_v` of shape 6 × 3, print the number the scores are divided "
                   "by: it should be 2, the square root of 4 from the queries and keys, not √3 from the values.",
                   "The scaling belongs to the dot product of query and key, a sum of d_k terms. The dimension of "
                   "the values, d_v, plays no part in the scores.")),
    Mistake("returns_single_array",
            "the contract returns a pair: the output and the new cache, a dict holding the keys and values "
            "with the new rows appended: `return y_t, {\"K\": K, \"V\": V}` (decode_sequence: "
            "`return Y, {\"K\": K, \"V\": V}`).",
            lambda record: _SINGLE.detect(record),
            hints=("Look at the return line of your function: how many things does the contract ask "
                   "it to give back?",
                   "Decode one token from `empty_cache` and print the type of what your function returns: it "
                   "should be a pair, the output and a dict holding `K` and `V`, not a single array.",
                   "The next step needs the new cache, so the contract returns both: first the output (y_t, or Y "
                   "for decode_sequence), then the cache with its new rows.")),
    Mistake("position_not_added",
            "the position is not added: the input of the token at position t is x_t + PE[t], with "
            "PE = sinusoidal_encoding(t + 1, d_model), before the projections.",
            _step_variant(position="none"),
            hints=("Look at the input of the three projections: what becomes of x_t before them?",
                   "Decode one token from `empty_cache`: it attends to itself alone, so y_0 should be its value "
                   "computed from x_0 with the encoding of position 0 added, as the visible test checks. Compare "
                   "with the value computed from x_0 alone.",
                   "x_t arrives without its position: the token at position t enters as x_t plus row t of the "
                   "sinusoidal encoding, and that sum gives its query, key and value.")),
]


_SINGLE = next(m for m in checks.CONTRACT_MISTAKES if m.id == "returns_single_array")


# --------------------------------------------------------------------------- checks
def _ref():
    return reference(__name__)


def _unpack(result):
    if isinstance(result, np.ndarray):
        return result     # one array for the pair: the shared returns_single_array names it, then its maths
    if not isinstance(result, (tuple, list)) or len(result) != 2 or not isinstance(result[1], dict) \
            or not {"K", "V"} <= set(result[1]):
        raise ValueError(UNUSABLE)
    return result[0], result[1]["K"], result[1]["V"]


def _flattened(function):
    """The learner's function on deep copies of its dicts, answering (y, K, V)."""
    return lambda *args: _unpack(function(*(copy.deepcopy(a) if isinstance(a, dict) else a for a in args)))


PARTS = (N_("y_t"), N_("the cache's K"), N_("the cache's V"))   # (y, K, V) as the messages call them


# --------------------------------------------------------------------------- stages
# A probe's inputs switch a stage off whatever the learner's code does with them (rows that are all the
# same, keys that are all the same), never through the contract's formula alone (W_q = 0 gives equal
# scores only to code that takes its query from W_q): so what a probe's answer says holds for any code.
def _new_rows(x_t, params, t):
    """The reference's k_t and v_t of a token at position t: (d_k,), (d_v,)."""
    z = np.asarray(x_t, dtype=float) + _encoding(t + 1, np.shape(x_t)[-1])[t]
    return z @ params["W_k"], z @ params["W_v"]


def _cache_like_the_token(values_too):
    """decode_step with every cached key equal to the new token's key (every score the same, whatever
    the query), and with ``values_too`` every cached value equal to its value (y_t = v_t, whatever the
    weights, as long as they sum to 1)."""
    def probe(record):
        x_t, cache, params = record.args
        t = np.shape(cache["K"])[0]
        k, v = _new_rows(x_t, params, t)
        V = np.tile(v, (t, 1)) if values_too else np.asarray(cache["V"], dtype=float)
        return (x_t, {"K": np.tile(k, (t, 1)), "V": V}, params), dict(record.kwargs)
    return probe


def _tokens_alike(record):
    """decode_sequence on tokens that are all the same once their positions are added (x_i = c - PE[i]):
    every key and every value is the same, so y_i = c @ W_v whatever the weights."""
    X, params = record.args
    n, d_model = np.shape(X)
    return (np.asarray(X, dtype=float)[0] - _encoding(n, d_model), params), dict(record.kwargs)


def _scores_zero(record):
    """decode_sequence with W_q = W_k = 0: every score 0, in code that projects its queries or keys."""
    X, params = record.args
    return (X, dict(params, W_q=np.zeros_like(params["W_q"]), W_k=np.zeros_like(params["W_k"]))), dict(record.kwargs)


def _flat_reference(name):
    """The reference's answer to a stage's probe, as (y, K, V) like the record's."""
    return lambda *args: _flattened(getattr(_ref(), name))(*args)


# For a wrong answer that no mistake names: where it shows (the first probe that tells something speaks;
# a message says what the probe observed, and only what follows from that for any code).
STAGES = [
    Stage("decode_step", _cache_like_the_token(values_too=True), reference=_flat_reference("decode_step"),
          wrong=N_("even when every cached row equals the new token's (then y_t = (x_t + PE[t]) @ W_v whatever the "
                   "weights) your step is wrong: check the position added, the new token's key and value, the "
                   "cache returned, and that the weights sum to 1")),
    Stage("decode_step", _cache_like_the_token(values_too=False), reference=_flat_reference("decode_step"),
          right=N_("with every cached key equal to the new token's (all scores equal, whatever the query) your "
                   "step is right: the mistake shows only when the scores differ"),
          wrong=N_("your step is right when every cached row equals the new token's, and wrong when only the keys "
                   "do (all scores equal): the mistake shows when the values differ; check which rows it attends "
                   "over, and that equal scores get equal weights")),
    Stage("decode_sequence", _tokens_alike, reference=_flat_reference("decode_sequence"),
          wrong=N_("even when every token is the same once its position is added (then every y_i = "
                   "(x_i + PE[i]) @ W_v whatever the weights) your sequence is wrong: check the positions added, "
                   "the projections, the cache returned, and that the weights sum to 1")),
    Stage("decode_sequence", _scores_zero, reference=_flat_reference("decode_sequence"),
          right=N_("with W_q = W_k = 0 your sequence is right: the mistake shows only through W_q and W_k (the "
                   "queries, the keys and their scores)")),
]


# The large check's weights are one-hot (every score far from the others): an answer there tells only
# which row won, so a mistake that changes the weights (a left-out key, a mask, a scale, the position of
# the query) is not verified by it.  Only what the returned cache and the form show is named there.
SHOWN_WHERE_ONE_HOT = [m for m in MISTAKES if m.id in ("appended_twice", "cache_not_appended", "new_row_first",
                                                       "no_max_subtraction", "returns_single_array")]


def _judge(record, call, mistakes=MISTAKES):
    record.call = call
    record.parts = PARTS if record.function == "decode_step" else (N_("Y"), N_("the cache's K"),
                                                                   N_("the cache's V"))
    if record.error is not None and UNUSABLE in record.error:
        record.error = checks.UNUSABLE.format(problem=UNUSABLE)
    expect(record, mistakes, stages=STAGES)
    return record.got


def _call_step(decode_step, x_t, cache, params, mistakes=MISTAKES):
    want = _unpack(_ref().decode_step(x_t, copy.deepcopy(cache), params))
    record = attempt(_flattened(decode_step), "decode_step", (x_t, cache, params), want=want,
                     arg_names=("x_t", "cache", "params"))
    d_k, d_v = params["W_q"].shape[1], params["W_v"].shape[1]
    return _judge(record, mistakes=mistakes, call=_("decode_step(x_t, cache, params) with x_t of shape {shape}, a cache of "
                            "t = {rows} rows, d_k = {d_k} and d_v = {d_v}").format(
                                shape=np.shape(x_t), rows=np.shape(cache['K'])[0], d_k=d_k, d_v=d_v))


def _call_sequence(decode_sequence, X, params):
    want = _unpack(_ref().decode_sequence(X, params))
    record = attempt(_flattened(decode_sequence), "decode_sequence", (X, params), want=want,
                     arg_names=("X", "params"))
    d_k, d_v = params["W_q"].shape[1], params["W_v"].shape[1]
    return _judge(record, _("decode_sequence(X, params) with X of shape {shape}, d_k = {d_k} and d_v = {d_v}").format(
        shape=np.shape(X), d_k=d_k, d_v=d_v))


def _params(rng, d_model, d_k, d_v, scale=1.0):
    return {"W_q": rng.normal(scale=scale, size=(d_model, d_k)), "W_k": rng.normal(scale=scale, size=(d_model, d_k)),
            "W_v": rng.normal(size=(d_model, d_v))}


def _cache_of(X, params):
    """The reference cache after decoding the rows of X."""
    return _unpack(_ref().decode_sequence(X, params))[1:]


def check_decode_step(decode_step):
    """Caches of 3, 5 and 9 rows (positions 3, 5, 9), then the empty cache."""
    rng = hidden_inputs("check_decode_step")
    d_model, d_k, d_v = 6, 4, 3
    params = _params(rng, d_model, d_k, d_v, scale=0.7)
    for t in (3, 5, 9):
        X = rng.normal(size=(t + 1, d_model))
        # key 0 is never the new token's best key: copying the first value (a mask that hides the past) is
        # then told from copying the best key's value (a hard argmax), in every draw; and the new token's own
        # key weighs at least 0.2, so that leaving it out (own_key_left_out) changes y_t in every draw
        while np.argmax(_scores(X, params)) == 0 or _softmax(_scores(X, params))[-1] < 0.2:
            X = rng.normal(size=(t + 1, d_model))
        K, V = _cache_of(X[:t], params)
        _call_step(decode_step, X[t], {"K": K, "V": V}, params)
    empty = {"K": np.zeros((0, d_k)), "V": np.zeros((0, d_v))}
    x_0 = rng.normal(size=d_model)
    y_0, K, V = _call_step(decode_step, x_0, empty, params)
    assert np.allclose(y_0, (x_0 + _encoding(1, d_model)[0]) @ params["W_v"], rtol=1e-4, atol=1e-6), (
        _("decode_step: on an empty cache the token attends only to itself, so y_0 = (x_0 + PE[0]) @ W_v"))


def _scores(X, params):
    """The last token's scaled scores over every token of X, positions added: (len(X),)."""
    Z = X + _encoding(X.shape[0], X.shape[1])
    return (Z @ params["W_k"]) @ (Z[-1] @ params["W_q"]) / np.sqrt(params["W_q"].shape[1])


def _own_key_weighs(rng, t, d_model, params):
    """t + 1 large tokens whose last one attends to its own key alone (its scaled score 40 above the
    others, and key 0 not the next best), in every draw: leaving that key out (``own_key_left_out``) always changes y_t, and a
    wrong scale never does (one-hot weights stay one-hot), so the verdict never depends on the draw.  The
    same holds without the positions (code that never adds them, with a wrong scale as well)."""
    scale = np.sqrt(params["W_q"].shape[1])
    for _attempt in range(500):
        X = 12.0 * rng.normal(size=(t + 1, d_model))
        for _growth in range(20):   # large: its own score beyond exp's range (about 710)
            scores = _scores(X, params)
            if scores[t] > 1000.0 or scores[t] <= scores[:t].max():
                break
            X = 1.25 * X
        # ... and, among the earlier keys, its top one is not key 0: leaving its own key out then
        # attends elsewhere than a query that sees key 0 only (``causal_mask_hides_past``)
        bare = (X @ params["W_k"]) @ (X[t] @ params["W_q"]) / scale      # the same without the positions
        if scores[t] > 1000.0 and scores[t] > scores[:t].max() + 40.0 and np.argmax(scores[:t]) != 0 \
                and bare[t] > bare[:t].max() + 40.0:
            return X
    return X


def check_decode_step_large(decode_step):
    """Large inputs: scores in the thousands, where exp overflows without the maximum subtracted."""
    rng = hidden_inputs("check_decode_step_large")
    d_model, d_k, d_v = 8, 5, 3
    params = _params(rng, d_model, d_k, d_v)
    for t in (4, 7):
        X = _own_key_weighs(rng, t, d_model, params)
        K, V = _cache_of(X[:t], params)
        y, K_new, V_new = _call_step(decode_step, X[t], {"K": K, "V": V}, params, mistakes=SHOWN_WHERE_ONE_HOT)
        assert np.all(np.isfinite(y)), _("decode_step: y_t must be finite for large inputs")


def _with_a_score_above(X, params, least):
    """``X`` scaled up until some causal score of X + PE exceeds ``least``."""
    n, d_model = X.shape
    for _attempt in range(40):
        Z = X + _encoding(n, d_model)
        scores = (Z @ params["W_q"]) @ (Z @ params["W_k"]).T / np.sqrt(params["W_q"].shape[1])
        if np.max(np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)) > least:
            return X
        X = 1.25 * X
    return X


def check_decode_sequence(decode_sequence):
    """decode_sequence equals full causal self-attention on X + PE; its cache has n rows."""
    rng = hidden_inputs("check_decode_sequence")
    for n, d_model, d_k, d_v, scale in [(7, 6, 4, 3, 1.0), (5, 10, 3, 7, 1.0), (6, 8, 5, 3, 12.0)]:
        params = _params(rng, d_model, d_k, d_v, scale=0.6)
        X = scale * rng.normal(size=(n, d_model))
        if scale > 1.0:   # large: some score beyond exp's range (about 710) in every draw
            X = _with_a_score_above(X, params, 1000.0)
        Y, K, V = _call_sequence(decode_sequence, X, params)
        Z = X + _encoding(n, d_model)
        scores = (Z @ params["W_q"]) @ (Z @ params["W_k"]).T / np.sqrt(d_k)
        scores = np.where(np.tril(np.ones((n, n), dtype=bool)), scores, -np.inf)
        full = _softmax(scores) @ (Z @ params["W_v"])
        assert np.allclose(Y, full, rtol=1e-4, atol=1e-6), (
            _("decode_sequence: the rows must equal full causal self-attention on X + PE"))
