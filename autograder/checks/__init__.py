"""What hidden tests use to compare a learner's answer and name the mistake.

A hidden test calls the learner's function through ``attempt`` (which records
the inputs, the answer or the exception, and the reference answer), then
``expect`` compares.  When the answer is wrong, ``expect`` walks the exercise's
misconception catalogue (a list of ``Mistake``) and raises an AssertionError
whose message names the mistake whose symptom matches, in words a learner
understands.  The same code runs inside a notebook kernel (plain ``nbgrader
autograde``) and in the grading engine's own process, where the learner's
function is a proxy that returns plain NumPy arrays.

The catalogue author's API, all of it here: ``attempt`` and ``expect``,
``Mistake`` and ``Attempt``, ``reference`` (the exercise's reference solution),
``rng`` (the generator of a check's hidden inputs), ``Batched`` (the contract's
leading batch axes, for the rank probe), the shared mistakes
(``modifies_input``, ``masked_weight_not_zero``, ``additive_mask``,
``nan_where_finite`` and the contract-shape mistakes of ``CONTRACT_MISTAKES``)
and the shared property checks (``rows_sum_to_one``, ``masked_weights_are_zero``,
``close``).

One module per concern:

- ``model``: the data model (``Attempt``, ``Mistake``, ``Batched``, ``attempt``, ``close``);
- ``inputs``: hidden inputs (``rng``, the draw) and the reference solution;
- ``form``: the contract's form (a result's structure, the rank probe);
- ``formulas``: mistaken formulas as families (a constant fitted, two mistakes found together);
- ``shared``: the mistakes and property checks several catalogues share;
- ``diagnosis``: ``expect``, ``collecting`` and ``summary``;
- ``messages``: how calls and errors read.

Every mistake a test can show.  Inside ``collecting()`` (the engine runs every
test cell in it) ``expect`` does not stop the test at the first wrong call: it
records the diagnosis, lets the check go on with the reference answer in place
of the learner's, and the engine reports the distinct diagnoses together
(``summary``).
"""
from .diagnosis import SHARED_MISTAKES, collecting, expect, summary, watching
from .form import BATCHES_MESSAGE, CONTRACT_MISTAKES, RANK_MESSAGE
from .formulas import Fit, either, formula, reproduces
from .inputs import grading, reference, rng, self_check_draw, softmax
from .messages import NOT_A_TUPLE, NOT_AN_ARRAY, NOT_NUMERIC, UNUSABLE, WHERE, describe, describe_exception, learner_error, raised, where
from .model import (ATOL, RTOL, Attempt, Batched, Mistake, Stage, Unreturned,
                    all_close, as_float_array, attempt, close, learner_function, probed_once,
                    traced_call, unreturned)
from .shared import (LARGE_GAP, LARGE_SCORE, MASKED_WEIGHT_NOT_ZERO, NO_MAX_SUBTRACTION, additive_mask,
                     large_factor, masked_weight_not_zero, masked_weights_are_zero, modifies_input,
                     exp_out_of_range, nan_where_finite, no_max_subtraction, rows_sum_to_one,
                     weights_sum_to_one)

__all__ = [
    "ATOL", "Attempt", "Unreturned", "Fit", "either", "formula", "reproduces", "BATCHES_MESSAGE", "Batched", "CONTRACT_MISTAKES", "LARGE_GAP", "LARGE_SCORE",
    "MASKED_WEIGHT_NOT_ZERO", "Mistake", "NOT_A_TUPLE", "NOT_AN_ARRAY", "NOT_NUMERIC", "NO_MAX_SUBTRACTION",
    "RANK_MESSAGE", "RTOL", "SHARED_MISTAKES", "Stage", "probed_once", "UNUSABLE", "WHERE", "additive_mask", "all_close",
    "as_float_array", "attempt", "close", "collecting", "describe", "describe_exception", "expect",
    "grading", "large_factor", "learner_error", "masked_weight_not_zero", "masked_weights_are_zero",
    "modifies_input", "exp_out_of_range", "nan_where_finite", "no_max_subtraction", "raised", "reference", "rng",
    "rows_sum_to_one", "unreturned", "learner_function", "self_check_draw", "softmax", "summary", "traced_call", "watching", "where",
    "weights_sum_to_one",
]
