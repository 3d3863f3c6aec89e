"""One identity per exercise: everything derives from the registry, and any course root is honoured.

* The registry, the folders, the chapters, the library modules and the contract
  table of the introduction agree (the table is checked against the solutions'
  signatures).
* A course outside the repository, with a changed hidden test, is graded with
  its own test by the self-check and by the class run.
* A throwaway extra exercise (a source notebook, a catalogue, one registry
  entry) is picked up by the self-check, the class run and the release check
  with no other edit.
"""
import ast
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import nbformat
import pytest
import yaml

import helpers
from autograder import notebooks

EXERCISES = helpers.EXERCISES


def _signature(function):
    """'softmax(x, axis=-1)' for an ast.FunctionDef, as the contract table writes it."""
    args = function.args
    names = [a.arg for a in args.args]
    defaults = [ast.unparse(d) for d in args.defaults]
    parts = names[:len(names) - len(defaults)] + [f"{n}={d}" for n, d in zip(names[len(names) - len(defaults):], defaults)]
    return f"{function.name}({', '.join(parts)})"


def _solution_signatures(exercise):
    signatures = []
    for cell in exercise.source.notebook.cells:
        if cell.cell_type == "code" and notebooks.meta(cell).get("solution"):
            signatures += [_signature(node) for node in ast.parse(cell.source).body
                           if isinstance(node, ast.FunctionDef)]
    return signatures


def _contract_table():
    """{exercise number: [signature, ...]} from the table in book/intro.md."""
    text = (helpers.REPO / "book" / "intro.md").read_text()
    table, number = {}, None
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) < 2 or not cells[1].startswith("`"):
            continue
        match = re.match(r"(\d+)\.", cells[0])
        number = int(match.group(1)) if match else number
        table.setdefault(number, []).append(cells[1].strip("`"))
    return table


def test_contract_table_matches_the_solutions():
    table = _contract_table()
    assert sorted(table) == [e.number for e in EXERCISES], "the table lists other exercises than the registry"
    for exercise in EXERCISES:
        assert table[exercise.number] == _solution_signatures(exercise), exercise.assignment


def test_every_exercise_has_its_chapter_and_library_module():
    toc = yaml.safe_load((helpers.REPO / "_toc.yml").read_text())
    pages = {chapter["file"] for part in toc["parts"] for chapter in part["chapters"]}
    for exercise in EXERCISES:
        assert exercise.chapter in pages, f"{exercise.chapter} is not in _toc.yml"
        chapter = (helpers.REPO / f"{exercise.chapter}.ipynb").read_text()
        assert exercise.release_path.relative_to(helpers.REPO).as_posix() in chapter
        library = importlib.import_module(exercise.library_module)
        missing = [f for f in exercise.functions if not callable(getattr(library, f, None))]
        assert not missing, f"{exercise.library_module} lacks {missing}"
        assert exercise.catalogue.MISTAKES


def test_reading_path_has_one_step_per_chapter():
    toc = yaml.safe_load((helpers.REPO / "_toc.yml").read_text())
    chapters = [c["file"] for part in toc["parts"] for c in part["chapters"] if re.match(r"book/\d\d_", c["file"])]
    text = (helpers.REPO / "book" / "intro.md").read_text()
    path = text.split("## The reading path")[1].split("\n## ")[0]
    assert re.findall(r"^(\d+)\. \*\*", path, re.M) == [str(i) for i in range(1, len(chapters) + 1)]


def test_counts_are_not_written_as_words():
    """The README and the introduction derive counts; 'nine exercises' goes stale with the tenth."""
    words = "|".join(["six", "seven", "eight", "nine", "ten", "eleven", "twelve"])
    for path in ("README.md", "book/intro.md", "CONTRIBUTING.md", "book/learners.ipynb", "book/instructors.md"):
        text = (helpers.REPO / path).read_text().lower()
        found = re.findall(rf"\b({words}) (chapters|exercises)\b", text)
        assert not found, f"{path} writes a count: {found}"


# --------------------------------------------------------------------------- a course elsewhere
def _grade_cli(notebook, root, *extra):
    return subprocess.run([sys.executable, "-m", "autograder", "check", str(notebook), "--json",
                           "--course-root", str(root), *extra],
                          cwd=helpers.REPO, capture_output=True, text=True, env=_env())


def _env(**extra):
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [extra.pop("path", ""),
                                                                       os.environ.get("PYTHONPATH", "")])),
            **extra}


COURSE_TEST = "the course's own hidden test ran"


@pytest.mark.nbgrader
def test_a_course_elsewhere_is_graded_with_its_own_hidden_tests(tmp_path):
    root = helpers.course(tmp_path)
    source = root / "solutions" / "01_softmax" / "softmax.ipynb"
    notebook = nbformat.read(source, as_version=4)
    (cell,) = [c for c in notebook.cells if notebooks.meta(c).get("grade_id") == "test_softmax_axis"]
    cell.source = cell.source.replace("### END HIDDEN TESTS", f"raise AssertionError({COURSE_TEST!r})\n### END HIDDEN TESTS")
    nbformat.write(notebook, source)
    points = notebooks.meta(cell)["points"]
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    solved = helpers.submission("01_softmax", (helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py").read_text())

    # The self-check, pointed at that course.
    path = helpers.write(solved, tmp_path / "mine" / "softmax.ipynb")
    result = _grade_cli(path, root)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    failed = [t for t in report["tests"] if not t["passed"]]
    assert [t["grade_id"] for t in failed] == ["test_softmax_axis"] and COURSE_TEST in failed[0]["message"]
    # The same notebook against the repository's course earns full marks.
    here = json.loads(_grade_cli(path, helpers.REPO).stdout)
    assert here["score"] == here["max_score"]

    # The class run, with --course-root and nothing else, runs that course's tests too: its reference
    # solution cannot pass the test that always fails, so nobody is graded with it.
    helpers.write(solved, helpers.submitted(root, "alice"))
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", "01_softmax", "--no-progress",
                          "--course-root", str(root)], cwd=helpers.REPO, capture_output=True, text=True)
    assert run.returncode != 0 and len(run.stderr.strip().splitlines()) == 1, run.stderr
    assert f"scores {report['max_score'] - points:g}/{report['max_score']:g}" in run.stderr and COURSE_TEST in run.stderr
    assert helpers.gradebook_scores(root) == {}


# --------------------------------------------------------------------------- a throwaway exercise
TOY_CATALOGUE = '''
"""A throwaway exercise's catalogue: double(x) = 2 x."""
import numpy as np

from autograder.checks import Mistake, attempt, expect, reference

MISTAKES = [Mistake("squared", "you squared x instead of doubling it: return `2 * x`.",
                    lambda record: np.allclose(record.got, np.asarray(record.args[0]) ** 2))]


def check_double(double):
    x = np.array([3.0, -1.5, 4.0])
    expect(attempt(double, "double", (x,), want=reference(__name__).double(x), arg_names=("x",)), MISTAKES)
'''


def _toy_source():
    def meta(grade_id, **flags):
        return {"nbgrader": {"grade_id": grade_id, "schema_version": 3, "task": False, "locked": False,
                             "grade": False, "solution": False, **flags}}
    cells = [
        nbformat.v4.new_markdown_cell("Implement `double(x)`: twice its input.", metadata=meta("intro", locked=True)),
        nbformat.v4.new_code_cell("import numpy as np", metadata=meta("imports", locked=True)),
        nbformat.v4.new_code_cell('def double(x):\n    """2 x."""\n    ### BEGIN SOLUTION\n    return 2 * x\n'
                                  "    ### END SOLUTION", metadata=meta("double", solution=True)),
        nbformat.v4.new_code_cell('"""double doubles."""\n### BEGIN HIDDEN TESTS\n'
                                  "from toy_catalogue import check_double\ncheck_double(double)\n"
                                  "### END HIDDEN TESTS", metadata=meta("test_double", grade=True, locked=True,
                                                                          points=2)),
    ]
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata.kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return notebook


@pytest.mark.nbgrader
def test_a_new_exercise_needs_only_its_files_and_one_registry_entry(tmp_path):
    root = helpers.course(tmp_path)
    # 1. its source notebook, 2. its catalogue, 3. one registry entry: nothing else.
    helpers.write(_toy_source(), root / "solutions" / "10_toy" / "toy.ipynb")
    modules = tmp_path / "modules"
    modules.mkdir()
    (modules / "toy_catalogue.py").write_text(textwrap.dedent(TOY_CATALOGUE))
    with open(root / "solutions" / "exercises.toml", "a") as registry:
        registry.write('\n[[exercise]]\nnumber = 10\nname = "toy"\ncatalogue = "toy_catalogue"\n')
    env = _env(path=str(modules))

    # The release: generated by nbgrader, and the release check sees it current.
    subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", "10_toy",
                    f"--CourseDirectory.root={root}", f"--CourseDirectory.db_url={helpers.gradebook_url(root)}"],
                   cwd=helpers.REPO / "autograder", env=env, check=True, capture_output=True)
    from autograder.course import Course
    toy = Course(root).exercise("10_toy")
    assert toy.functions == ["double"] and toy.release_path.is_file()
    assert helpers.release_differences(toy, tmp_path / "regenerated", env=env) == []

    # The self-check: a right and a wrong answer.
    release = nbformat.read(toy.release_path, as_version=4)
    for code, score in (("def double(x):\n    return x + x", 2.0), ("def double(x):\n    return x ** 2", 0.0)):
        for cell in release.cells:
            if notebooks.meta(cell).get("solution"):
                cell.source = code
        path = helpers.write(release, tmp_path / f"learner-{int(score)}" / "toy.ipynb")
        result = subprocess.run([sys.executable, "-m", "autograder", "check", str(path), "--json",
                                 "--course-root", str(root)], capture_output=True, text=True, env=env)
        assert result.returncode == 0, result.stderr
        report = json.loads(result.stdout)
        assert (report["assignment"], report["score"], report["max_score"]) == ("10_toy", score, 2.0)
        if not score:
            assert "you squared x" in report["tests"][0]["message"]

        # The class run: the same notebook handed in by a student.
        handed_in = helpers.submitted(root, f"student{int(score)}", "toy.ipynb", "10_toy")
        handed_in.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, handed_in)
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", "10_toy", "--no-progress",
                          "--course-root", str(root)], cwd=helpers.REPO, capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert helpers.gradebook_scores(root, "10_toy") == {"student2": 2.0, "student0": 0.0}
