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
