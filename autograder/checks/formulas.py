"""Mistaken formulas as families: a mistake named by reproducing the learner's answer, a constant
fitted from it, and two mistakes of one family found together.

A catalogue writes one model of its exercise with options, ``model(record, **options)``: what code
making those mistakes returns for the record's call (the whole answer, a tuple where the contract's
is one).  ``formula(model, function, **options)`` is the detector of one mistake, an option set.
An option may be a ``Fit``: the detector then tries its candidate values and names the one the
learner's answers reproduce ("your eps is 1e-06"), the same value on every call of a test.
When no single mistake reproduces a wrong answer, ``pairs`` tries every two formulas of the same
model together (a block that is pre-norm AND scales by sqrt(d_model)), and names both only if
their combination reproduces it.
"""
import dataclasses
import itertools

import numpy as np

from ..i18n import _
from .model import Unreturned, close, parts_match

MAX_FIT_COMBINATIONS = 64   # candidate values tried for one pair of formulas
MIN_DECIMALS = 3            # a rounded answer tells formulas apart only with at least this many decimals


@dataclasses.dataclass(frozen=True)
class Fit:
    """An option whose value is fitted from the learner's answers: the ``candidates`` tried in order,
    and ``detail``, a marked template with ``{value}`` that names the value found."""
    candidates: tuple
    detail: str


def as_returned(record, predicted):
    """A formula's answer as the learner's code returns it: rounded like it (``Attempt.decimals``)."""
    if predicted is None or record.decimals is None:
        return predicted
    if isinstance(predicted, tuple):
        return tuple(np.round(np.asarray(p, dtype=float), record.decimals) for p in predicted)
    return np.round(np.asarray(predicted, dtype=float), record.decimals)


def reproduces(record, predicted):
    """Does the learner's answer equal ``predicted``, and does this call tell ``predicted`` from the
    right answer (a formula that gives the right answer here shows no mistake)?"""
    if record.decimals is not None and record.decimals < MIN_DECIMALS:
        return False   # answers rounded so coarsely that different formulas round alike
    predicted = as_returned(record, predicted)
    if record.got is None or predicted is None or not parts_match(record.got, predicted, equal_nan=True):
        return False
    got = record.got if isinstance(record.got, tuple) else (record.got,)
    predicted = predicted if isinstance(predicted, tuple) else (predicted,)
    want = as_returned(record, record.want)
    want = want if isinstance(want, tuple) else (want,)
    # told apart on a part the learner returned
    return any(not close(p, w) for g, p, w in zip(got, predicted, want) if not isinstance(g, Unreturned))


def _settings(options):
    """Every concrete option set of ``options`` (a Fit expanded into its candidates), with the Fit
    options' values: [(options, {name: value})]."""
    fitted = [(name, fit) for name, fit in options.items() if isinstance(fit, Fit)]
    fixed = {name: value for name, value in options.items() if not isinstance(value, Fit)}
    if not fitted:
        return [(fixed, {})]
    settings = []
    for values in itertools.islice(itertools.product(*(fit.candidates for _name, fit in fitted)),
                                   MAX_FIT_COMBINATIONS):
        chosen = dict(zip((name for name, _fit in fitted), values))
        settings.append(({**fixed, **chosen}, chosen))
    return settings


def _detail(options, chosen):
    """What a fitted formula says about its values ("your eps is 1e-06"), or True without a Fit."""
    parts = [_(options[name].detail).format(value=value) for name, value in chosen.items()]
    return "; ".join(parts) if parts else True


def fits(record, model, setting):
    """Does ``model`` with ``setting`` give the learner's answer to ``record`` (or leave it right)?
    How a mistake found on one call is verified on the test's other calls."""
    with np.errstate(all="ignore"):
        try:
            predicted = model(record, **setting)
        except Exception:   # a setting the model cannot compute for this call
            return False
    return record.got is not None and predicted is not None and parts_match(
        record.got, as_returned(record, predicted), equal_nan=True)


class FitDetail(str):
    """What a fitted formula says ("your answers fit eps = 1e-06"), with the option set it fitted:
    another call is explained by the same mistake when that setting reproduces it too."""
    setting: dict = {}

    def explains(self, record, model):
        return fits(record, model, self.setting)


def formula(model, function, isolates=False, pairs=True, **options):
    """The detector of the mistake ``options`` of ``model`` for the learner's ``function`` (a name, or a
    tuple of the names whose answers the model computes; see the module's docstring); its ``family``
    attribute lets ``pairs`` combine it with the others.  A
    formula that ``isolates`` a stage (the learner's own sub-function in place of the reference's)
    is, in a pair, the ground the other mistake stands on: only the other is named."""
    functions = (function,) if isinstance(function, str) else tuple(function)

    def detect(record):
        if record.function not in functions:
            return False
        best = None
        for setting, chosen in _settings(options):
            with np.errstate(all="ignore"):
                predicted = model(record, **setting)
            if reproduces(record, predicted):
                if not chosen:
                    return True
                # several values may reproduce within the tolerance: the one that fits best is named
                distance = _distance(record.got, as_returned(record, predicted))
                if best is None or distance < best[0]:
                    best = (distance, chosen, setting)
        if best is None:
            return False
        detail = FitDetail(_detail(options, best[1]))
        detail.setting = best[2]
        return detail
    detect.family = (model, functions, options)
    detect.same_detail = fitted(options)    # read by Mistake: every call must fit the same value
    detect.isolates = isolates
    detect.pairs = pairs        # False: a formula whose mistake combined with another is ambiguous
    return detect


def either(check, detect):
    """A detector that accepts what ``check`` accepts (another function's symptom of the same mistake,
    e.g. split_heads' own answer) or what the formula ``detect`` reproduces; it keeps the formula's
    family, so that the mistake still combines with the others."""
    def both(record):
        return check(record) or detect(record)
    both.family, both.same_detail, both.isolates = detect.family, detect.same_detail, detect.isolates
    both.pairs = detect.pairs
    return both


def _distance(got, predicted):
    """The largest difference between the returned parts and a formula's answer."""
    got = got if isinstance(got, tuple) else (got,)
    predicted = predicted if isinstance(predicted, tuple) else (predicted,)
    return max((float(np.max(np.abs(np.asarray(g) - np.asarray(p)), initial=0.0))
                for g, p in zip(got, predicted) if not isinstance(g, Unreturned)), default=0.0)


def fitted(options):
    """Does a formula's option set hold a Fit (its mistake is then named with the value found)?"""
    return any(isinstance(value, Fit) for value in options.values())


def pairs(record, mistakes):
    """[(first, detail, second, detail, verify)] for the first two mistakes of one family whose
    formulas together reproduce ``record``'s answer (at most one pair); ``verify(other)`` says whether
    the same combination reproduces another call's answer too, or leaves it right."""
    family = [(m, m.detect.family) for m in mistakes if getattr(m.detect, "family", None) is not None
              and record.function in m.detect.family[1] and getattr(m.detect, "pairs", True)]
    for (first, (model, _function, a)), (second, (other_model, _f, b)) in itertools.combinations(family, 2):
        if model is not other_model or set(a) & set(b):
            continue
        options = {**a, **b}
        for setting, chosen in _settings(options):
            with np.errstate(all="ignore"):
                try:
                    predicted = model(record, **setting)
                except Exception:   # a combination the model cannot compute
                    break
            if reproduces(record, predicted):
                def verify(other, model=model, setting=setting):
                    return fits(other, model, setting)
                return [(first, _detail(a, {k: v for k, v in chosen.items() if k in a}),
                         second, _detail(b, {k: v for k, v in chosen.items() if k in b}), verify)]
    return []
