"""Exercise 11, the Transformer block: hidden checks and the misconception catalogue.

Each hidden test cell of ``solutions/11_transformer/transformer.ipynb`` calls
one ``check_*`` function below with the learner's ``layer_norm`` or
``transformer_block``.  Inputs are random (seeded) and chosen so that no
mistake can hide: ``n`` differs from ``d`` (normalising over the positions
gives other numbers), rows have small spread next to large ones (with a
standard deviation of 0.001, ``eps`` outside the square root is far off) and
one call passes its own ``eps``; ``gamma`` and ``beta`` are random and
different; in the block ``d_ff``, ``d_model`` and ``d_head`` all differ, the
two normalisations have different parameters, the FFN has non-zero biases,
one batch holds large inputs (scores in the thousands, where a softmax
without its maximum subtracted overflows), and every block check has a token
of small spread (``_quiet_token``), so that layer_norm's eps shows in the block.  A wrong answer is matched against
``MISTAKES`` in order; the first symptom that fits names the mistake.  Every
mistake has a wrong implementation in ``tests/submissions/11_transformer/``.

The params dict is copied before each call (so a learner's function that
changes it cannot change what the mistake models see), and the call is
described by its shapes (the dict itself would print every array).
"""
import copy

import numpy as np

from ..checks import rng as hidden_inputs
from ..checks import (Batched, Fit, Mistake, Stage, attempt, close, expect, formula, learner_function, masked_weight_not_zero,
                      reference, reproduces, weights_sum_to_one)
from ..checks import softmax as _softmax
from ..i18n import N_, _


# --------------------------------------------------------------------------- mistaken formulas
def _layer_norm(X, gamma, beta, eps=1e-5, *, axis=-1, ddof=0, eps_outside=False, root=True):
    X = np.asarray(X, dtype=float)
    mean = X.mean(axis=axis, keepdims=True)
    var = X.var(axis=axis, keepdims=True, ddof=ddof)
    if eps_outside:
        spread = np.sqrt(var) + eps
    else:
        spread = np.sqrt(var + eps) if root else var + eps
    return (X - mean) / spread * gamma + beta


def _ln_args(record):
    X, gamma, beta = (np.asarray(a, dtype=float) for a in record.args[:3])
    eps = record.args[3] if len(record.args) > 3 else record.kwargs.get("eps", 1e-5)
    return X, gamma, beta, eps


def _ln_model(record, eps_used=None, **options):
    """What layer_norm returns under mistaken options; ``eps_used``: an eps of its own, whatever is passed."""
    X, gamma, beta, eps = _ln_args(record)
    return _layer_norm(X, gamma, beta, eps if eps_used is None else eps_used, **options)


def _ln_variant(**options):
    return formula(_ln_model, "layer_norm", **options)


# The eps values found in public code: PyTorch's and most tutorials' 1e-5 is the contract's; Keras and
# the Annotated Transformer use 1e-6 (or 1e-3 in old Keras), BERT 1e-12, others 1e-8 or none at all.
EPS_SEEN = (1e-6, 1e-12, 1e-8, 1e-3, 1e-7, 1e-9, 1e-10, 1e-11, 1e-4, 1e-2, 1e-13, 1e-14, 1e-15, 0.0)
EPS_FITTED = Fit(EPS_SEEN, N_("your answers fit eps = {value:g}"))


def _ln_wrong_axis(record):
    if record.function != "layer_norm" or record.got is None:
        return False
    X, gamma, beta, eps = _ln_args(record)
    # over the positions (axis -2) or over axis 0: with gamma and beta broadcast over the rows
    return any(close(record.got, _layer_norm(X, gamma, beta, eps, axis=axis)) for axis in {0, -2} if X.ndim >= 2)


def _ln_swapped(record):
    if record.function != "layer_norm" or record.got is None:
        return False
    X, gamma, beta, eps = _ln_args(record)
    return close(record.got, _layer_norm(X, beta, gamma, eps))


def _ln_missing(which):
    def detect(record):
        if record.function != "layer_norm" or record.got is None:
            return False
        X, gamma, beta, eps = _ln_args(record)
        return close(record.got, _layer_norm(X, np.ones_like(gamma) if which == "gamma" else gamma,
                                             np.zeros_like(beta) if which == "beta" else beta, eps))
    return detect


def _mha(X_q, X_kv, p, mask, scale="d_head", average=False):
    """Multi-head attention (exercise 08) with one mistaken option."""
    h = int(p["num_heads"])

    def split(Z):
        *lead, n, d = Z.shape
        return np.swapaxes(Z.reshape(*lead, n, h, d // h), -3, -2)

    Q, K, V = split(X_q @ p["W_q"]), split(X_kv @ p["W_k"]), split(X_kv @ p["W_v"])
    d_model = Q.shape[-1] * h
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(d_model if scale == "d_model" else Q.shape[-1])
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    A = _softmax(S)
    heads = A @ V
    *lead, _, n, d_head = heads.shape
    out = np.swapaxes(heads, -3, -2).reshape(*lead, n, h * d_head) @ p["W_o"]
    return out, (A.mean(axis=-3) if average else A)


def _block(record, *, norm="post", residual_1=True, residual_2=True, ffn_input="H", ln_swap=False,
           relu="hidden", scale="d_head", use_mask=True, average=False, ffn_first=False, ln=None,
           learner_norm=False):
    """What transformer_block returns for the record's inputs under mistaken options; with
    ``learner_norm``, normalised by the learner's own layer_norm (the block isolated from it)."""
    X = np.asarray(record.args[0], dtype=float)
    p = record.args[1]
    causal = bool(record.kwargs.get("causal", record.args[2] if len(record.args) > 2 else False))
    n = X.shape[-2]
    mask = np.tril(np.ones((n, n), dtype=bool)) if causal and use_mask else None
    g1, b1, g2, b2 = (np.asarray(p[k], dtype=float) for k in ("gamma_1", "beta_1", "gamma_2", "beta_2"))
    if ln_swap:
        g1, b1, g2, b2 = g2, b2, g1, b1

    def attend(Z):
        return _mha(Z, Z, p, mask, scale, average)

    def ffn(Z):
        pre = Z @ p["W_1"] + p["b_1"]
        if relu == "none":
            return pre @ p["W_2"] + p["b_2"]
        if relu == "output":
            return np.maximum(0.0, pre @ p["W_2"] + p["b_2"])
        return np.maximum(0.0, pre) @ p["W_2"] + p["b_2"]

    normalise = _learner_layer_norm(record) if learner_norm else (
        lambda Z, gamma, beta: _layer_norm(Z, gamma, beta, **(ln or {})))

    def ln1(Z):
        return normalise(Z, g1, b1)

    def ln2(Z):
        return normalise(Z, g2, b2)

    if norm == "pre":
        A, weights = attend(ln1(X))
        H = X + A
        return H + ffn(ln2(H)), weights
    if norm == "inside":                                   # x + LN(Sublayer(x))
        A, weights = attend(X)
        H = X + ln1(A)
        return H + ln2(ffn(H)), weights
    if ffn_first:
        H = ln1(X + ffn(X))
        A, weights = attend(H)
        return ln2(H + A), weights
    A, weights = attend(X)
    H = ln1(X + A if residual_1 else A)
    F = ffn(H if ffn_input == "H" else X)
    return ln2(H + F if residual_2 else F), weights


def _block_variant(**options):
    return formula(_block, "transformer_block", **options)


def _learner_layer_norm(record):
    """The learner's own layer_norm, as the block's model calls it: each answer kept with the record
    (``probed``), so that copies of the record without the learner's function still see it."""
    answers = record.probed.setdefault("layer_norm", {})
    function = learner_function(record, "layer_norm")

    def layer_norm(Z, gamma, beta):
        key = (Z.shape, Z.tobytes(), gamma.tobytes(), beta.tobytes())
        if key not in answers:
            if function is None:
                raise LookupError("the learner's layer_norm is not at hand")
            answers[key] = np.asarray(function(Z.copy(), gamma.copy(), beta.copy()), dtype=float)
        return answers[key]
    return layer_norm


# The layer normalisation mistakes, as they show inside a block that normalises on its own.
BLOCK_NORMS = {N_("over the positions (axis -2)"): {"axis": -2}, N_("with the sample variance (ddof=1)"): {"ddof": 1},
               N_("with eps outside the square root"): {"eps_outside": True},
               N_("dividing by the variance instead of the standard deviation"): {"root": False}}


def _block_norm_wrong(record):
    if record.function != "transformer_block" or record.got is None:
        return False
    for how, options in BLOCK_NORMS.items():
        if reproduces(record, _block(record, ln=options)):
            return _("the block normalises {how}").format(how=_(how))
    return False


def _causal(record):
    return record.function == "transformer_block" and bool(
        record.kwargs.get("causal", record.args[2] if len(record.args) > 2 else False))


def _causal_ignored(record):
    return _causal(record) and reproduces(record, _block(record, use_mask=False))


def _visible(record):
    """The causal mask of a causal block (None for any other call)."""
    if not _causal(record):
        return None
    n = np.shape(record.args[0])[-2]
    return np.tril(np.ones((n, n), dtype=bool))


MISTAKES = [
    Mistake("ln_wrong_axis",
            "the mean and variance are taken over the wrong axis (over the positions, axis 0 or -2): "
            "layer normalisation normalises each token's vector over its own d features, "
            "`X.mean(axis=-1, keepdims=True)` and `X.var(axis=-1, keepdims=True)`, so that a token's "
            "result never depends on the other tokens.",
            _ln_wrong_axis,
            hints=("Look at the two statistics of layer_norm, the mean and the variance: over which axis of `X` "
                   "is each one taken?",
                   "Call layer_norm on a 3 × 4 array with `gamma` all ones and `beta` all zeros, and take the "
                   "mean of each row of the result: every row should have mean 0. Then change one row of the "
                   "input: the other rows of the result should stay the same.",
                   "Layer normalisation works per token: each row is normalised over its own d features, the last "
                   "axis, so a token's result never depends on the other tokens or on the batch.")),
    Mistake("ln_sample_variance",
            "the variance is the sample variance (divided by d - 1, `ddof=1`). Layer normalisation uses "
            "the population variance of the row, divided by d: `X.var(axis=-1)` (NumPy's default "
            "`ddof=0`; note that `pandas` and `torch.var` default to d - 1).",
            _ln_variant(ddof=1),
            hints=("Look at the variance in layer_norm: what is the sum of the squared deviations from the "
                   "mean divided by?",
                   "Normalise the row 0, 10, 0, 10 with `gamma` all ones and `beta` all zeros: its mean is 5 "
                   "and its variance, divided by d, is 25, so the result should be −1, 1, −1, 1. Compare with "
                   "what yours gives.",
                   "In the chapter's formula σ² is the population variance of the row, the mean of the "
                   "squared deviations over all d features (divided by d, not d − 1), which is NumPy's "
                   "default `ddof` of 0.")),
    Mistake("ln_eps_outside_sqrt",
            "eps is added outside the square root, `/ (std + eps)`: it belongs inside, "
            "`/ np.sqrt(var + eps)`. The two differ most where a row's spread is small (the tests include rows with a "
            "standard deviation of 0.001).",
            _ln_variant(eps_outside=True),
            hints=("Look at the denominator of layer_norm: at which point does `eps` enter, before or after "
                   "the square root?",
                   "Normalise the row 1, 1.001, 1, 1.001 (standard deviation 0.0005) with `gamma` all ones and "
                   "`beta` all zeros: the chapter's formula gives about −0.156 and 0.156 there. Compare with "
                   "yours: rows of small spread are where the place of `eps` shows.",
                   "In the chapter's formula ε sits under the square root, next to σ²: the denominator is the "
                   "square root of σ² + ε, which also keeps a constant row finite.")),
    Mistake("ln_no_square_root",
            "the centred row is divided by the variance, not by the standard deviation: divide by "
            "`np.sqrt(var + eps)`, so that the result has variance 1.",
            _ln_variant(root=False),
            hints=("Look at what layer_norm divides the centred row by: is that quantity in the "
                   "same units as `X`?",
                   "With `gamma` all ones and `beta` all zeros, normalise the row 0, 10, 0, 10 and the same row "
                   "doubled, 0, 20, 0, 20: both should give −1, 1, −1, 1, since scaling a row does not change its "
                   "normalised form. Compare with yours.",
                   "The normalised row should have variance 1: that takes a division by the standard deviation, "
                   "the square root of σ² + ε, not by σ² + ε itself.")),
    Mistake("ln_eps_value",
            "layer_norm's eps is not the contract's: its default is eps=1e-5 (`def layer_norm(X, gamma, beta, "
            "eps=1e-5)`), and an eps that is passed must be used. Libraries differ (Keras 1e-3 or 1e-6, BERT "
            "1e-12); this contract follows PyTorch's `nn.LayerNorm`.",
            formula(_ln_model, "layer_norm", pairs=False, eps_used=EPS_FITTED),
            hints=("Look at `eps` in layer_norm: its default value in the signature, and whether the body uses "
                   "the `eps` it is given.",
                   "On a row of tiny spread, such as 1, 1.001, 1, 1.001, call layer_norm with no `eps`, with "
                   "`eps` 1e-5 and with `eps` 0.01: the first two results should be the same, and the third "
                   "clearly different from them.",
                   "The contract fixes the default at 1e-5, the value of PyTorch's LayerNorm, and an `eps` "
                   "passed in the call is the one to use. Libraries differ, so a value remembered from elsewhere "
                   "may not be this one.")),
    Mistake("ln_gamma_beta_swapped",
            "gamma and beta are swapped: gamma is the scale (it multiplies the normalised row) and beta "
            "the shift (it is added): `x_hat * gamma + beta`.",
            _ln_swapped,
            hints=("Look at the last step of layer_norm, where `gamma` and `beta` are applied: which of the two "
                   "scales the normalised row, and which shifts it?",
                   "Normalise the row 0, 10, 0, 10 with `gamma` all 2 and `beta` all zeros: the result should be "
                   "−2, 2, −2, 2, the normalised row doubled. Compare with yours.",
                   "In the chapter's formula γ multiplies the normalised row feature by feature, and β is added "
                   "afterwards: γ is the learned scale, β the learned shift.")),
    Mistake("ln_no_gamma",
            "gamma is not applied: after normalising, multiply by the learned scale, `x_hat * gamma + beta`.",
            _ln_missing("gamma"),
            hints=("Look at the last step of layer_norm: does the normalised row meet both learned parameters, "
                   "`gamma` and `beta`?",
                   "Normalise the row 0, 10, 0, 10 with `gamma` all 3 and `beta` all zeros: the result should be "
                   "−3, 3, −3, 3. Compare with yours.",
                   "After normalising, layer normalisation multiplies by a learned scale γ, feature by feature, "
                   "and then adds the shift β. Both are part of the result.")),
    Mistake("ln_no_beta",
            "beta is not added: after normalising and scaling, add the learned shift, `x_hat * gamma + beta`.",
            _ln_missing("beta"),
            hints=("Look at the end of layer_norm, after the scaling by `gamma`: is the row finished there?",
                   "Normalise the constant row 2, 2, 2, 2 with `gamma` all ones and any nonzero `beta`: the "
                   "result should be `beta` itself, as the visible test checks. Compare with yours.",
                   "A constant row normalises to zeros, and the learned shift β is what remains: layer "
                   "normalisation adds β to every normalised row, after the scale γ.")),
    Mistake("block_right_but_layer_norm",
            "the block itself is right except for its normalisations, which give your layer_norm's "
            "answers: correct layer_norm (its own test shows where it goes wrong), and the block's "
            "normalisation too if it does not call layer_norm, and this test passes.",
            formula(_block, "transformer_block", isolates=True, learner_norm=True),
            hints=("Look at your layer_norm and at how the block normalises: does layer_norm pass its own test?",
                   "Compare your layer_norm with the chapter's formula worked out by hand on a few rows, such as "
                   "0, 10, 0, 10 (which should become −1, 1, −1, 1 with `gamma` all ones and `beta` all zeros) "
                   "and a row of tiny spread: the block gives exactly what your normalisation gives.",
                   "The rest of the block already computes what it should from the results of its normalisations: "
                   "once they are the contract's layer normalisation, this test passes too.")),
    Mistake("pre_norm",
            "this is the pre-norm block, x + Sublayer(LayerNorm(x)). The exercise asks for the post-norm "
            "block of the paper, LayerNorm(x + Sublayer(x)): H = LN_1(X + MultiHead(X)), "
            "out = LN_2(H + FFN(H)); attention sees X itself, not LN_1(X).",
            _block_variant(norm="pre"),
            hints=("Look at where the two layer normalisations sit in your block: before each sub-layer, or after "
                   "its residual sum?",
                   "Run your block with `gamma_2` all ones and `beta_2` all zeros and take the mean of each row "
                   "of out: a post-norm block ends with a normalisation, so every row mean should be 0, as the "
                   "visible test checks.",
                   "The exercise asks for the post-norm block of Vaswani et al.: each sub-layer reads its input "
                   "as it is (attention reads X itself), and the normalisation comes after the residual sum, "
                   "closing the sub-layer.")),
    Mistake("residual_after_norm",
            "each sub-layer's output is normalised before the residual is added, x + LayerNorm(Sublayer(x)). "
            "In the post-norm block the residual sum comes first and is then normalised: "
            "H = LN_1(X + A), out = LN_2(H + FFN(H)).",
            _block_variant(norm="inside"),
            hints=("Look at the order of the two steps that wrap each sub-layer: the residual sum and the "
                   "layer normalisation.",
                   "Run your block with `gamma_2` all ones and `beta_2` all zeros: a block that ends with a "
                   "normalisation gives rows of out with mean 0. Then print H inside the block: with `gamma_1` "
                   "ones and `beta_1` zeros its rows should have mean 0 as well.",
                   "In the post-norm block the sub-layer's output is first added to the sub-layer's input, and "
                   "the normalisation is applied to that sum.")),
    Mistake("missing_residual_attention",
            "the residual connection around attention is missing: H = LN_1(A) instead of LN_1(X + A). "
            "Add the block's input to the attention output before the first normalisation.",
            _block_variant(residual_1=False),
            hints=("Look at what goes into the first layer normalisation, right after attention: which arrays "
                   "are summed there?",
                   "Set `W_o` to zeros, so that the attention output A is 0, and print H: it should be X "
                   "normalised row by row, a different row for each token. Compare with yours.",
                   "Every sub-layer is wrapped in a residual connection: its input is added to its output before "
                   "the normalisation, so the block's input X reaches H directly.")),
    Mistake("missing_residual_ffn",
            "the residual connection around the feed-forward network is missing: out = LN_2(FFN(H)) "
            "instead of LN_2(H + FFN(H)).",
            _block_variant(residual_2=False),
            hints=("Look at what goes into the second layer normalisation, after the feed-forward network: which "
                   "arrays are summed there?",
                   "Set `W_2` and `b_2` to zeros, so that the FFN outputs 0: out should then be H normalised once "
                   "more, a different row for each token. Compare with yours.",
                   "The feed-forward sub-layer has a residual connection of its own: H is added to the FFN's "
                   "output, and that sum is what the second layer normalisation normalises.")),
    Mistake("ffn_on_input",
            "the feed-forward network is applied to the block's input X instead of H = LN_1(X + A): the "
            "sub-layers are in sequence, so the FFN reads the output of the attention sub-layer, "
            "out = LN_2(H + FFN(H)).",
            _block_variant(ffn_input="X"),
            hints=("Look at the input of the feed-forward network in your block: which array is it given?",
                   "Inside your block, print the array the FFN receives and compare it with H, the output of the "
                   "first layer normalisation: they should be the same array.",
                   "The two sub-layers are in sequence: the FFN transforms the output of the attention sub-layer, "
                   "and the same H is both its input and its residual.")),
    Mistake("ffn_before_attention",
            "the feed-forward sub-layer comes before the attention sub-layer. A Transformer layer first "
            "mixes the tokens with self-attention, H = LN_1(X + MultiHead(X)), then transforms every "
            "position with the FFN, out = LN_2(H + FFN(H)).",
            _block_variant(ffn_first=True),
            hints=("Look at the order of the two sub-layers in your block: which one is applied to X first?",
                   "Compare the weights your block returns with those `multi_head_attention` returns on X itself, "
                   "with the same `W_q`, `W_k`, `W_v`, `W_o` and `num_heads`: they should be identical, since "
                   "attention is the first thing the block does.",
                   "A Transformer layer first mixes the tokens with self-attention, then transforms each position "
                   "on its own with the FFN: the output of the first sub-layer is the input of the second.")),
    Mistake("norms_swapped",
            "the two layer normalisations use each other's parameters: gamma_1, beta_1 belong to the norm "
            "after attention (H = LN_1(X + A)), gamma_2, beta_2 to the norm after the FFN.",
            _block_variant(ln_swap=True),
            hints=("Look at the parameters you give each of the two layer normalisations.",
                   "Set `gamma_1` and `gamma_2` to ones, `beta_1` to all 5 and `beta_2` to zeros: the block ends "
                   "with the second normalisation, so every row of out should have mean 0. Compare with yours.",
                   "The contract's table pairs the parameters with the normalisations in order: the first pair "
                   "serves the normalisation after attention, the second pair the one after the FFN, which "
                   "ends the block.")),
    Mistake("ffn_no_relu",
            "the feed-forward network has no ReLU: FFN(h) = max(0, h W_1 + b_1) W_2 + b_2 (Eq. 2). Without "
            "the nonlinearity the two matrices collapse into one linear map.",
            _block_variant(relu="none"),
            hints=("Look at the hidden layer of the feed-forward network, between `W_1` and `W_2`.",
                   "Inside your FFN, print its d_ff hidden units on random inputs: with the ReLU in place about "
                   "half of them should be exactly 0, and none negative. Compare with yours.",
                   "Equation 2 applies a ReLU, the maximum with 0, to the hidden units. Without that nonlinearity "
                   "the two linear layers collapse into one linear map.")),
    Mistake("relu_after_w2",
            "the ReLU is applied after W_2 instead of between the two layers: "
            "FFN(h) = max(0, h W_1 + b_1) W_2 + b_2, the ReLU on the d_ff hidden units.",
            _block_variant(relu="output"),
            hints=("Look at where the ReLU of the feed-forward network acts: on which array, and of which shape?",
                   "Print the output of your FFN on a random H: since `W_2` and `b_2` come after the ReLU, "
                   "some of its d_model values should be negative. The zeros the ReLU makes belong among the "
                   "d_ff hidden units.",
                   "In Equation 2 the ReLU acts on the d_ff hidden units, between the two linear layers. The "
                   "second layer and its bias come after it, unclipped.")),
    Mistake("scaled_by_d_model",
            "the scores are divided by sqrt(d_model); each head must be scaled by sqrt(d_head), "
            "d_head = d_model // num_heads (use the given `multi_head_attention`).",
            _block_variant(scale="d_model"),
            hints=("Look at the scaling of the attention scores in each head: the square root of which dimension "
                   "are they divided by?",
                   "Run your block with `num_heads` 1, then with 3 heads: with one head d_head equals d_model, so "
                   "both scalings agree. With 3 heads, print the number your scores are divided by and compare it "
                   "with the square root of d_model divided by 3.",
                   "Each head is scaled dot-product attention on its own d_head-dimensional queries and keys, so "
                   "its scores are divided by √d_head, as the given `multi_head_attention` does.")),
    Mistake("causal_ignored",
            "with `causal=True` the attention is not masked: every query still attends to later tokens. "
            "Pass `mask=causal_mask(n)` (n = X.shape[-2]) to `multi_head_attention` when `causal` is True.",
            _causal_ignored,
            hints=("Look at what your block does with its `causal` argument: does it reach the attention?",
                   "Call your block with `causal` True and look at the weights of any head: every entry above the "
                   "diagonal should be exactly 0. Compare with a call with `causal` False.",
                   "With `causal` True query i may attend only to keys j ≤ i: the attention has to receive the "
                   "causal mask of exercise 07, and only then does the future get weight exactly 0.")),
    Mistake("weights_averaged_over_heads",
            "the weights are averaged over the heads. Return every head's weights, shape "
            "(..., num_heads, n, n), as `multi_head_attention` gives them.",
            _block_variant(average=True),
            hints=("Look at the weights your block returns: how does their shape compare with the contract's?",
                   "Run your block with 3 heads on n tokens and print the shape of the weights: it should be (3, "
                   "n, n), with any batch axes in front, one n × n matrix per head. Compare with what "
                   "`multi_head_attention` returns.",
                   "The contract returns every head's weights as `multi_head_attention` gives them: each head "
                   "keeps its own matrix, and none is merged with the others.")),
    Mistake("block_norm_not_layer_norm",
            "the block's normalisation is not the contract's layer normalisation: each row of X + A "
            "(and of H + FFN(H)) is normalised over its d_model features, with the population variance "
            "and eps inside the square root. Normalise with `layer_norm` (once its own test passes), "
            "gamma_1 and beta_1 after attention, gamma_2 and beta_2 after the FFN.",
            _block_norm_wrong,
            hints=("Look at the two normalisations inside your block, of the residual sums after attention and "
                   "after the FFN: over which axis, with which variance, and where does `eps` sit?",
                   "Inside your block, print the result of its first normalisation and compare it with your "
                   "layer_norm (once it passes its own test) on the same sum with `gamma_1` and `beta_1`: they "
                   "should be the same numbers.",
                   "The block's normalisations are the contract's layer normalisation, the computation layer_norm "
                   "does: each row over its own d_model features, with the population variance and `eps` inside "
                   "the square root.")),
    masked_weight_not_zero(_visible),
]


# --------------------------------------------------------------------------- stages
def _params_with(record, **changes):
    """The record's call with some entries of its params dict changed (zeros like the originals)."""
    params = dict(record.args[1], **{name: np.zeros_like(np.asarray(record.args[1][name])) for name in changes})
    return (record.args[0], params, *record.args[2:]), dict(record.kwargs)


# For a wrong answer that no mistake names: where it shows (the first probe that tells something speaks;
# a message says what the probe observed, and only what follows from that for any code).
STAGES = [
    Stage("transformer_block", lambda record: _params_with(record, W_q=0, W_k=0),
          right=N_("with W_q = W_k = 0 your block is right: the mistake shows only through W_q and W_k (the "
                   "attention scores)")),
    Stage("transformer_block", lambda record: _params_with(record, W_1=0, b_1=0, W_2=0, b_2=0),
          right=N_("with the feed-forward network switched off (W_1, b_1, W_2 and b_2 all 0) your block is right: "
                   "the mistake shows only when it is on, in the feed-forward sub-layer or in what it is given"),
          wrong=N_("even with the feed-forward network switched off (W_1, b_1, W_2 and b_2 all 0) your block is "
                   "wrong: the mistake shows in the attention sub-layer, a residual connection or a "
                   "normalisation")),
]


# --------------------------------------------------------------------------- checks
def _ref():
    return reference(__name__)


def _copying(function):
    """Call ``function`` on a deep copy of the params dict (the mistake models read the original)."""
    def call(X, params, *rest, **kwargs):
        return function(X, copy.deepcopy(params), *rest, **kwargs)
    call.__wrapped__ = function
    return call


def _call_layer_norm(layer_norm, X, gamma, beta, eps=None):
    kwargs = {} if eps is None else {"eps": eps}
    record = attempt(layer_norm, "layer_norm", (X, gamma, beta), kwargs,
                     want=_ref().layer_norm(X, gamma, beta, **kwargs), arg_names=("X", "gamma", "beta"))
    expect(record, MISTAKES)
    return record.got


def _call_block(transformer_block, X, params, causal=None):
    kwargs = {} if causal is None else {"causal": causal}
    want = _ref().transformer_block(X, params, **kwargs)
    record = attempt(_copying(transformer_block), "transformer_block", (X, params), kwargs, want=want,
                     arg_names=("X", "params"), batched=Batched((2, None), _ref().transformer_block))  # X (..., n, d)
    d_ff = np.shape(params["W_1"])[1]
    flag = "" if causal is None else f", causal={causal}"
    record.call = _("transformer_block(X, params{flag}) with X of shape {shape}, "
                    "num_heads={num_heads} and d_ff={d_ff}").format(flag=flag, shape=np.shape(X),
                                                                   num_heads=params['num_heads'], d_ff=d_ff)
    expect(record, MISTAKES, extra_check=weights_sum_to_one(N_("row (in every head)")), stages=STAGES)
    return record.got


def _params(rng, d_model, num_heads, d_ff, scale=1.0):
    def w(*shape):
        return rng.normal(scale=scale / np.sqrt(shape[0]), size=shape)
    p = {k: w(d_model, d_model) for k in ("W_q", "W_k", "W_v", "W_o")}
    p.update(num_heads=num_heads, W_1=w(d_model, d_ff), b_1=rng.normal(scale=0.5, size=d_ff),
             W_2=w(d_ff, d_model), b_2=rng.normal(scale=0.5, size=d_model))
    for k in ("1", "2"):
        p["gamma_" + k] = rng.uniform(0.5, 1.5, size=d_model)
        p["beta_" + k] = rng.normal(scale=0.5, size=d_model)
    return p


def check_layer_norm(layer_norm):
    """(n, d) with n != d, batch axes, rows of small spread, another eps, a constant row."""
    rng = hidden_inputs("check_layer_norm")
    for shape in [(5, 7), (2, 4, 6), (3, 2, 5, 8)]:
        d = shape[-1]
        X = rng.normal(loc=rng.normal(size=shape[:-1] + (1,)), scale=rng.uniform(0.5, 3.0, size=shape[:-1] + (1,)),
                       size=shape)
        _call_layer_norm(layer_norm, X, rng.uniform(0.5, 1.5, size=d), rng.normal(size=d))
    d = 6
    gamma, beta = rng.uniform(0.5, 1.5, size=d), rng.normal(size=d)
    X = rng.normal(size=(4, d)) * np.array([[1e-3], [1.0], [2e-3], [5.0]])    # small and large spreads
    _call_layer_norm(layer_norm, X, gamma, beta)
    _call_layer_norm(layer_norm, X, gamma, beta, eps=1e-2)
    constant = np.vstack([np.full((1, d), rng.uniform(-5.0, 5.0)), rng.normal(size=(2, d))])
    out = _call_layer_norm(layer_norm, constant, gamma, beta)
    assert np.allclose(out[0], beta), _("layer_norm: a constant row must give beta")


def _quiet_token(rng, shape, params):
    """Inputs whose first token, and its attention output, barely vary across the features (a spread
    of 0.001): layer_norm's eps then weighs in the block too, in every draw, so that an eps outside the
    square root, or another eps, always changes the block's answer."""
    X = rng.normal(size=shape)
    X[..., 0, :] = rng.normal() + 1e-3 * rng.normal(size=shape[-1])
    return X, dict(params, W_o=1e-4 * np.asarray(params["W_o"]))


def check_transformer_block(transformer_block):
    """No batch axis: 3 heads and 1 head, causal=False given explicitly, permutation equivariance."""
    rng = hidden_inputs("check_transformer_block")
    params = _params(rng, d_model=12, num_heads=3, d_ff=20)
    X = rng.normal(size=(5, 12))
    out, weights = _call_block(transformer_block, X, params)
    _call_block(transformer_block, X, params, causal=False)
    _call_block(transformer_block, rng.normal(size=(4, 8)), _params(rng, d_model=8, num_heads=1, d_ff=6))
    _call_block(transformer_block, *_quiet_token(rng, (5, 12), params))
    perm = rng.permutation(5)
    out_p, _weights_p = _call_block(transformer_block, X[perm], params)
    assert np.allclose(out_p, out[perm], rtol=1e-4, atol=1e-6), (
        _("transformer_block: without a mask, permuting the tokens must permute the output rows the same way"))


def check_transformer_block_batched(transformer_block):
    """One and two batch axes; a batch of large inputs (scores in the thousands)."""
    rng = hidden_inputs("check_transformer_block_batched")
    params = _params(rng, d_model=12, num_heads=4, d_ff=20)
    _call_block(transformer_block, rng.normal(size=(2, 5, 12)), params)
    _call_block(transformer_block, rng.normal(size=(2, 3, 4, 12)), params)
    _call_block(transformer_block, *_quiet_token(rng, (2, 5, 12), params))
    large = _params(rng, d_model=12, num_heads=3, d_ff=16, scale=4.0)
    _call_block(transformer_block, 20.0 * rng.normal(size=(2, 6, 12)), large)


def _bounded_scores(X, params, top=3000.0):
    """``X`` scaled so that the largest attention score (in any head) is ``top``: far beyond exp's range,
    so a softmax without its maximum overflows in every draw, and within 10000 of every other score,
    so that a mask filled with -10000 (BERT's) blocks exactly in every draw too."""
    h = int(params["num_heads"])

    def heads(Z):
        *lead, n, d = Z.shape
        return np.swapaxes(Z.reshape(*lead, n, h, d // h), -3, -2)

    Q, K = heads(X @ params["W_q"]), heads(X @ params["W_k"])
    largest = np.abs(Q @ np.swapaxes(K, -1, -2)).max() / np.sqrt(Q.shape[-1])
    return X * np.sqrt(top / largest)          # scores are quadratic in X


def check_transformer_block_causal(transformer_block):
    """causal=True: future weights exactly 0, earlier outputs independent of later tokens, large inputs."""
    rng = hidden_inputs("check_transformer_block_causal")
    params = _params(rng, d_model=12, num_heads=3, d_ff=20)
    X = rng.normal(size=(6, 12))
    out, weights = _call_block(transformer_block, X, params, causal=True)
    X2 = X.copy()
    X2[3:] = rng.normal(size=(3, 12))
    out2, _weights2 = _call_block(transformer_block, X2, params, causal=True)
    assert np.allclose(out2[:3], out[:3], rtol=1e-4, atol=1e-6), (
        _("transformer_block(causal=True): the outputs of the first tokens changed when only later tokens changed"))
    _call_block(transformer_block, rng.normal(size=(2, 5, 12)), params, causal=True)
    _call_block(transformer_block, *_quiet_token(rng, (5, 12), params), causal=True)
    large = _params(rng, d_model=12, num_heads=4, d_ff=16, scale=4.0)
    _call_block(transformer_block, _bounded_scores(20.0 * rng.normal(size=(2, 5, 12)), large), large, causal=True)
