"""The public and the instructor's sides apart (issue 24): the public course the wheel ships, the
course's model-answer setting, and Validate's hidden inputs.

The wheel is built and installed in tests/test_learner_anywhere.py (marker ``venv``); here the public
course is written by the same code (autograder/public_course.py) into a scratch folder and graded in
this process.  tests/test_sandbox.py and tests/test_learner_anywhere.py search the sandbox's file
system for what this side must keep to itself.
"""
import copy
import importlib
import json
import shutil

import pytest

import helpers
from autograder import checks, engine, public_course
from autograder.course import Course, course_at
from autograder.notebooks import NotebookError

LIBRARY = helpers.REPO / "book" / "attention"


def write_public(source, target):
    """The public course of the source folder ``source``, written into ``target/solutions``: a course
    root that ``course_at`` (and ``check --course-root``) reads."""
    public_course.write_public_course(source, LIBRARY, target / "solutions")
    return course_at(target)


@pytest.fixture(scope="module")
def public(tmp_path_factory):
    """The public course of this repository's course, as the wheel ships it."""
    return write_public(helpers.REPO / "solutions", tmp_path_factory.mktemp("public"))


def scratch_source(tmp_path, registry_edit=None):
    """A copy of solutions/ whose registry text goes through ``registry_edit``."""
    source = tmp_path / "solutions"
    shutil.copytree(helpers.REPO / "solutions", source)
    if registry_edit:
        registry = source / "exercises.toml"
        registry.write_text(registry_edit(registry.read_text()))
    return source


def never(text):
    assert 'model_answers = "after-grading"' in text
    return text.replace('model_answers = "after-grading"', 'model_answers = "never"')


# ------------------------------------------------------------------ the reference is the library's
@pytest.mark.parametrize("exercise", helpers.EXERCISES, ids=lambda e: e.assignment)
def test_the_library_module_defines_every_contract_function(exercise):
    module = importlib.import_module(exercise.library_module)
    assert exercise.functions
    for name in exercise.functions:
        assert callable(getattr(module, name, None)), f"{exercise.library_module} has no {name}"


@pytest.mark.parametrize("exercise", helpers.EXERCISES, ids=lambda e: e.assignment)
def test_the_public_course_gives_the_reference_solution_full_marks(public, exercise):
    """Graded by the public course, whose reference solution is the library module, the source's
    reference solution earns every automatic point."""
    shipped = public.exercise(exercise.assignment)
    assert shipped.source.reference is importlib.import_module(exercise.library_module)
    assert shipped.functions == exercise.functions and shipped.source.manual_points == exercise.source.manual_points
    report = engine.run_tests(shipped, exercise.source.notebook, draw=helpers.TEST_DRAW)
    assert report.max_score > 0 and report.score == report.max_score, [t for t in report.tests if not t.passed]


def test_the_public_course_still_names_a_mistake(public):
    wrong = (helpers.SUBMISSIONS / "01_softmax" / "wrong" / "axis_ignored.py").read_text()
    report = engine.run_tests(public.exercise("01_softmax"), helpers.submission("01_softmax", wrong),
                              draw=helpers.TEST_DRAW)
    assert report.score < report.max_score
    assert any("the `axis` argument is ignored" in t.message for t in report.tests), report.tests


# ------------------------------------------------------------------ what the public course holds
@pytest.mark.parametrize("exercise", helpers.EXERCISES, ids=lambda e: e.assignment)
def test_a_public_notebook_is_the_release_plus_its_hidden_catalogue_calls(public, exercise):
    """Cell by cell, the public notebook is what nbgrader released (the same stubs where the solutions
    were), except that its hidden tests keep their calls of the public catalogue."""
    release = json.loads(exercise.release_path.read_text(encoding="utf-8"))["cells"]
    shipped = json.loads(public.exercise(exercise.assignment).source_path.read_text(encoding="utf-8"))["cells"]
    assert [public_course._nbgrader(c).get("grade_id") for c in shipped] == \
        [public_course._nbgrader(c).get("grade_id") for c in release]
    hidden = 0
    for mine, theirs in zip(shipped, release):
        without, regions = public_course._regions(mine["source"], public_course.HIDDEN_TESTS, None, "")
        assert without == public_course._text(theirs["source"]), public_course._nbgrader(mine)
        hidden += len(regions)
        assert mine.get("outputs", []) == []
    assert hidden == sum(1 for t in exercise.source.tests if "BEGIN HIDDEN TESTS" in t.source) > 0


def test_the_registry_is_copied_with_the_setting_and_the_library_reference(public):
    registry = public.registry
    assert registry["course"] == {"model_answers": "after-grading", "reference": "library",
                                  "reference_code": "after-full-marks"}
    assert [(e.assignment, e.chapter) for e in public.exercises] == \
        [(e.assignment, e.chapter) for e in helpers.EXERCISES]


def test_model_answers_ship_only_where_the_course_offers_them(public, tmp_path):
    for exercise in helpers.EXERCISES:
        assert public.exercise(exercise.assignment).model_answers == exercise.source.model_answers != {}
    closed = write_public(scratch_source(tmp_path / "in", never), tmp_path / "out")
    assert not (closed.source / public_course.MODEL_ANSWERS_FILE).exists()
    assert closed.settings["model_answers"] == "never"
    assert all(e.model_answers == {} for e in closed.exercises)
    texts = "\n".join(p.read_text() for p in closed.source.rglob("*") if p.is_file())
    for exercise in helpers.EXERCISES:
        [answer] = exercise.source.model_answers.values()
        assert answer[:60] not in texts


def test_an_instructors_own_exercise_is_never_shipped(tmp_path):
    source = scratch_source(tmp_path / "in", lambda text: text + '\n[[exercise]]\nnumber = 13\nname = "mine"\n')
    (source / "13_mine").mkdir()
    shutil.copy(source / "01_softmax" / "softmax.ipynb", source / "13_mine" / "mine.ipynb")
    assert course_at(tmp_path / "in").exercise("13_mine")   # registered in the instructor's course
    shipped = write_public(source, tmp_path / "out")
    assert [e.assignment for e in shipped.exercises] == [e.assignment for e in helpers.EXERCISES]
    assert not (shipped.source / "13_mine").exists()


@pytest.mark.parametrize("hidden", [
    "from autograder.catalogue.softmax import check_random\ncheck_random(softmax)\n"
    "assert softmax(np.array([3.0, 1.0]))[0] > 0.8",
    "from autograder.catalogue.softmax import check_random\ncheck_random(softmax, [0.25, 0.75])",
    "from mycourse.secret_checks import check_random\ncheck_random(softmax)",
    "EXPECTED = [0.09003057, 0.24472847, 0.66524096]",
], ids=["assertion", "literal-argument", "own-module", "constant"])
def test_a_hidden_test_that_is_more_than_catalogue_calls_stops_the_build(tmp_path, hidden):
    """What an instructor writes in a hidden test never reaches the wheel: the build fails, in one
    line naming the cell."""
    source = scratch_source(tmp_path)
    path = source / "01_softmax" / "softmax.ipynb"
    notebook = json.loads(path.read_text())
    cell = next(c for c in notebook["cells"] if public_course._nbgrader(c).get("grade_id") == "test_softmax_random")
    cell["source"] = f"### BEGIN HIDDEN TESTS\n{hidden}\n### END HIDDEN TESTS"
    path.write_text(json.dumps(notebook))
    with pytest.raises(public_course.PublicCourseError, match="test_softmax_random") as error:
        public_course.write_public_course(source, LIBRARY, tmp_path / "out")
    assert "\n" not in str(error.value)


def test_a_solution_cell_without_markers_stops_the_build(tmp_path):
    """nbgrader replaces such a cell whole, function definition included: the contract would be lost."""
    source = scratch_source(tmp_path)
    path = source / "01_softmax" / "softmax.ipynb"
    notebook = json.loads(path.read_text())
    cell = next(c for c in notebook["cells"] if public_course._nbgrader(c).get("grade_id") == "softmax_solution")
    cell["source"] = "\n".join(line for line in "".join(cell["source"]).split("\n") if "SOLUTION" not in line)
    path.write_text(json.dumps(notebook))
    with pytest.raises(public_course.PublicCourseError, match="BEGIN SOLUTION"):
        public_course.write_public_course(source, LIBRARY, tmp_path / "out")


def test_the_stubs_are_the_courses_nbgrader_stubs():
    from autograder.course import load_config
    config = load_config()
    assert config.ClearSolutions.code_stub == {"python": public_course.CODE_STUB}
    from nbgrader.preprocessors import ClearSolutions
    assert ClearSolutions(config=config).text_stub == public_course.TEXT_STUB


# ------------------------------------------------------------------ the course's setting
@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace('"after-grading"', '"always"'), "model_answers = 'always': must be 'never' or 'after-grading'"),
    (lambda t: t.replace("[course]", "[course]\nanswers = true"), "[course] has no setting 'answers'"),
    (lambda t: t.replace("[course]", "course = 1\n[x]"), "[course] must be a table"),
], ids=["bad-value", "unknown-setting", "not-a-table"])
def test_a_bad_course_setting_is_one_line(tmp_path, edit, message):
    scratch_source(tmp_path, edit)
    course = Course(tmp_path)
    with pytest.raises(NotebookError) as error:
        course.exercises
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_course_that_does_not_say_offers_no_model_answers(tmp_path):
    scratch_source(tmp_path, lambda text: text.replace('model_answers = "after-grading"', "").replace(
        'reference_code = "after-full-marks"', ""))
    course = Course(tmp_path)
    assert course.settings == {"model_answers": "never", "reference": "source", "reference_code": "never"}
    assert not course.offers_model_answers
    assert course.exercise("01_softmax").model_answers == {}
    assert course.exercise("01_softmax").source.model_answers   # still in the instructor's source


# ------------------------------------------------------------------ Validate draws as the self-check
def test_validate_grades_with_the_self_check_draw_never_the_class_runs(tmp_path, monkeypatch):
    """Issue 24: nbgrader's Validate is a learner's tool; its hidden inputs are a self-check's (issue 25:
    drawn from the code alone), never the class run's (the course's secret here exists and is readable)."""
    from autograder import course_secret, validate
    wrong = (helpers.SUBMISSIONS / "01_softmax" / "wrong" / "axis_ignored.py").read_text()
    submission = helpers.submission("01_softmax", wrong)
    root = helpers.course(tmp_path)
    secret = "a-course-secret-the-class-run-draws-from"
    (root / course_secret.SECRET_FILE).write_text(secret + "\n")
    monkeypatch.setenv("ATTENTION_COURSE_ROOT", str(root))
    monkeypatch.delenv(course_secret.SECRET_VARIABLE, raising=False)
    draws, run_tests = [], engine.run_tests

    def spy(*args, draw, **kwargs):
        draws.append(draw)
        return run_tests(*args, draw=draw, **kwargs)

    monkeypatch.setattr(validate.engine, "run_tests", spy)
    for _ in range(2):
        notebook, _resources = validate.HiddenChecks().preprocess(copy.deepcopy(submission), {})
    assert len(set(draws)) == 1   # the same code validated twice: one draw (and one report)
    assert draws[0] == checks.self_check_draw(submission)
    class_draw = course_secret.draw_of(secret)
    assert all(d.startswith("self-check:") and class_draw not in d for d in draws), draws
    assert checks.self_check_draw().startswith("self-check:")
    failed = [c for c in notebook.cells if c.get("outputs") and c.outputs[0].get("output_type") == "error"]
    assert failed   # it graded: the mistake is on a test cell


def test_the_public_course_prints_its_shipped_model_answers(public, tmp_path):
    """The self-check of the wheel's course (here --course-root on a copy of it) prints the model
    answers from model_answers.json: its notebooks hold only nbgrader's text stub."""
    import subprocess
    import sys
    correct = (helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py").read_text()
    path = helpers.write(helpers.submission("01_softmax", correct), tmp_path / "softmax.ipynb")
    result = subprocess.run([sys.executable, "-m", "autograder", "check", path.name, "--model-answers",
                             "--course-root", str(public.root)], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    report, _, answer = result.stdout.partition("\nModel answer (softmax_written_answer)")
    assert "7 / 7 points" in report and "shift invariant" in answer
