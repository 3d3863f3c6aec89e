"""How calls and the learner's errors read in a message: a call's description (``describe``),
an exception's one line (``describe_exception``, ``raised``), and the grader's own words in the
grading's language (``learner_error``)."""
import functools
import re

import numpy as np

from ..i18n import ENGLISH, N_, _, current, pgettext
from ..results import NOT_IMPLEMENTED, NOT_IMPLEMENTED_LINE, NOT_IMPLEMENTED_TEMPLATE, STOPPED

def describe_exception(error):
    """One line for an exception raised by the learner's code (directly or through the engine)."""
    text = getattr(error, "learner_error", None) or f"{type(error).__name__}: {error}"
    text = (text.strip().splitlines() or [type(error).__name__])[0][:500]
    if text.startswith("NotImplementedError"):
        return NOT_IMPLEMENTED_LINE
    return text


# How the worker says where in the learner's code an exception was raised (see worker.py).
WHERE = re.compile(r" \(in your function (?P<function>[\w<>]+)(?:, called from (?P<callers>[\w<>, ]+))?"
                   r"(?:: `(?P<line>.*)`)?\)$")


def where(error):
    """(function, callers, line) of the learner's code that raised ``error`` (a one-line description),
    or (None, (), None) when the description does not say."""
    found = WHERE.search(error or "")
    if not found:
        return None, (), None
    callers = tuple(c.strip() for c in (found["callers"] or "").split(",") if c.strip())
    return found["function"], callers, found["line"]


def raised(call, error):
    """'softmax(x) raised ValueError: ...', or 'softmax(x): stopped: ...' for a timeout or a dead
    process (the engine marks those errors with ``STOPPED``; they are not the learner's exception).

    When the exception came from another of the learner's functions (a helper the
    called one uses), the message names that function: the bug is there.
    """
    if error.startswith(STOPPED + " "):
        return _("{call}: stopped: {reason}").format(call=call, reason=error[len(STOPPED) + 1:])
    if error.startswith(STOPPED):
        return f"{call}: {error}"
    if error.startswith(UNUSABLE.split("{")[0]):   # the function returned; what it returned is unusable
        return _("{call}: your function {error}").format(call=call, error=learner_error(error))
    function, callers, line = where(error)
    bare = learner_error(WHERE.sub("", error))
    called = call.split("(", 1)[0]
    if function and function != called and function != "<module>":
        if line:
            return _("{call}: your function {function} (called by {called}) raised {error} at `{line}`").format(
                call=call, function=function, called=called, error=bare, line=line)
        return _("{call}: your function {function} (called by {called}) raised {error}").format(
            call=call, function=function, called=called, error=bare)
    if line:
        return _("{call} raised {error} at `{line}`").format(call=call, error=bare, line=line)
    return _("{call} raised {error}").format(call=call, error=bare)


# What the grader itself says about a call or a cell, kept in English where the checks read it
# (``Attempt.error``, a cell's error line: the worker's, the engine's) and written in the grading's
# language by ``learner_error``.  The learner's own exception text, and Python's, stay as they are.
UNUSABLE = N_("returned something unusable: {problem}")
NOT_A_TUPLE = N_("expected a tuple of {count} arrays, got {type}")
NOT_AN_ARRAY = N_("the result is a {type}, not a NumPy array")
PART_NOT_AN_ARRAY = N_("part {index} of the result is not a numeric array")
NOT_NUMERIC = N_("the result is not a numeric array ({error})")
_GRADER_ERRORS = (
    UNUSABLE, NOT_A_TUPLE, NOT_AN_ARRAY, PART_NOT_AN_ARRAY, NOT_NUMERIC,
    # worker.py's (it runs in the sandbox, without this package)
    N_("WireError: the function returned None (is a `return` missing?)"),
    N_("WireError: the function returned {type}, not a numeric array"),
    N_("WireError: an array of dtype {dtype} is not numeric"),
    N_("WireError: cannot send an object of type {type}"),
    N_("could not send the result back: {problem}"),
    N_("cannot send an object of type {type}"),
    N_("an array of dtype {dtype} is not numeric"),
)


@functools.lru_cache(maxsize=None)
def _pattern(template):
    """A regex matching what ``template`` gives once filled in, one named group per field."""
    pieces = re.split(r"\{(\w+)\}", template)
    return re.compile("".join(re.escape(piece) if i % 2 == 0 else f"(?P<{piece}>.*?)"
                              for i, piece in enumerate(pieces)) + r"\Z", re.S)


def _where_text(function, callers, line):
    """The worker's ' (in your function f, called from g: `line`)', in the grading's language."""
    values = {"function": function, "callers": ", ".join(callers), "line": line}
    if callers:
        template = (N_(" (in your function {function}, called from {callers}: `{line}`)") if line
                    else N_(" (in your function {function}, called from {callers})"))
    else:
        template = N_(" (in your function {function}: `{line}`)") if line else N_(" (in your function {function})")
    return _(template).format(**values)


def _grader_words(text):
    """``text`` in the grading's language when it is one of ``_GRADER_ERRORS`` (or another marked
    message), else unchanged."""
    for template in _GRADER_ERRORS:
        match = _pattern(template).match(text)
        if match:
            values = {name: (_grader_words(value) if name == "problem" else value)
                      for name, value in match.groupdict().items()}
            return _(template).format(**values)
    return _(text)


def learner_error(error):
    """A one-line error description as the learner reads it: the grader's own words in the grading's
    language (``NOT_IMPLEMENTED_LINE``, "returned something unusable", the worker's); the learner's
    exception text and Python's unchanged."""
    if not error or current() == ENGLISH:
        return error
    found = WHERE.search(error)
    text = error[:found.start()] if found else error
    if text == NOT_IMPLEMENTED_LINE:
        text = _(NOT_IMPLEMENTED_TEMPLATE).format(not_implemented=_(NOT_IMPLEMENTED))
    else:
        text = _grader_words(text)
    if found:
        text += _where_text(*where(error))
    return text


def describe(name, args, kwargs, arg_names):
    """'softmax(x, axis=0) with x of shape (4, 3)': how a call reads in a message."""
    parts, shapes = [], []
    for arg_name, value in zip(arg_names, args):
        parts.append(arg_name)
        if isinstance(value, np.ndarray):
            shapes.append(_("{name} of shape {shape}").format(name=arg_name, shape=value.shape))
        else:
            parts[-1] = f"{arg_name}={value!r}"
    for key, value in kwargs.items():
        if isinstance(value, np.ndarray):  # an array's repr spans lines: name its shape instead
            parts.append(key)
            shapes.append(_("{name} of shape {shape}").format(name=key, shape=value.shape))
        else:
            parts.append(f"{key}={value!r}")
    text = f"{name}({', '.join(parts)})"
    if not shapes:
        return text
    # Translators: joins "X of shape (4, 3)" and "W of shape (3, 5)" in a call's description.
    return _("{call} with {shapes}").format(call=text, shapes=pgettext("shapes", " and ").join(shapes))
