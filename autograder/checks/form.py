"""The contract's form: mistakes of a result's structure (a single array for a pair, the outputs
swapped, transposed or flattened) and the rank probe, which tells code that fits only one number
of batch axes from code that is wrong whatever the rank."""
import dataclasses
import inspect
import re

import numpy as np

from ..i18n import N_, _, ngettext, pgettext
from ..results import STOPPED
from .messages import WHERE, learner_error, where
from .inputs import reference_function
from .model import Mistake, Unreturned, all_close, attempt, close, probed_once, unreturned

# --------------------------------------------------------------------------- contract-shape mistakes
def _pair(record):
    """(want as a tuple, returned as a tuple or None)."""
    want = record.want if isinstance(record.want, tuple) else (record.want,)
    returned = record.returned
    return want, (returned if isinstance(returned, tuple) else None)


def _returned_single(record):
    want, _returned = _pair(record)
    got = record.returned
    if not isinstance(record.want, tuple) or not isinstance(got, np.ndarray):
        return False
    names = (tuple(_(part) for part in record.parts) if len(record.parts) == len(want)   # a catalogue's names
             else (_("the output"), _("the weights")) if len(want) == 2
             else tuple(_("output {index}").format(index=i) for i in range(len(want))))
    for name, part in zip(names, want):
        if close(got, part):
            return _("your function returned only {name}, a single array of shape {shape}").format(
                name=name, shape=got.shape)
    return _("your function returned a single array of shape {shape}").format(shape=got.shape)


def _returned_tuple(record):
    got = record.returned
    if isinstance(record.want, tuple) or not isinstance(got, tuple):
        return False
    if close(got[0], record.want):
        return _("your function returned a tuple of {count} values (its first value is the right answer)").format(
            count=len(got))
    return _("your function returned a tuple of {count} values").format(count=len(got))


def _returned_wrong_count(record):
    want, got = _pair(record)
    if not isinstance(record.want, tuple) or got is None or len(got) == len(want):
        return False
    return _("your function returned {count} arrays").format(count=len(got))


def _swapped_order(record):
    """The pair comes back as (weights, output): told by the values, or by the shapes where the two
    parts' shapes differ (then the values are diagnosed once swapped back, see ``adapted``)."""
    want, got = _pair(record)
    if len(want) != 2 or got is None or len(got) != 2:
        return False
    if not (np.shape(got[0]) == np.shape(want[1]) and np.shape(got[1]) == np.shape(want[0])):
        return False
    return (close(got[0], want[1]) and close(got[1], want[0])) or np.shape(want[0]) != np.shape(want[1])


def _transposed(got, want):
    got, want = np.asarray(got), np.asarray(want, dtype=float)
    return want.ndim >= 2 and not close(got, want) and close(got, np.swapaxes(want, -1, -2))


def _weights_transposed(record):
    want, got = _pair(record)
    if len(want) != 2 or got is None or len(got) != 2:
        return False
    return close(got[0], want[0]) and _transposed(got[1], want[1])


def _output_transposed(record):
    want, got = _pair(record)
    if got is None:
        got = (record.returned,) if isinstance(record.returned, np.ndarray) else None
    if got is None or len(got) != len(want):
        return False
    return _transposed(got[0], want[0]) and all(close(g, w) for g, w in zip(got[1:], want[1:]))


def _flattened(record):
    want, got = _pair(record)
    got = got if got is not None else (record.returned,) if isinstance(record.returned, np.ndarray) else None
    if got is None or len(got) != len(want):
        return False
    wrong = [(g, w) for g, w in zip(got, want) if not close(g, w)]
    return bool(wrong) and all(np.shape(g) != np.shape(w) and np.size(g) == np.size(w)
                               and close(np.ravel(g), np.ravel(w)) for g, w in wrong) and (
        _("your result has shape {got} instead of {want}").format(got=np.shape(wrong[0][0]),
                                                                  want=np.shape(wrong[0][1])))


# ........................................................................... the rank probe
_RANK_WORDS = {0: N_("no batch axis"), 1: N_("one batch axis"), 2: N_("two batch axes"), 3: N_("three batch axes")}


def _lead(record):
    """Number of leading batch axes of the record's call (of its first batched argument)."""
    for value, core in zip(record.args, record.batched.cores):
        if core is not None and isinstance(value, np.ndarray):
            return value.ndim - core
    return 0


def _with_batch(args, cores, batch):
    """The record's arguments rebuilt with leading batch shape ``batch``: the first entry of each
    batched argument, rolled along its rows from one batch entry to the next."""
    out = []
    for value, core in zip(args, cores):
        if core is None or not isinstance(value, np.ndarray) or value.ndim < core:
            out.append(value)
            continue
        base = value.reshape(-1, *value.shape[value.ndim - core:])[0] if value.ndim > core else value
        count = int(np.prod(batch)) if batch else 1
        rows = [np.roll(base, k, axis=-2) if base.ndim >= 2 else base for k in range(count)]
        out.append(np.stack(rows).reshape(*batch, *base.shape) if batch else base.copy())
    return tuple(out)


def _probe(record, lead):
    """'works', or what goes wrong, when the record's computation runs with ``lead`` batch axes
    (a result that breaks only the contract's return structure counts as working: that mistake
    is named by its own entry)."""
    spec = record.batched
    batch = (2, 3, 2)[:lead] if spec.any_rank else (3, 2)[:lead]
    args = _with_batch(record.args, spec.cores, batch)
    try:
        with np.errstate(all="ignore"):
            want = spec.reference(*args, **record.kwargs)
    except Exception:
        return None
    trial = attempt(record.callee, record.function, args, record.kwargs, want=want, arg_names=record.arg_names)
    record.probed.setdefault("trials", {})[lead] = trial
    if (trial.error is not None or not all_close(trial.got, trial.want)) and trial.returned is not None and any(
            mistake.shown_by(trial) for mistake in _STRUCTURE_MISTAKES):
        return "works"
    if trial.error is not None:
        return "raises"
    if not all_close(trial.got, trial.want):
        got = trial.got if isinstance(trial.got, tuple) else (trial.got,)
        want = want if isinstance(want, tuple) else (want,)
        return "wrong shape" if any(np.shape(g) != np.shape(w) for g, w in zip(got, want)) else "wrong values"
    return "works"


def _rank_hint(line, error):
    """Why a line of the learner's code fits only one number of axes, and what works for any."""
    line, error = line or "", error or ""
    fixed = re.search(r"(?:\.transpose|np\.transpose)\(\s*(?:[A-Za-z_][\w.\[\]]*,\s*)?\(?\s*(\d+(?:\s*,\s*\d+)+)",
                      line)
    if fixed:
        count = len(fixed.group(1).split(","))
        snippet = fixed.group(0) + ")" * (fixed.group(0).count("(") - fixed.group(0).count(")"))
        return _("`{snippet}` lists the axes one by one, so it only fits arrays with exactly {count} axes; "
                 "`np.swapaxes(x, -1, -2)` (or `np.moveaxis`) works for any number of leading axes").format(
                     snippet=snippet, count=count)
    if re.search(r"\.T\b|np\.transpose\(\s*\w+\s*\)|\.transpose\(\s*\)", line):
        return _("`.T` (or `np.transpose(x)`) reverses ALL the axes; swap only the last two: "
                 "`np.swapaxes(x, -1, -2)`, which works for any number of leading axes")
    if "values to unpack" in error:
        return _("unpacking `x.shape` into a fixed number of names assumes that many axes; take what you need "
                 "from the end: `*batch, n, d = x.shape`, or `x.shape[:-1]` and `x.shape[-1]`")
    if "reshape" in error or re.search(r"\.reshape\(", line):
        return _("a reshape to a fixed list of sizes assumes a number of axes; keep the leading ones: "
                 "`x.reshape(*x.shape[:-1], num_heads, d_head)`")
    if "einstein" in error.lower() or "subscripts" in error or "einsum" in line:
        return _("einsum subscripts with one letter per axis fix the number of axes; let `...` stand for the "
                 "batch axes: `np.einsum('...nd,...md->...nm', Q, K)`")
    return _("count the axes from the end (`-1`, `-2`, ...) so that any number of leading batch axes works: "
             "`np.swapaxes(x, -1, -2)`, `x.shape[-1]`, `np.einsum('...nd,...md->...nm', ...)`")


def _rank_bound(record):
    """The rank probe's finding (computed once per record: it calls the learner's function again)."""
    return probed_once(record, "rank", _probe_ranks)


def _probe_ranks(record):
    spec = record.batched
    if spec is None or record.callee is None:
        return False
    if record.error is None:
        want, got = _pair(record)
        got = got if got is not None else (record.returned,)
        if all(np.shape(g) == np.shape(w) for g, w in zip(got, want)):
            return False  # a wrong value at the right shape: a mistake of the formula, not of the rank
    elif record.error.startswith(STOPPED) or "not implemented" in record.error:
        return False
    lead = _lead(record)
    # Unbatched contracts: code written for (batch, n, d) or for (batch, heads, n, d) tensors.
    ranks = {0, 1, 2, lead} if spec.any_rank else {0, 1, 2}
    if not spec.any_rank and lead != 0:
        return False
    outcomes = {rank: (_probe(record, rank) if rank != lead else "fails") for rank in sorted(ranks)}
    right = [rank for rank, outcome in outcomes.items() if outcome == "works"]
    works = [rank for rank, outcome in outcomes.items() if outcome in ("works", "wrong values")]
    fails = [rank for rank, outcome in outcomes.items() if outcome in ("raises", "wrong shape", "fails")]
    if not works or lead in works:
        return False
    # A rank where the code runs with right shapes: the maths is diagnosed there (``adapted``).
    record.probed["runs"] = next((rank for rank in works if rank not in right), None)
    function, _callers, line = where(record.error)
    if record.error is None:
        what = _("the result has the wrong shape")
    else:
        error = learner_error(WHERE.sub("", record.error))
        inside = function and function not in ("<module>", record.function)
        if inside:
            what = (_("it raised {error} in your {function} at `{line}`") if line
                    else _("it raised {error} in your {function}")).format(error=error, function=function, line=line)
        else:
            what = (_("it raised {error} at `{line}`") if line else _("it raised {error}")).format(error=error, line=line)
    if not spec.any_rank:
        return _("{what}. Your {function} works on inputs with {works} but not on the contract's inputs, "
                 "which have none: {hint}").format(what=what, function=record.function,
                                                   works=_join([rank for rank in works if rank]),
                                                   hint=_unbatched_hint(line, record.error))
    if right != works:
        return _("{what}. Your {function} runs with {works} (with wrong values) and fails with {fails}: "
                 "{hint}").format(what=what, function=record.function, works=_join(works), fails=_join(fails),
                                  hint=_rank_hint(line, record.error))
    return _("{what}. Your {function} works with {works} and fails with {fails}: {hint}").format(
        what=what, function=record.function, works=_join(works), fails=_join(fails),
        hint=_rank_hint(line, record.error))


def _unbatched_hint(line, error):
    """What to write instead of code that assumes a (batch, n, d) tensor."""
    line, error = line or "", error or ""
    if re.search(r"transpose\(", line):
        return _("for an (n, d) array write `K.T` (or `np.swapaxes(K, -1, -2)`, which works with or without a "
                 "batch axis)")
    if "values to unpack" in error:
        return _("unpack two axes, `n, d = X.shape` (or take `X.shape[-1]`, which works with or without a batch "
                 "axis)")
    if "einstein" in error.lower() or "subscripts" in error or "einsum" in line:
        return _("drop the batch letter from the einsum subscripts, or write `...` for it: `'...nd,...md->...nm'`")
    return _("index the axes from the end (`-1`, `-2`) so that the code runs with or without a batch axis")


def _join(ranks):
    words = [_(_RANK_WORDS[rank]) if rank in _RANK_WORDS else _("{count} batch axes").format(count=rank)
             for rank in ranks]
    if len(words) == 1:
        return words[0]
    # Translators: "works with no batch axis, one batch axis and with two batch axes".
    return pgettext("ranks", ", ").join(words[:-1]) + pgettext("ranks", " and with ") + words[-1]


# ........................................................................... a missing argument
_UNEXPECTED = re.compile(r"unexpected keyword argument '(?P<name>\w+)'")
_TOO_MANY = re.compile(r"takes (?:from \d+ to )?(?P<takes>\d+) positional arguments? but (?P<given>\d+) (?:were|was) given")


def _missing_arguments(record):
    """The names of the contract's arguments that the learner's function does not take, from the
    TypeError its call raised (empty when it raised something else)."""
    error = (record.error or "").split(" (in your function")[0]
    if not error.startswith("TypeError") or record.function not in error:
        return ()
    found = _UNEXPECTED.search(error)
    if found and found["name"] in record.kwargs:
        return (found["name"],)
    found = _TOO_MANY.search(error)
    if found and int(found["given"]) == len(record.args) and int(found["takes"]) < len(record.args):
        names = record.arg_names or _parameters(record.function)
        return tuple(names[int(found["takes"]):len(record.args)])
    return ()


def _parameters(function):
    try:
        return tuple(inspect.signature(reference_function(function)).parameters)
    except (LookupError, TypeError, ValueError):
        return ()


def _missing_argument(record):
    names = _missing_arguments(record)
    if not names:
        return False
    return ngettext("your {function} has no `{names}` argument", "your {function} has no arguments {names}",
                    len(names)).format(function=record.function, names="`, `".join(names))


def _without(record, names):
    """The record's call without the arguments ``names`` (what the learner's code supports), or None."""
    positional = [name for name in (record.arg_names or _parameters(record.function))][:len(record.args)]
    keep = [i for i, name in enumerate(positional) if name not in names] if positional else range(len(record.args))
    args = tuple(record.args[i] for i in keep if i < len(record.args))
    kwargs = {key: value for key, value in record.kwargs.items() if key not in names}
    try:
        with np.errstate(all="ignore"):
            want = reference_function(record.function)(*args, **kwargs)
    except Exception:
        return None
    arg_names = tuple(positional[i] for i in keep) if positional else ()
    trial = attempt(record.callee, record.function, args, kwargs, want=want, arg_names=arg_names,
                    batched=record.batched)
    return dataclasses.replace(trial, adapted="without")


# ........................................................................... rounded answers
def rounding(record):
    """The number of decimals the learner's answer is rounded to, or None: every returned value has at
    most k decimals (k up to 6), where the right answer's values have more."""
    want, got = _pair(record)
    if record.adapted and record.got is not None:   # the parts the code returns (a pair's output alone, ...)
        got = record.got if isinstance(record.got, tuple) else (record.got,)
    got = got if got is not None else (record.returned,) if isinstance(record.returned, np.ndarray) else None
    if got is None or len(got) != len(want):
        return None
    kept = [(g, w) for g, w in zip(got, want) if not isinstance(g, Unreturned)]
    got, want = [g for g, _w in kept], [w for _g, w in kept]
    if not got or any(np.shape(g) != np.shape(w) for g, w in zip(got, want)):
        return None
    values = np.concatenate([np.ravel(np.asarray(g, dtype=float)) for g in got]) if got else np.zeros(0)
    values = values[np.isfinite(values)]
    for decimals in range(1, 7):
        if all(np.array_equal(np.asarray(g), np.round(np.asarray(g), decimals)) for g in got):
            # some value is a decimal fraction, not a binary one: exact answers (0, 1, 0.5 of saturated
            # weights) are not "rounded"
            if not np.any(values * 2.0 ** 20 != np.round(values * 2.0 ** 20)):
                return None
            # rounding changes the right answer by more than float noise (saturated weights of exactly
            # 0 and 1 are not "rounded")
            changes = any(np.size(w) and np.nanmax(np.abs(np.asarray(w, dtype=float)
                                                          - np.round(np.asarray(w, dtype=float), decimals))) > 1e-9
                          for w in want)
            return decimals if changes else None
    return None


def _rounded(record):
    """'rounded to k decimals' (practice sites ask for ``np.round(x, 4)``; this contract does not),
    even when the rounded values happen to lie within the tolerance: whether they do depends on the
    draw, the rounding does not."""
    decimals = rounding(record)
    if decimals is None:
        return False
    return _("your results are rounded to {decimals} decimals").format(decimals=decimals)


# ........................................................................... adapting a call to the code
def _rounded_to(answer, decimals):
    return tuple(np.round(np.asarray(a, dtype=float), decimals) for a in answer) if isinstance(answer, tuple) \
        else np.round(np.asarray(answer, dtype=float), decimals)


GUESSED = "returned as the output?"   # an adaptation kept only if it names a mistake (diagnosis._diagnoses)


def adapted(record, mistake_id):
    """The record's call adapted to what the learner's code supports, once ``mistake_id`` (a mistake of
    the contract's form) is named, so that its maths can be diagnosed too: the one array it returns
    compared with its part of the pair, the rank it handles, the call without the argument it lacks.
    (trial, right), where ``right`` says that the adapted answer is right (the form's mistake explains the
    whole call); None when no adaptation fits."""
    trial, right = None, False
    want = record.want
    if mistake_id == "returns_single_array" and isinstance(record.returned, np.ndarray):
        # the part of the pair with the returned array's shape; else, tentatively, the output (``GUESSED``)
        index = next((i for i, part in enumerate(want) if np.shape(record.returned) == np.shape(part)), None)
        got = tuple(record.returned if i == (index or 0) else unreturned(w) for i, w in enumerate(want))
        trial = dataclasses.replace(record, got=got, error=None, adapted="returned" if index is not None else GUESSED,
                                    probed={})
    elif mistake_id == "returns_tuple" and isinstance(record.returned, tuple):
        if np.shape(record.returned[0]) == np.shape(want):
            trial = dataclasses.replace(record, got=record.returned[0], error=None, adapted="returned", probed={})
    elif mistake_id == "returns_wrong_count" and isinstance(record.returned, tuple) and len(record.returned) > len(want):
        got = record.returned[:len(want)]
        if all(np.shape(g) == np.shape(w) for g, w in zip(got, want)):
            trial = dataclasses.replace(record, got=got, error=None, adapted="returned", probed={})
    elif mistake_id == "outputs_in_wrong_order" and isinstance(record.returned, tuple) and len(record.returned) == 2:
        trial = dataclasses.replace(record, got=record.returned[::-1], error=None, adapted="returned", probed={})
    elif mistake_id in ("fixed_rank", "written_for_batches") and record.probed.get("runs") is not None:
        trial = dataclasses.replace(record.probed["trials"][record.probed["runs"]], adapted="rank")
    elif mistake_id == "rounded" and rounding(record) is not None:
        decimals = rounding(record)
        trial = dataclasses.replace(record, decimals=decimals, adapted="rounded", probed={})
        right = all_close(trial.got, _rounded_to(trial.want, decimals))   # the rounding is the only mistake
    elif mistake_id == "missing_argument":
        trial = _without(record, _missing_arguments(record))
    if trial is None or trial.error is not None:
        return None
    return trial, right or all_close(trial.got, trial.want)


RANK_MESSAGE = N_("the contract takes any number of leading batch axes (the `...` in its shapes), so count the "
                "axes from the end.")

BATCHES_MESSAGE = N_("the contract's shapes have no batch axis (one sequence at a time, such as Q of shape (n, d)); "
                   "code written for (batch, n, d) tensors must be adapted, not wrapped.")

CONTRACT_MISTAKES = (
    Mistake("returns_single_array",
            "the contract asks for the pair `(output, weights)`, in that order: `return out, weights`.",
            _returned_single,
            hints=("Look at your function's return line: how many results does the contract's signature name?",
                   "Compare what your function returns with the contract: an output and its weights, as two "
                   "results.")),
    Mistake("returns_tuple",
            "the contract returns a single array here: return only it (for example `return H`, not "
            "`return H, h`).",
            _returned_tuple,
            hints=("Look at your function's return line: how many results does it give back?",
                   "Compare it with the contract: this function returns one array, not a tuple.")),
    Mistake("returns_wrong_count",
            "the contract asks for exactly the pair `(output, weights)`, in that order: `return out, weights`.",
            _returned_wrong_count,
            hints=("Look at your function's return line: how many results does it give back?",
                   "Count them against the contract's signature: exactly the output and the weights, in that "
                   "order.")),
    Mistake("outputs_in_wrong_order",
            "the two results are in the wrong order: the contract returns `(output, weights)`, the output first.",
            _swapped_order,
            hints=("Look at the order of the two results in your return line.",
                   "Compare it with the contract: which comes first, the output or the weights?")),
    Mistake("weights_transposed",
            "the weights are transposed (their last two axes are swapped): compare their shape with the "
            "contract's, and the axis along which they sum to 1.",
            _weights_transposed,
            hints=("Look at the shape of the weights you return.",
                   "Compare it with the contract's shape for the weights, and find the axis along which your "
                   "weights sum to 1: in the contract, each query's weights over the keys do.")),
    Mistake("output_transposed",
            "the result is transposed (its last two axes are swapped). In the row convention each row is one "
            "query or token: check the order of the factors (`Q @ K.T`, `weights @ V`) and the shapes in the "
            "contract.",
            _output_transposed,
            hints=("Look at the shape of the array you return.",
                   "Compare it with the contract's shape: one row per query or token. Then check the order of the "
                   "factors in each matrix product.")),
    Mistake("flattened_result",
            "the numbers are right but the array is flattened or reshaped: keep one row per query or token "
            "(`np.stack(rows)` or `np.array(rows)` builds a 2-D array from a list of rows; `np.concatenate` "
            "glues them into one long vector).",
            _flattened,
            hints=("Look at the shape of what you return, against the contract's shape.",
                   "The numbers are right: compare how you put the rows together, one row per query or token, with"
                   " a single long vector.")),
    Mistake("missing_argument",
            "the contract's signature has this argument (with its default, such as `mask=None` or "
            "`causal=False`): add it to your function's parameters and use it.",
            _missing_argument,
            hints=("Look at your function's parameters.",
                   "Compare them, one by one, with the contract's signature, the arguments with defaults included.")),
    Mistake("rounded",
            "return the full values: rounding (as some practice sites ask for) makes every answer slightly "
            "wrong for this contract. Remove the `np.round`.",
            _rounded, even_if_close=True,
            hints=("Look at the last steps before your function returns: is anything rounded there?",
                   "Compare your answer with the same computation without rounding: the contract asks for the full"
                   " values.")),
    Mistake("fixed_rank", RANK_MESSAGE, lambda record: record.batched is not None and record.batched.any_rank
            and _rank_bound(record),
            hints=("Look at how your code names axes: does it count them from the front?",
                   "Add one leading batch axis to the inputs and compare your answer with the answers for each "
                   "batch entry stacked: the last axes must keep their meaning.")),
    Mistake("written_for_batches", BATCHES_MESSAGE, lambda record: record.batched is not None
            and not record.batched.any_rank and _rank_bound(record),
            hints=("Look at the shapes your code expects: does it assume a batch axis in front?",
                   "Compare them with the contract's shapes: one sequence at a time, such as Q of shape (n, d).")),
)
_STRUCTURE_MISTAKES = CONTRACT_MISTAKES[:6]
