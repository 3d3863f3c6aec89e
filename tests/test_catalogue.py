"""The misconception catalogues: every mistake is caught and named; correct variants earn full marks.

A wrong implementation is ``tests/submissions/NN_name/wrong/<mistake id>.py``, or
``<mistake id>__<style>.py`` for more of the same mistake written another way (as
people write it in public code); the id is one of the exercise's catalogue or of the
shared mistakes (``checks.SHARED_MISTAKES``: the contract's shapes, ranks and dtypes).
"""
import ast
import dataclasses

import pytest

import helpers
from autograder import checks, engine, hints, notebooks, progress
from autograder.results import NOT_ATTEMPTED

WRONG = helpers.implementations("wrong")
REAL = helpers.implementations("real")
CORRECT = helpers.implementations("correct")
EXERCISES = helpers.EXERCISES


def mistake_id(path):
    """The mistake a wrong implementation must be named by: its file name up to ``__``."""
    return path.stem.split("__")[0]


def known_mistakes(assignment):
    return {m.id: m for m in (*checks.SHARED_MISTAKES, *helpers.catalogue(assignment).MISTAKES)}


def grade(assignment, code):
    return engine.run_tests(helpers.exercise(assignment), helpers.submission(assignment, code), draw=helpers.TEST_DRAW)


def judged_records(assignment, code):
    """(report, every Attempt that the hidden checks judged while grading ``code``)."""
    records = []
    with checks.watching(records.append):
        report = grade(assignment, code)
    return report, records


@pytest.mark.parametrize("assignment, path", WRONG, ids=[f"{a}/{p.stem}" for a, p in WRONG])
def test_catalogued_mistake_loses_points_and_is_named(assignment, path, tmp_path):
    mistake = known_mistakes(assignment)[mistake_id(path)]
    report, records = judged_records(assignment, path.read_text())
    failed = [t for t in report.tests if not t.passed]
    assert report.score < report.max_score, f"{path.name} earned full marks"
    assert any(mistake.message in t.message for t in failed), (
        f"no failed test names the mistake {mistake.id!r}; messages: {[t.message for t in failed]}")
    # The name comes from the mistake's own detector, not from a message written elsewhere.
    assert any(mistake.shown_by(record) for record in records), f"the detector of {mistake.id!r} never fired"
    # Its hints show for it, one at a time, then the last again (``check --hint``, issue 26).
    assert hints_shown(assignment, report, mistake, tmp_path) == [*mistake.hints, mistake.hints[-1]]


def hints_shown(assignment, report, mistake, folder):
    """The hints ``check --hint`` shows, asked for once more than there are, for a failing test that
    names ``mistake`` (as it is shown once the mistakes named before it are fixed)."""
    exercise, notebook = helpers.exercise(assignment), folder / "exercise.ipynb"
    test = next(t for t in report.tests if not t.passed and mistake.id in t.findings)
    alone = dataclasses.replace(report, tests=[dataclasses.replace(
        test, findings=tuple(f for f in test.findings if f == mistake.id))])
    progress.record(notebook, alone, False, None)
    return [hints.next_hint(exercise, alone, notebook).text for _ask in range(len(mistake.hints) + 1)]


@pytest.mark.parametrize("assignment, path", CORRECT, ids=[f"{a}/{p.stem}" for a, p in CORRECT])
def test_correct_alternative_earns_full_marks(assignment, path):
    report, records = judged_records(assignment, path.read_text())
    assert report.score == report.max_score > 0, [t.message for t in report.tests if not t.passed]
    mistakes = (*helpers.catalogue(assignment).MISTAKES, *checks.SHARED_MISTAKES)
    fired = {(m.id, r.call) for r in records for m in mistakes if m.shown_by(r)}
    assert not fired, f"detectors fire on a correct implementation: {sorted(fired)[:5]}"


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.assignment)
def test_every_catalogued_mistake_has_a_wrong_implementation(exercise):
    mistakes = [m.id for m in exercise.catalogue.MISTAKES]
    assert len(mistakes) == len(set(mistakes)), f"a mistake id is used twice: {mistakes}"
    kept = {mistake_id(p) for a, p in WRONG if a == exercise.assignment}
    assert set(mistakes) <= kept, f"mistakes without a wrong implementation: {set(mistakes) - kept}"
    assert kept <= set(known_mistakes(exercise.assignment)), (
        f"files named after no mistake: {kept - set(known_mistakes(exercise.assignment))}")
    assert len({p.stem for a, p in CORRECT if a == exercise.assignment}) >= 2


@pytest.mark.parametrize("exercise", EXERCISES, ids=lambda e: e.assignment)
def test_reference_full_marks_and_untouched_release_zero(exercise):
    source = exercise.source
    assert grade(exercise.assignment, "\n\n".join(
        c.source for c in source.notebook.cells
        if c.cell_type == "code" and notebooks.meta(c).get("solution"))).score == \
        sum(t.points for t in source.tests)
    report = engine.run_tests(exercise, helpers.release_notebook(exercise.assignment), draw=helpers.TEST_DRAW)
    assert report.score == 0 and report.max_score > 0
    assert all("not implemented yet" in t.message for t in report.tests), [t.message for t in report.tests]


def test_masked_weight_not_zero_is_one_entry_wherever_masks_occur():
    """The same catalogue entry (id and message) in every exercise whose functions take a mask."""
    with_masks = {"06_scaled", "07_self_attention", "08_multi_head"}
    for exercise in EXERCISES:
        entries = [m for m in exercise.catalogue.MISTAKES if m.id == "masked_weight_not_zero"]
        if exercise.assignment in with_masks:
            assert [m.message for m in entries] == [checks.MASKED_WEIGHT_NOT_ZERO], exercise.assignment
        assert all(m.message == checks.MASKED_WEIGHT_NOT_ZERO for m in entries)


def test_every_shared_mistake_has_a_wrong_implementation():
    """Each contract-shape mistake of checks.form is shown by some exercise's wrong implementation."""
    kept = {mistake_id(p) for _, p in WRONG}
    assert {m.id for m in checks.SHARED_MISTAKES} <= kept, {m.id for m in checks.SHARED_MISTAKES} - kept


def _failed_messages(assignment, name):
    report = grade(assignment, (helpers.SUBMISSIONS / assignment / "wrong" / name).read_text())
    return {t.grade_id: t.message for t in report.tests if not t.passed}


def test_a_crash_does_not_hide_the_mistakes_of_the_other_calls():
    """The unbatched call crashes; the batched calls of the same test still run and name the bug."""
    messages = _failed_messages("08_multi_head", "split_no_transpose__fixed_rank.py")
    split = messages["test_split_heads"]
    assert "raised ValueError: not enough values to unpack" in split
    assert known_mistakes("08_multi_head")["split_no_transpose"].message in split


def test_the_learner_function_that_raised_is_named_with_its_line():
    messages = _failed_messages("08_multi_head", "fixed_rank__split_transpose_0213.py")
    assert "in your split_heads at `batch, seq, d_model = X.shape`" in messages["test_multi_head_self"]
    assert "works with one batch axis and fails with no batch axis and with two batch axes" in (
        messages["test_multi_head_self"])


def test_a_test_message_is_one_bounded_line():
    found = [(f"mistake {i}", f"call {i}: " + "x" * 900) for i in range(6)]
    text = checks.summary(found, "the test's own assertion")
    assert "\n" not in text and len(text) < 2000 and "more different problems" in text
    assert text.startswith("call 0: ")


def declared(path, field="Names"):
    """The ids a real-pattern implementation declares in its docstring: ``Names:`` (the mistakes it
    makes that the grader names) or ``Localised:`` (those it makes that the grader only localises)."""
    doc = ast.get_docstring(ast.parse(path.read_text())) or ""
    line = next((line for line in doc.splitlines() if line.startswith(field + ":")), field + ": -")
    return {name.strip() for name in line.split(":", 1)[1].split(",") if name.strip() not in ("", "-")}


@pytest.mark.parametrize("assignment, path", REAL, ids=[f"{a}/{p.stem}" for a, p in REAL])
def test_real_pattern_gets_every_name_it_declares_and_no_other(assignment, path):
    """Code as people write it (tests/submissions/*/real/: several mistakes at once, the contract's form
    broken, other constants): each mistake its docstring names is named, and no mistake it does not
    make; the rest is localised (README.md there counts them)."""
    names, localised = declared(path), declared(path, "Localised")
    assert names | localised <= set(known_mistakes(assignment)), (names | localised) - set(known_mistakes(assignment))
    assert names or localised, "a real pattern declares its mistakes"
    report = grade(assignment, path.read_text())
    found = {finding for t in report.tests for finding in t.findings} - {NOT_ATTEMPTED}
    assert report.score < report.max_score
    assert not found - names, f"named, but not made: {sorted(found - names)}"
    assert not names - found, f"made, but not named: {sorted(names - found)}; " + " || ".join(
        t.message for t in report.tests if not t.passed)[:1500]


# ------------------------------------------------------------ what the independent breaker found (issue 25)
SOFTMAX = "def softmax(x, axis=-1):\n    e = np.exp(x - x.max(axis=axis, keepdims=True))\n    return e / e.sum(axis=axis, keepdims=True)\n"
BROKEN = [
    # a constant divisor that equals sqrt(Q.shape[1]) in some calls is no d_k read from a fixed axis
    ("06_scaled", "scaled_dot_product_attention", """
def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ np.swapaxes(K, -1, -2) / 2.0
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    W = softmax(S, axis=-1)
    return W @ V, W
""", set(), "the output has wrong values"),
    # NaN from a mask multiplied in (inf - inf) on small scores is no overflow
    ("06_scaled", "scaled_dot_product_attention", """
def scaled_dot_product_attention(Q, K, V, mask=None):
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        S = S * np.where(mask, 1.0, -np.inf)
    W = softmax(S, axis=-1)
    return W @ V, W
""", set(), "contains NaN or inf"),
    # only the weights transposed: not "row-convention results" for both parts
    ("04_dot_product", "dot_product_attention_columns", """
def dot_product_attention_columns(Q, K, V):
    A = softmax(K.T @ Q, axis=0)
    return V @ A, A.T
""", {"weights_transposed"}, None),
    # the output alone, and wrong: both said
    ("04_dot_product", "dot_product_attention", """
def dot_product_attention(Q, K, V):
    W = softmax(Q @ K.T / 2.0, axis=-1)
    return W @ V
""", {"returns_single_array"}, "the output has wrong values"),
    # an input changed in place, and a wrong answer: both said
    ("04_dot_product", "dot_product_attention", """
def dot_product_attention(Q, K, V):
    V -= V.mean(axis=0)
    W = softmax(Q @ K.T, axis=-1)
    return W @ V, W
""", {"modifies_input"}, "the output has wrong values"),
    # (H, None): a tuple whose second part is None is still a tuple, its first part the answer
    ("02_seq2seq", "rnn_encoder", """
def rnn_encoder(X, W_xh, W_hh, b_h, h0=None):
    h = np.zeros(W_hh.shape[0]) if h0 is None else h0
    states = []
    for x in X:
        h = np.tanh(x @ W_xh + h @ W_hh + b_h)
        states.append(h)
    return np.array(states), None
""", {"returns_tuple"}, "its first value is the right answer"),
    # a list [output, weights] is the pair, as in a notebook kernel
    ("04_dot_product", "dot_product_attention", """
def dot_product_attention(Q, K, V):
    W = softmax(Q @ K.T, axis=-1)
    return [W @ V, W]
""", set(), "must return (output, weights)"),   # the hidden checks accept it; the visible test, as in a kernel, not
    # second round: d_k read from the axis before the last (counted from the end) is no fixed axis
    ("06_scaled", "scaled_dot_product_attention", """
def scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-2]
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_k)
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    W = softmax(S, axis=-1)
    return W @ V, W
""", set(), "the output has wrong values"),
    # second round: rotary code for (n, d) and one batch axis is a fixed rank, not "(n, d) only"
    ("10_positions", "apply_rotary", """
def _rotate(X, positions):
    n, d = X.shape
    theta = 10000.0 ** (-np.arange(0, d, 2) / d)
    angles = np.asarray(positions, dtype=float)[:, None] * theta[None, :]
    cos, sin = np.cos(angles), np.sin(angles)
    out = np.empty_like(X, dtype=float)
    out[:, 0::2] = X[:, 0::2] * cos - X[:, 1::2] * sin
    out[:, 1::2] = X[:, 0::2] * sin + X[:, 1::2] * cos
    return out

def apply_rotary(X, positions):
    X = np.asarray(X, dtype=float)
    if X.ndim == 3:
        return np.stack([_rotate(x, positions) for x in X])
    return _rotate(X, positions)
""", {"fixed_rank"}, None),
    # an exception that cannot describe itself is still the learner's one-line reason
    ("04_dot_product", "dot_product_attention", """
class Opaque(Exception):
    def __str__(self):
        raise RuntimeError("no description")

def dot_product_attention(Q, K, V):
    raise Opaque()
""", set(), "raised Opaque"),
]


@pytest.mark.parametrize("assignment, function, code, names, text", BROKEN,
                         ids=[f"{a}/{i}" for i, (a, *_rest) in enumerate(BROKEN)])
def test_what_the_breaker_found_is_named_truly(assignment, function, code, names, text):
    report = grade(assignment, SOFTMAX + code)
    found = {finding for t in report.tests for finding in t.findings} - {NOT_ATTEMPTED}
    assert found == names, [t.message for t in report.tests if not t.passed]
    messages = " | ".join(t.message for t in report.tests if not t.passed)
    if text is not None:
        assert text in messages, messages
    assert "exited" not in messages and "Traceback" not in messages
    if not names and text is None:   # a right answer in another form: full marks
        assert report.score == report.max_score, messages


def test_a_correct_float32_answer_passes_where_an_entry_is_near_zero():
    """CI, issue 25: on two draws a correct float32 multi-head attention failed, an output entry near 0
    being off by 1e-6 like every other; the absolute tolerance now grows with the answer's scale."""
    import numpy as np
    from autograder.catalogue import multi_head
    namespace = {"np": np}
    exec((helpers.SUBMISSIONS / "08_multi_head" / "correct" / "loops_over_heads_float32.py").read_text(), namespace)
    for draw in ("self-check:f70", "self-check:f1804"):
        with checks.grading(helpers.exercise("08_multi_head"), draw=draw):
            multi_head.check_mha_cross(namespace["multi_head_attention"])


# ------------------------------------------------------------ a mistake no catalogue names: its stage (issue 25)
ENCODER = """
def rnn_encoder(X, W_xh, W_hh, b_h, h0=None):
    h = np.zeros(W_hh.shape[0]) if h0 is None else h0
    states = []
    for x in X:
        h = {update}
        states.append(h)
    return np.array(states)

def fixed_context(H):
    return H[-1]
"""
STEP = """
def decode_step(x_t, cache, params):
    t = cache["K"].shape[0]
    z = x_t + sinusoidal_encoding({positions}, len(x_t))[{position}]
    q, k, v = z @ params["{query}"], z @ params["W_k"], z @ params["W_v"]
    K, V = np.vstack([cache["K"], k]), np.vstack([cache["V"], v])
    scores = {scores}
    return {weights} @ {values}, {{"K": K, "V": V}}

def decode_sequence(X, params):
    cache = empty_cache(params["W_k"].shape[1], params["W_v"].shape[1])
    rows = []
    for x in X:
        y, cache = decode_step(x, cache, params)
        rows.append(y)
    return np.array(rows), cache
"""
RIGHT_STEP = dict(positions="t + 1", position="t", query="W_q", scores="K @ q / np.sqrt(len(q))",
                  weights="softmax(scores)", values="V")
MULTI_HEAD = """
def multi_head_attention(X_q, X_kv, W_q, W_k, W_v, W_o, num_heads, mask=None):
    Q, K, V = (split_heads(X @ W, num_heads) for X, W in ((X_q, {query}), (X_kv, W_k), (X_kv, W_v)))
    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = np.where(np.expand_dims(mask, -3), scores, -np.inf)
    weights = {weights}
    return merge_heads(weights @ V) @ W_o, weights
"""
BLOCK = """
def transformer_block(X, params, causal=False):
    p = params
    A, weights = multi_head_attention(X, X, p["W_q"], p["W_k"], p["W_v"], p["W_o"], p["num_heads"],
                                      causal_mask(X.shape[-2]) if causal else None)
    H = layer_norm(X + A, p["gamma_1"], p["beta_1"])
    return layer_norm(H + {ffn}(H @ p["W_1"] + p["b_1"]) @ p["W_2"] + p["b_2"], p["gamma_2"], p["beta_2"]), weights
"""
STAGED = [
    # issue 25's own cases, and what the breakers found (rounds 3 and 4): a probe's message says what it
    # observed and only what follows from that for any code; None: no probe may speak
    ("02_seq2seq", ENCODER.format(update="np.tanh(x @ W_xh + 0.5 * (h @ W_hh) + b_h)"),
     "with one input row and no h0 your state is right: the mistake shows only from the second step on"),
    ("02_seq2seq", ENCODER.format(update="np.tanh(x @ W_xh + h + b_h)"),          # the recurrence without W_hh
     "with one input row and no h0 your state is right: the mistake shows only from the second step on"),
    ("02_seq2seq", ENCODER.format(update="np.tanh(x @ W_xh + h @ W_hh) + b_h"), "the mistake shows through the bias b_h"),
    ("02_seq2seq", ENCODER.format(update="np.tanh(2.0 * (x @ W_xh) + h @ W_hh + b_h)"),
     "even with one input row, no h0 and b_h = 0 your state is wrong"),
    ("02_seq2seq", ENCODER.format(update="0.5 * h + 0.5 * np.tanh(x @ W_xh + h @ W_hh + b_h)"),   # a leaky update
     "even with one input row, no h0 and b_h = 0 your state is wrong"),
    ("02_seq2seq", ENCODER.replace("np.zeros(W_hh.shape[0])", "np.full(W_hh.shape[0], 0.5)").format(   # h0's default
        update="np.tanh(x @ W_xh + h @ W_hh + b_h)"), "the mistake shows in the first step already"),
    ("12_kv_cache", STEP.format(**dict(RIGHT_STEP, scores="K @ q / len(q)")),
     "with every cached key equal to the new token's (all scores equal, whatever the query) your step is right"),
    ("12_kv_cache", STEP.format(**dict(RIGHT_STEP, query="W_k")),                 # the query from W_k
     "with every cached key equal to the new token's (all scores equal, whatever the query) your step is right"),
    ("12_kv_cache", STEP.format(**dict(RIGHT_STEP, values="V[-2:]", scores="K[-2:] @ q / np.sqrt(len(q))")),
     "the mistake shows when the values differ"),
    ("12_kv_cache", STEP.format(**dict(RIGHT_STEP, weights="np.eye(len(scores))[np.argmax(scores)]")),   # argmax
     "the mistake shows when the values differ"),
    ("12_kv_cache", STEP.format(**dict(RIGHT_STEP, weights="(np.exp(scores - scores.max()) / np.exp(scores).sum())")),
     "even when every cached row equals the new token's"),
    ("12_kv_cache", STEP.format(**dict(RIGHT_STEP, positions="t + 2", position="t + 1")),
     "even when every token is the same once its position is added"),
    ("12_kv_cache", STEP.format(**dict(RIGHT_STEP, scores="(lambda s: (s - s.mean()) / s.std() if len(s) > 1 else s)(K @ q)")),
     None),   # standardised scores: NaN where every score is equal, in the probes alone
    ("08_multi_head", MULTI_HEAD.format(query="W_k", weights="softmax(scores, axis=-1)"),
     "with W_q = W_k = 0 your answer is right: the mistake shows only through W_q and W_k"),
    ("08_multi_head", MULTI_HEAD.format(query="W_q", weights="softmax(scores, axis=-1)").replace(
        "scores = Q @ np.swapaxes(K, -1, -2)", "scores = split_heads(X_q, num_heads) @ np.swapaxes("
        "split_heads(X_kv, num_heads), -1, -2)"), None),   # scores without projections: no mask to blame
    ("08_multi_head", MULTI_HEAD.format(query="W_q", weights="softmax(scores, axis=-1)").replace(
        "np.expand_dims(mask, -3), scores", "(np.arange(scores.shape[-3]) > 0)[:, None, None] | "
        "np.expand_dims(mask, -3), scores"), "the mistake shows only with several heads"),   # head 0 masked only
    ("11_transformer", BLOCK.format(ffn="np.tanh"), "with the feed-forward network switched off"),
]


@pytest.mark.parametrize("assignment, code, stage", STAGED, ids=[f"{a}/{i}" for i, (a, *_rest) in enumerate(STAGED)])
def test_a_mistake_no_catalogue_names_is_localised_to_its_stage(assignment, code, stage):
    """Deliverable 2 of issue 25: a composite function's wrong answer that no mistake explains is probed
    with inputs that switch the other stages off, and the report says which stage goes wrong."""
    report = grade(assignment, code)
    found = {finding for t in report.tests for finding in t.findings} - {NOT_ATTEMPTED}
    messages = " | ".join(t.message for t in report.tests if not t.passed)
    assert report.score < report.max_score and not found, (found, messages)
    if stage is None:
        assert "the mistake shows" not in messages and "check the" not in messages, messages
    else:
        assert stage in messages, messages
