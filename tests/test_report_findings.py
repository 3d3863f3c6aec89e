"""The misconception report counts the findings the grader recorded, never text (issue 24).

A learner's exception text reaches the feedback, so a report that searched the
feedback for catalogue messages counted mistakes a submission cannot make.  The
grader now records, with each test's result, the ids of the mistakes its checks
named, sealed with the course's secret in the autograded notebook's test cell
(``preprocessors.record``); the report counts those.  A record a submission
brings is removed when it is graded, and one found in a notebook graded without
the project's engine does not verify: that notebook counts as unknown.
"""
import copy
import csv
import json

import pytest

import helpers
from autograder import course_secret, i18n, notebooks, preprocessors, report
from autograder.course import course_at
from autograder.results import Kind

pytestmark = pytest.mark.nbgrader

ASSIGNMENT = "01_softmax"
QUOTED = ("axis_ignored", "no_max_subtraction", "whole_array")   # mistakes the quoting submission cannot make
CORRECT = (helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py").read_text()
AXIS_IGNORED = (helpers.SUBMISSIONS / "01_softmax" / "wrong" / "axis_ignored.py").read_text()


def _messages(language):
    catalogue = {m.id: m for m in helpers.catalogue(ASSIGNMENT).MISTAKES}
    with i18n.language(language):
        return [catalogue[i].translated() for i in QUOTED]


def _quoting(language):
    """A softmax that makes no mistake of its own: every call raises, quoting one catalogue message after
    another in the feedback's language."""
    return (f"MESSAGES = {_messages(language)!r}\n"
            "CALLS = [0]\n\n"
            "def softmax(x, axis=-1):\n"
            "    CALLS[0] += 1\n"
            "    raise ValueError(MESSAGES[CALLS[0] % len(MESSAGES)])\n")


def _forged(notebook):
    """Records of every catalogued mistake in every cell's metadata, as a learner can write them."""
    forged = {"kind": Kind.FAILED.value, "findings": list(QUOTED), "seal": "0" * 64}
    for cell in notebook.cells:
        cell.metadata[preprocessors.RECORD] = copy.deepcopy(forged)
    return notebook


def _ja(notebook):
    notebook.metadata["attention_book"] = {"language": "ja"}
    return notebook


SUBMISSIONS = {
    "quoter_en": lambda: helpers.submission(ASSIGNMENT, _quoting("en")),
    "quoter_ja": lambda: _ja(helpers.submission(ASSIGNMENT, _quoting("ja"))),
    "forger": lambda: _forged(helpers.submission(ASSIGNMENT, CORRECT)),
    "carol": lambda: helpers.submission(ASSIGNMENT, AXIS_IGNORED),   # the real mistake, to be counted
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A scratch course whose class `nbgrader autograde` graded (the course's configuration)."""
    root = helpers.course(tmp_path_factory.mktemp("findings"))
    helpers.nbgrader("generate_assignment", ASSIGNMENT, root=root)
    for student, notebook in SUBMISSIONS.items():
        helpers.write(notebook(), helpers.submitted(root, student))
    helpers.nbgrader("autograde", ASSIGNMENT, root=root)
    return course_at(root)


def _autograded(course, student):
    return course.autograded / student / ASSIGNMENT / "softmax.ipynb"


def _feedback_text(course, student):
    return " ".join(message for _grade_id, _ename, message in notebooks.test_cell_errors(_autograded(course, student)))


def test_exceptions_quoting_catalogue_messages_are_counted_for_no_mistake(graded):
    # The feedback does quote the three messages, in either language: a search of it would count them.
    for student, language in (("quoter_en", "en"), ("quoter_ja", "ja")):
        text = _feedback_text(graded, student)
        assert all(message in text for message in _messages(language)), (student, text[:300])
    students, counts, _texts = report.count_mistakes(graded, ASSIGNMENT)
    assert students == sorted(SUBMISSIONS)
    assert {mistake: counts[mistake] for mistake in QUOTED} == {"axis_ignored": 1, "no_max_subtraction": 0,
                                                                 "whole_array": 0}   # carol's, the real one
    assert counts["(other wrong answer)"] == 2 and counts[report.UNKNOWN] == 0, counts


def test_a_submitted_record_is_replaced_by_the_graders(graded):
    """The forger's records are gone from the autograded notebook: every test cell holds the grader's
    (passed: her code is right), and no other cell holds one."""
    notebook = notebooks.read_notebook(_autograded(graded, "forger"))
    key = course_secret.seal_key(graded)
    for cell in notebook.cells:
        grade_id = notebooks.meta(cell).get("grade_id")
        if notebooks.is_test_cell(cell):
            assert preprocessors.read_record(key, (ASSIGNMENT, "softmax", "forger", grade_id), cell) == \
                (Kind.PASSED, ()), grade_id
        else:
            assert preprocessors.RECORD not in cell.metadata, grade_id
    _students, counts, _texts = report.count_mistakes(graded, ASSIGNMENT)
    assert counts["whole_array"] == 0 and counts["no_max_subtraction"] == 0


def _regraded_elsewhere(graded, student, notebook):
    """``notebook`` put in the autograded folder of ``student``, as a grader without the project's engine
    (stock nbgrader, an older version) leaves a submission: its metadata as the learner wrote it."""
    path = _autograded(graded, student)
    helpers.write(notebook, path)
    return path


def test_records_that_do_not_verify_count_as_unknown(graded):
    """Stock nbgrader keeps a learner's forged records; a record sealed for a classmate is hers only; an
    older grader wrote none: each of those notebooks counts as unknown, in one line, and for nothing else."""
    carol = notebooks.read_notebook(_autograded(graded, "carol"))
    paths = [_regraded_elsewhere(graded, "stock", _forged(helpers.submission(ASSIGNMENT, CORRECT))),
             _regraded_elsewhere(graded, "copied", carol),                     # carol's sealed records
             _regraded_elsewhere(graded, "older", helpers.submission(ASSIGNMENT, AXIS_IGNORED))]
    try:
        students, counts, texts = report.count_mistakes(graded, ASSIGNMENT)
        assert len(students) == len(SUBMISSIONS) + 3
        assert counts[report.UNKNOWN] == 3 and report.UNKNOWN in texts
        assert counts["axis_ignored"] == 1 and counts["whole_array"] == 0, counts   # carol alone
        page = report.write_report(graded, ASSIGNMENT, out_dir=graded.root / "report").read_text(encoding="utf-8")
        [line] = [line for line in page.splitlines() if "no findings recorded" in line]
        assert line.startswith("3 of them") and "--force" in line
        assert f"| `{report.UNKNOWN}` | 3 |" in page
    finally:
        for path in paths:
            path.unlink()
            path.parent.rmdir()
            path.parent.parent.rmdir()


def test_records_are_bound_to_their_test_and_kind(graded):
    """A sealed record moved to another test cell, or with its findings edited, does not verify."""
    notebook = notebooks.read_notebook(_autograded(graded, "carol"))
    key = course_secret.seal_key(graded)
    cells = {notebooks.meta(c)["grade_id"]: c for c in notebook.cells if notebooks.is_test_cell(c)}
    axis = cells["test_softmax_axis"]
    where = (ASSIGNMENT, "softmax", "carol")
    assert preprocessors.read_record(key, (*where, "test_softmax_axis"), axis) == (Kind.FAILED, ("axis_ignored",))
    assert preprocessors.read_record(key, (*where, "test_softmax_random"), axis) is None
    edited = copy.deepcopy(axis)
    edited.metadata[preprocessors.RECORD]["findings"] = ["whole_array"]
    assert preprocessors.read_record(key, (*where, "test_softmax_axis"), edited) is None
    assert preprocessors.read_record(b"another course", (*where, "test_softmax_axis"), axis) is None


def test_the_report_needs_the_course_secret(graded, monkeypatch, tmp_path):
    """Without the secret the records cannot be verified: one line, never a guess."""
    import shutil
    copy_root = tmp_path / "copy"
    shutil.copytree(graded.root, copy_root, ignore=shutil.ignore_patterns("grading-secret"))
    monkeypatch.delenv(course_secret.SECRET_VARIABLE, raising=False)
    with pytest.raises(notebooks.NotebookError) as refused:
        report.count_mistakes(course_at(copy_root), ASSIGNMENT)
    assert "\n" not in str(refused.value) and course_secret.SECRET_FILE in str(refused.value)


def test_the_records_hold_ids_not_text(graded):
    """What is recorded is ids and kinds: nothing of the learner's exception text."""
    notebook = json.loads(_autograded(graded, "quoter_en").read_text(encoding="utf-8"))
    records = [cell["metadata"][preprocessors.RECORD] for cell in notebook["cells"]
               if preprocessors.RECORD in cell["metadata"]]
    assert len(records) == len(helpers.exercise(ASSIGNMENT).source.tests)
    assert all(set(r) == {"kind", "findings", "seal"} and r["findings"] == [] for r in records), records


# --------------------------------------------------------------------------- the causes a learner can name
# A learner chooses an error's name: ``raise SyntaxError(...)``, a class of her own called
# ModuleNotFoundError, an import in a cell that is not graded.  The report counts a cause only for a student
# whose tests failed, only for an error of a cell that defines the graded code, and only as that cell's code
# shows it (it does not compile; it imports the module).  The reviewer's forged cases, graded for real.
GOOD = ("def softmax(x, axis=-1):\n"
        "    x = np.asarray(x, dtype=float)\n"
        "    m = np.max(x, axis=axis, keepdims=True)\n"
        "    m = np.where(np.isfinite(m), m, 0.0)\n"
        "    e = np.exp(x - m)\n"
        "    return e / np.sum(e, axis=axis, keepdims=True)\n")
WRONG = GOOD.replace("return e / np.sum(", "return 1.01 * e / np.sum(")   # no catalogued mistake names it
FAKE_SYNTAX = "\nraise SyntaxError('invalid syntax (<ipython>, line 1)')\n"
FAKE_TORCH = "\nraise ModuleNotFoundError(\"No module named 'torch'\")\n"
FAKE_NUMPY = "\nclass ModuleNotFoundError(Exception): pass\nraise ModuleNotFoundError(\"No module named 'numpy'\")\n"
BROKEN = "def softmax(x, axis=-1):\n    return (\n"
# student: (solution cell, "try it" cell or None, the causes expected, the mistakes' row expected or None)
FORGED = {
    "fake_syntax": (GOOD + FAKE_SYNTAX, None, {}, None),                 # full marks: no cause, no row
    "fake_torch": (GOOD + FAKE_TORCH, None, {}, None),
    "fake_numpy": (GOOD + FAKE_NUMPY, None, {}, None),
    "fake_timeout": (GOOD + "\nclass Timeout(Exception): pass\nraise Timeout('x')\n", None, {}, None),
    "scratch_torch": (GOOD, "import torch\n", {}, None),
    "scratch_syntax": (GOOD, "def f(:\n", {}, None),
    "wrong_plus_scratch_import": (WRONG, "import torch\n", {}, report.OTHER),
    "wrong_plus_scratch_syntax": (WRONG, "def f(:\n", {}, report.OTHER),
    "wrong_only": (WRONG, None, {}, report.OTHER),
    "wrong_fake_syntax": (WRONG + FAKE_SYNTAX, None, {"other_error": set()}, report.STOPPED),
    "wrong_fake_torch": (WRONG + FAKE_TORCH, None, {"other_error": set()}, report.STOPPED),
    "wrong_fake_numpy": (WRONG + FAKE_NUMPY, None, {"other_error": set()}, report.STOPPED),
    "magic_wrong_fake_syntax": ("%matplotlib inline\n" + WRONG + FAKE_SYNTAX, None, {"other_error": set()},
                                report.STOPPED),
    "real_syntax": (BROKEN, None, {"syntax_error": set()}, report.STOPPED),
    "magic_real_syntax": ("%matplotlib inline\n" + BROKEN, None, {"syntax_error": set()}, report.STOPPED),
    "real_torch": ("import torch\n" + GOOD, None, {"package_outside_course": {"torch"}}, report.STOPPED),
}


def _forged_submission(solution, scratch):
    notebook = helpers.submission(ASSIGNMENT, CORRECT)
    [cell] = [c for c in notebook.cells if notebooks.meta(c).get("grade_id") == "softmax_solution"]
    cell.source = solution
    if scratch is not None:
        # the "try your function here" cell: a code cell of the learner's own, not graded
        try_cell = next(c for c in notebook.cells if c.cell_type == "code" and not notebooks.meta(c))
        try_cell.source = scratch
    return notebook


@pytest.fixture(scope="module")
def forged(tmp_path_factory):
    root = helpers.course(tmp_path_factory.mktemp("forged"))
    helpers.nbgrader("generate_assignment", ASSIGNMENT, root=root)
    for student, (solution, scratch, _causes, _row) in FORGED.items():
        helpers.write(_forged_submission(solution, scratch), helpers.submitted(root, student))
    helpers.nbgrader("autograde", ASSIGNMENT, root=root)
    return course_at(root)


def _error_names(course, student):
    notebook = notebooks.read_notebook(_autograded(course, student))
    return {(notebooks.meta(cell).get("grade_id"), output["ename"]) for cell in notebook.cells
            if cell.cell_type == "code" and not notebooks.is_test_cell(cell)
            for output in cell.get("outputs", []) if output.get("output_type") == "error"}


def test_an_error_name_the_learner_chose_is_no_cause(forged):
    # the grader did write the names the learner chose, where she raised them
    assert _error_names(forged, "fake_syntax") == {("softmax_solution", "SyntaxError")}
    assert _error_names(forged, "fake_numpy") == {("softmax_solution", "ModuleNotFoundError")}
    assert _error_names(forged, "scratch_torch") == {(None, "ModuleNotFoundError")}
    assert _error_names(forged, "scratch_syntax") == {(None, "SyntaxError")}
    assert _error_names(forged, "wrong_plus_scratch_import") == {(None, "ModuleNotFoundError")}
    assert _error_names(forged, "magic_wrong_fake_syntax") == {("softmax_solution", "SyntaxError")}
    found = report.class_findings(forged, ASSIGNMENT)
    assert found.students == sorted(FORGED)
    for student, (_solution, _scratch, causes, row) in FORGED.items():
        assert found.causes[student] == causes, student
        assert found.rows[student] == ({row} if row else set()), (student, found.rows[student])


def test_the_page_counts_only_the_causes_the_code_shows(forged, tmp_path):
    path = report.write_report(forged, ASSIGNMENT, out_dir=tmp_path / "report")
    with open(path.parent / "stops.csv", encoding="utf-8", newline="") as handle:
        stops = {row[0]: int(row[1]) for row in list(csv.reader(handle))[1:]}
    assert stops == {"syntax_error": 2, "missing_course_module": 0, "package_outside_course": 1, "timeout": 0,
                     "crash": 0, "other_error": 4}
    page = path.read_text(encoding="utf-8")
    assert f"| `{report.OTHER}` | 3 |" in page and f"| `{report.STOPPED}` | 7 |" in page
    instructor = (path.parent / "instructor-only" / "students.md").read_text(encoding="utf-8")
    assert "| `package_outside_course` | real\\_torch | `torch` |" in instructor and "`numpy`" not in instructor
    with open(path.parent / "instructor-only" / "students.csv", encoding="utf-8", newline="") as handle:
        stopped = sorted((row[0], row[3]) for row in csv.reader(handle) if row[2] == "stopped")
    assert stopped == sorted((student, cause) for student, (_solution, _scratch, causes, _row) in FORGED.items()
                             for cause in causes)


def test_a_cause_is_verified_from_the_cells_code():
    """The checks themselves: a SyntaxError is believed when the code does not compile (IPython's magics as
    the grader runs them), an import when the code imports that module (top-level package compared)."""
    modules = frozenset({"numpy", "attention"})
    no_torch = "ModuleNotFoundError: No module named 'torch'"
    assert report._cell_cause(BROKEN, "SyntaxError", "SyntaxError: x", modules) == ("syntax_error",)
    assert report._cell_cause("%time y = 1\n!ls\n" + BROKEN, "SyntaxError", "x", modules) == ("syntax_error",)
    assert report._cell_cause("%time y = 1\n!ls\n" + GOOD, "SyntaxError", "x", modules) == ("other_error",)
    assert report._cell_cause("x = compile('(', 'f', 'exec')", "SyntaxError", "x", modules) == ("other_error",)
    assert report._cell_cause("\tif True:\n  x = 1\n   y = 2\n", "IndentationError", "x", modules) == \
        ("syntax_error",)
    assert report._cell_cause("import torch.nn as nn\n", "ModuleNotFoundError", no_torch, modules) == \
        ("package_outside_course", "torch")
    assert report._cell_cause("def f():\n    from torch import nn\n", "ModuleNotFoundError", no_torch,
                              modules) == ("package_outside_course", "torch")
    assert report._cell_cause("import torchvision\n", "ModuleNotFoundError", no_torch, modules) == ("other_error",)
    assert report._cell_cause("__import__('torch')\n", "ModuleNotFoundError", no_torch, modules) == ("other_error",)
    assert report._cell_cause("from attention.softmax import softmax\n", "ModuleNotFoundError",
                              "ModuleNotFoundError: No module named 'attention'", modules) == \
        ("missing_course_module", "attention")
    assert report._cell_cause("from . import torch\n", "ModuleNotFoundError", no_torch, modules) == ("other_error",)
    assert report._cell_cause("x = (" * 300 + ")" * 300, "SyntaxError", "x", modules) == ("syntax_error",)
