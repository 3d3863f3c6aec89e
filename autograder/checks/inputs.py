"""Hidden inputs and the reference: what a check draws its inputs from and compares with.

``rng(label)`` seeds a generator from the *draw* the engine grades with (``grading(exercise,
draw=...)``): the class run draws from a secret the instructor's course holds
(``course_secret.class_draw``), so that nobody can predict them and a regrade with the same secret
gives the same inputs and the same scores; a self-check draws from the learner's code alone
(``self_check_draw``), so that checking the same code again gives the same report."""
import contextlib
import contextvars
import hashlib
import secrets

import numpy as np

_GRADING = contextvars.ContextVar("grading", default=None)


_DRAW = contextvars.ContextVar("draw", default=None)


@contextlib.contextmanager
def grading(exercise, draw=None):
    """While the block runs, ``reference`` answers from ``exercise``'s course and ``rng`` draws the
    hidden inputs of ``draw`` (the engine sets both; see ``course_secret.class_draw`` and ``self_check_draw``)."""
    token, draw_token = _GRADING.set(exercise), _DRAW.set(draw)
    try:
        yield
    finally:
        _DRAW.reset(draw_token)
        _GRADING.reset(token)


# --------------------------------------------------------------------------- hidden inputs
# Outside the engine (a notebook kernel, stock nbgrader): fresh inputs.  Never the course's secret: there
# the learner's code shares the process (and its environment) with the tests.
_LOCAL_DRAW = f"local:{secrets.token_hex(16)}"


def self_check_draw(submission=None):
    """The draw of a learner's self-check of ``submission`` (a notebook), never the class run's.

    A function of the learner's code cells alone: five self-checks in a row of the same code give one
    report, and any change to the code draws new inputs.  Without a submission (a test sampling many
    draws), a fresh draw."""
    if submission is None:
        return f"self-check:{secrets.token_hex(16)}"
    import json
    from .. import notebooks
    # the code alone: not where its cells stand among markdown cells, nor line endings or trailing blanks
    code = json.dumps([notebooks.normalised_code(source) for _index, source in notebooks.learner_cells(submission)])
    return f"self-check:{hashlib.sha256(code.encode()).hexdigest()}"


def rng(label):
    """The generator of a check's hidden inputs: ``label`` names the check (e.g. "softmax/random").

    Seeded from the draw being graded and the exercise, so that values cannot be predicted from the
    published catalogue and differ between a self-check and the class run.  Shapes stay the
    catalogue's choice; only the values are drawn.
    """
    exercise = _GRADING.get()
    draw = _DRAW.get() or _LOCAL_DRAW
    assignment = exercise.assignment if exercise is not None else "-"
    digest = hashlib.sha256(f"{draw}\0{assignment}\0{label}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:16], "big"))


def reference(catalogue):
    """The reference solution of the exercise whose catalogue is the module named ``catalogue``.

    A catalogue passes its ``__name__``.  The solution comes from the source
    notebook of the course being graded, or of the default course outside the
    engine (in a notebook kernel run by stock nbgrader).
    """
    return _exercise(lambda e: e.catalogue_name == catalogue, catalogue).source.reference


def reference_function(name):
    """The reference solution of the contract's function ``name`` in the course being graded."""
    return getattr(_exercise(lambda e: name in e.source.functions, name).source.reference, name)


def softmax(x, axis=-1):
    """The softmax that mistake models use: the softmax exercise's reference solution, warnings silenced.

    (Mistake models feed it what a wrong formula produces, -inf rows included.)
    """
    with np.errstate(invalid="ignore", over="ignore"):
        return _exercise(lambda e: e.name == "softmax", "softmax").source.reference.softmax(
            np.asarray(x, dtype=float), axis=axis)


def _exercise(wanted, what):
    from ..course import default_course
    graded = _GRADING.get()
    for course in ([graded.course] if graded is not None else []) + [default_course()]:
        for exercise in course.exercises:
            if wanted(exercise):
                return exercise
    raise LookupError(f"no exercise for {what} in the course being graded")
