"""A learner without the repository: the book's wheel in a fresh venv, a chapter run
from an empty folder, a downloaded exercise checked from inside the notebook and from
the command line (issue 13).

The wheel is built from a copy of the sources; the venvs install it and its light
dependencies from the machine's package index, never from the repository path.
"""
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import helpers
import learner_cells
from test_book import toc_files

pytestmark = pytest.mark.venv

CORRECT = (helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py").read_text()
WRONG = (helpers.SUBMISSIONS / "01_softmax" / "wrong" / "axis_ignored.py").read_text()
AXIS_MISTAKE = "the `axis` argument is ignored"
# What a learner's venv must not pull in: the book-building and instructor stack.
HEAVY = {"jupyter-book", "sphinx", "nbgrader", "playwright", "psycopg", "nbformat", "jsonschema"}


def run(command, **kwargs):
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True, timeout=900, **kwargs)
    assert result.returncode == 0, f"{command}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def venv(folder, *packages):
    run([sys.executable, "-m", "venv", folder])
    python = folder / "bin" / "python"
    if packages:
        run([python, "-m", "pip", "install", "--quiet", *packages])
    return python


def build_wheel(tmp_path_factory, model_answers=None):
    """The book's wheel, built (no build isolation, no network) from a copy of the sources, as
    book/_ext/book_wheel.py builds it; with ``model_answers``, the registry's [course] setting."""
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(helpers.REPO / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints", "submitted", "autograded",
                                    "feedback", "gradebook.db*", "downloaded", "grading-log", "reports")
    for folder in ("autograder", "book/attention", "solutions"):
        shutil.copytree(helpers.REPO / folder, source / folder, ignore=ignore)
    if model_answers:
        registry = source / "solutions" / "exercises.toml"
        text = registry.read_text()
        assert 'model_answers = "after-grading"' in text
        registry.write_text(text.replace('model_answers = "after-grading"', f"model_answers = {model_answers!r}"))
    out = tmp_path_factory.mktemp("wheel")
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", out, source])
    [built] = out.glob("*.whl")
    return built


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The book's wheel, built from the repository's course (which offers its model answers)."""
    return build_wheel(tmp_path_factory)


@pytest.fixture(scope="module")
def wheel_never(tmp_path_factory):
    """The wheel of a course whose registry says model_answers = "never"."""
    return build_wheel(tmp_path_factory, model_answers="never")


@pytest.fixture(scope="module")
def wheel_only(tmp_path_factory, wheel):
    """A fresh venv holding only the wheel and its dependencies."""
    return venv(tmp_path_factory.mktemp("venv-wheel") / "venv", wheel)


@pytest.fixture(scope="module")
def jupyter_venv(tmp_path_factory):
    """A fresh venv with a kernel and nbclient, but not the book's package."""
    return venv(tmp_path_factory.mktemp("venv-jupyter") / "venv", "ipykernel", "nbclient")


def test_wheel_is_named_per_the_standard_and_declares_light_dependencies(wheel):
    project = tomllib.loads((helpers.REPO / "pyproject.toml").read_text())["project"]
    assert wheel.name == f"{project['name'].replace('-', '_')}-{project['version']}-py3-none-any.whl"
    import zipfile
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(f"{wheel.name.split('-py3')[0]}.dist-info/METADATA").decode()
    # The public course (autograder/public_course.py): each exercise's notebook, without its solutions.
    assert "autograder/course_data/exercises.toml" in names
    for exercise in helpers.EXERCISES:
        assert f"autograder/course_data/{exercise.assignment}/{exercise.notebook}" in names
    assert "attention/softmax.py" in names
    requires = [line.split(":", 1)[1].strip().lower() for line in metadata.splitlines()
                if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert not [r for r in requires if any(r.startswith(h) for h in HEAVY)], requires


def wheel_texts(wheel):
    """{name: text} of every file in ``wheel`` (bytes decoded as UTF-8, undecodable ones replaced)."""
    import zipfile
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name).decode("utf-8", "replace") for name in archive.namelist()}


def test_no_file_of_the_wheel_holds_a_solution(wheel, wheel_never):
    """Issue 24: what learners install holds no line of a source notebook's solution cells that the
    public book does not show (in a release, the library, the catalogue), and a model answer only
    where the course offers them, in model_answers.json (the book's own course); a course that says
    "never" ships none at all."""
    import filesystem_walker as walker
    search = walker.solution_needles(helpers.REPO / "solutions")
    assert any(label.startswith("solution") for label in search) and any(
        label.startswith("model answer") for label in search)
    sources = [path.read_text() for path in (helpers.REPO / "solutions").glob("*/*.ipynb")]
    assert all(any(needle in text for text in sources) for needle in search.values())   # the search can find
    for built, offered in ((wheel, True), (wheel_never, False)):
        texts = wheel_texts(built)
        found = {(label, name) for label, needle in search.items() for name, text in texts.items() if needle in text}
        solutions = {pair for pair in found if pair[0].startswith("solution")}
        assert solutions == set(), solutions
        answers_file = "autograder/course_data/model_answers.json"
        answers = {(label, name) for label, name in found if label.startswith("model answer")}
        expected = {(label, answers_file) for label in search if label.startswith("model answer")}
        assert answers == (expected if offered else set()), (built, answers)
        assert (answers_file in texts) is offered
        registry = tomllib.loads(texts["autograder/course_data/exercises.toml"])
        assert registry["course"] == {"model_answers": "after-grading" if offered else "never", "reference": "library",
                                      "reference_code": "after-full-marks"}


def test_wheel_venv_holds_nothing_heavy(wheel_only):
    listed = run([wheel_only, "-m", "pip", "list", "--format=json"]).stdout
    installed = {p["name"].lower() for p in json.loads(listed)}
    assert "attention-book" in installed
    assert not installed & HEAVY, installed & HEAVY


def downloaded(folder, code):
    """The exercise as a learner downloads it, filled in with ``code``, alone in ``folder``."""
    folder.mkdir(parents=True)
    return helpers.write(helpers.submission("01_softmax", code), folder / "softmax.ipynb")


@pytest.mark.parametrize("code, full", [(CORRECT, True), (WRONG, False)], ids=["correct", "wrong"])
def test_command_line_check_in_an_empty_folder(tmp_path, wheel_only, code, full):
    notebook = downloaded(tmp_path / "mine", code)
    result = run([wheel_only, "-m", "autograder", "check", notebook.name, "--json"], cwd=notebook.parent)
    report = json.loads(result.stdout)
    assert report["max_score"] == 7.0
    assert (report["score"] == 7.0) is full
    assert full or any(AXIS_MISTAKE in t["message"] for t in report["tests"])
    human = run([wheel_only, "-m", "autograder", "check", notebook.name], cwd=notebook.parent).stdout
    assert "(+1 written answer, graded by your instructor)" in human


EXECUTE = """
import sys
from pathlib import Path
import nbclient, nbformat
path = Path(sys.argv[1])
notebook = nbformat.read(path, as_version=4)
nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                        resources={"metadata": {"path": str(path.parent)}}).execute()
nbformat.write(notebook, path.with_name("executed.ipynb"))
"""


def execute(python, notebook, env=None):
    """Run every cell of ``notebook`` in a kernel of ``python``'s venv; the executed copy."""
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    environment["PATH"] = f"{python.parent}{os.pathsep}/usr/bin:/bin"
    environment.update(env or {})
    run([python, "-c", EXECUTE, notebook], cwd=notebook.parent, env=environment)
    return json.loads(notebook.with_name("executed.ipynb").read_text())


def outputs_text(cell):
    return "".join(o.get("text", "") if isinstance(o.get("text", ""), str) else "".join(o["text"])
                   for o in cell.get("outputs", []))


@pytest.fixture(scope="module")
def chapter_run(tmp_path_factory, jupyter_venv, wheel):
    """Chapter 1 copied alone into an empty folder and run: its first cell installs the wheel."""
    folder = tmp_path_factory.mktemp("chapter")
    notebook = folder / "01_softmax.ipynb"
    shutil.copy(helpers.REPO / "book" / "01_softmax.ipynb", notebook)
    return execute(jupyter_venv, notebook, {learner_cells.PACKAGE_VARIABLE: str(wheel)})


def test_a_chapter_runs_outside_the_repository(chapter_run):
    code = [c for c in chapter_run["cells"] if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    assert code and all(c["execution_count"] is not None for c in code)
    assert not [o for c in code for o in c["outputs"] if o["output_type"] == "error"]


@pytest.mark.parametrize("code, full", [(CORRECT, True), (WRONG, False)], ids=["correct", "wrong"])
def test_check_cell_grades_the_notebook_it_is_in(tmp_path, chapter_run, jupyter_venv, code, full):
    # chapter_run has installed the wheel into jupyter_venv, as the chapter's first cell does
    notebook = downloaded(tmp_path / "downloads", code)
    # What jupyter_server tells a kernel it starts for a notebook (JupyterLab, Notebook 7).
    executed = execute(jupyter_venv, notebook, {"JPY_SESSION_NAME": str(notebook)})
    check = [c for c in executed["cells"]
             if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == learner_cells.SELF_CHECK_ID]
    assert len(check) == 1 and executed["cells"][-1] is check[0]
    text = outputs_text(check[0])
    assert "Graded the copy saved at" in text and "save first" in text, text
    assert "(+1 written answer, graded by your instructor)" in text, text
    if full:
        assert "7 / 7 points" in text, text
    else:
        assert AXIS_MISTAKE in text and "FAIL  test_softmax_axis" in text, text


RUN_ONE_CELL = """
import json, sys
import nbclient, nbformat
notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(sys.argv[1])])
client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3")
try:
    client.execute()
except nbclient.exceptions.CellExecutionError:
    pass
print(json.dumps(notebook.cells[0].outputs))
"""


@pytest.mark.parametrize("cell", ["chapter", "self-check"])
def test_a_kernel_without_the_package_gets_one_line_with_the_command(tmp_path, cell):
    """A kernel whose environment lacks the package, where pip cannot install it (here: no such wheel),
    gets one line naming that Python and the command that installs the package, not pip's noise and
    a traceback; where pip succeeds it says nothing (the chapter test)."""
    bare = venv(tmp_path / "venv", "ipykernel", "nbclient")
    missing = tmp_path / "no_such_wheel-0.0.0-py3-none-any.whl"
    source = learner_cells.chapter_cell() if cell == "chapter" else learner_cells.self_check_cell()
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    environment.update(PATH=f"{bare.parent}{os.pathsep}/usr/bin:/bin", **{learner_cells.PACKAGE_VARIABLE: str(missing)})
    outputs = json.loads(run([bare, "-c", RUN_ONE_CELL, source], cwd=tmp_path, env=environment).stdout)
    assert [o["output_type"] for o in outputs] == ["error"], outputs
    assert len(outputs[0]["traceback"]) == 1, outputs[0]["traceback"]
    line = outputs[0]["traceback"][0]
    assert "\n" not in line and f"This kernel's Python ({bare})" in line
    assert f'"{bare}" -m pip install "{missing}"' in line, line


# ------------------------------------------------------------------ the cells themselves
CHAPTERS = [f for f in toc_files() if (helpers.REPO / f"{f}.ipynb").exists()
            and Path(f).name[:2].isdigit()]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_chapter_starts_with_the_install_cell(chapter):
    """Uniform, made from _config.yml's repository.url, and silent in the repository."""
    notebook = json.loads((helpers.REPO / f"{chapter}.ipynb").read_text())
    first = next(c for c in notebook["cells"] if c["cell_type"] == "code")
    assert "".join(first["source"]) == learner_cells.chapter_cell(), (
        f"{chapter}: run `python tests/learner_cells.py` to write the install cell")
    assert first["outputs"] == []


@pytest.mark.parametrize("exercise", helpers.EXERCISES, ids=lambda e: e.assignment)
def test_every_exercise_ends_with_the_self_check_cell(exercise):
    for path in (exercise.source_path, exercise.release_path):
        last = json.loads(path.read_text())["cells"][-1]
        assert "".join(last["source"]) == learner_cells.self_check_cell(), path
        nbgrader = last["metadata"]["nbgrader"]
        assert nbgrader["grade_id"] == learner_cells.SELF_CHECK_ID
        assert nbgrader["locked"] and not nbgrader["grade"] and not nbgrader["solution"]


def test_check_cell_is_inert_in_a_batch_run(tmp_path, chapter_run, jupyter_venv):
    """Run by nbclient with no front end naming the notebook (nbgrader validate, papermill)."""
    executed = execute(jupyter_venv, downloaded(tmp_path / "batch", CORRECT))
    text = outputs_text(executed["cells"][-1])
    assert text.startswith("Could not tell which file this notebook is") and "points" not in text, text


def test_the_grader_never_runs_the_self_check_cell():
    from autograder import notebooks
    release = helpers.release_notebook("01_softmax")
    index = len(release.cells) - 1
    assert index not in {i for i, _ in notebooks.learner_cells(release)}


@pytest.mark.parametrize("exercise", helpers.EXERCISES, ids=lambda e: e.assignment)
def test_no_visible_test_imports_the_grader(exercise):
    """A downloaded notebook runs its visible tests without the book's package."""
    from autograder import notebooks
    for cell in helpers.release_notebook(exercise.assignment).cells:
        if notebooks.is_test_cell(cell):
            assert "autograder" not in cell.source, notebooks.meta(cell)["grade_id"]


def wheel_name():
    project = tomllib.loads((helpers.REPO / "pyproject.toml").read_text())["project"]
    return f"{project['name'].replace('-', '_')}-{project['version']}-py3-none-any.whl"


def test_learners_page_links_the_wheel_of_this_version():
    cells = json.loads((helpers.REPO / "book" / "learners.ipynb").read_text())["cells"]
    text = "\n".join("".join(cell["source"]) for cell in cells)
    assert f'href="../{wheel_name()}"' in text
    assert "make test" not in text   # a learner's set-up needs no root


def test_set_up_lines_for_windows_and_ubuntu_in_both_editions(site):
    """The set-up is the same pip and venv steps everywhere; Windows has Scripts\\ where POSIX has bin/,
    and a stock Ubuntu or Debian lacks the venv module until python3-venv is installed."""
    import html
    import re
    pages = {"README.md": (helpers.REPO / "README.md").read_text()}
    for edition in ("", "ja/"):
        page = (site / f"{edition}book" / "learners.html").read_text()
        pages[edition + "learners.html"] = html.unescape(re.sub(r"<[^>]+>", "", page))
    for name, text in pages.items():
        assert "py -m venv attention-env" in text, name
        assert "attention-env\\Scripts\\pip install " + wheel_name() in text, name
        assert "attention-env\\Scripts\\Activate.ps1" in text and "jupyter lab" in text, name
        assert "Set-ExecutionPolicy -Scope CurrentUser RemoteSigned" in text, name
        assert "source attention-env/bin/activate" in text, name
        assert "sudo apt install python3-venv" in text, name


def test_site_ships_the_wheel(site):
    assert (site / wheel_name()).is_file()
    assert f'href="../{wheel_name()}"' in (site / "book" / "learners.html").read_text()


# ------------------------------------------------------------------ the class run on a non-editable install
GRADE_WALKER = """
import json, sys
from autograder import engine, notebooks
from autograder.course import course_at
from autograder.sandbox import Limits
root, path = sys.argv[1], sys.argv[2]
limits = Limits(require_sandbox=True, cell_seconds=400, total_seconds=500, cpu_seconds=450)
report = engine.run_tests(course_at(root).exercise("01_softmax"), notebooks.read_notebook(path), limits,
                          draw="class:tests")
print(json.dumps({"score": report.score, "max_score": report.max_score,
                  "cells": [[run.first_line, run.output] for run in report.cells]}))
"""


def test_learner_code_reads_nothing_of_the_instructors_side_from_an_installed_wheel(tmp_path, wheel_only):
    """Issue 24: graded with the wheel installed (not editable), the package in site-packages, which
    the sandbox binds, and a course folder inside that venv (its source notebooks, secret and
    gradebook): the learner's code finds none of them, nor the library's reference implementations.
    A sentinel placed in the venv's site-packages is found: the walk reads what the sandbox binds."""
    import secrets

    import filesystem_walker as walker
    root = wheel_only.parent.parent / "course"   # a course inside the bound venv
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(helpers.REPO / "solutions", root / "solutions")
    walker.secret_and_gradebook(root)
    search = {**walker.needles(root), "sentinel": secrets.token_hex(24)}
    purelib = run([wheel_only, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    installed = Path(purelib) / "autograder" / "course_data"
    assert (installed / "model_answers.json").is_file()   # the walk's target is there, outside the sandbox
    (Path(purelib) / "attention-walker-sentinel.txt").write_text(search["sentinel"])
    notebook = helpers.write(walker.submission(search), tmp_path / "walker.ipynb")
    result = json.loads(run([wheel_only, "-c", GRADE_WALKER, root, notebook], cwd=tmp_path).stdout)
    assert walker.found(result["cells"]) == {"sentinel"}
    assert result["score"] == result["max_score"], result


# ------------------------------------------------------------------ every command a learner reads
def shown_commands(text):
    """The `python -m autograder ...` lines of ``text``'s code blocks (HTML <pre> or Markdown fences)."""
    import html
    import re
    blocks = re.findall(r"<pre[^>]*>(.*?)</pre>", text, flags=re.S) + re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.S)
    lines = [html.unescape(re.sub(r"<[^>]+>", "", block)) for block in blocks]
    return sorted({line.split("#")[0].strip() for block in lines for line in block.splitlines()
                   if line.strip().startswith("python -m autograder")})


def run_as_shown(command, notebook, python, folder):
    """Run ``command`` as its reader would: in ``folder``, which holds only ``notebook`` (downloaded),
    with the Python of a venv that holds only the wheel."""
    import shlex
    folder.mkdir(parents=True)
    shutil.copy(notebook, folder / Path(notebook).name)
    words = shlex.split(command)
    assert words[0] == "python"
    result = subprocess.run([str(python), *words[1:]], cwd=folder, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{command} in a folder holding {Path(notebook).name}: {result.stderr}"
    import re
    assert re.search(r"\d / \d", result.stdout.splitlines()[0]) or '"score"' in result.stdout, result.stdout
    return result


def test_every_command_a_learner_reads_works_without_a_clone(site, wheel_only, tmp_path):
    """Issue 26: the chapter pages, the introduction and the learners page (both editions), and every
    exercise notebook: each `python -m autograder` command they show is run from a folder holding
    just the notebook the page links (as the site serves it), with only the wheel installed."""
    import re
    exercises = {exercise.notebook: exercise for exercise in helpers.EXERCISES}
    ran = []
    pages = sorted(p for edition in ("", "ja/") for p in (site / edition / "book").glob("*.html")
                   if p.stem != "instructors")
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for command in shown_commands(text):
            [name] = [word for word in command.split() if word.endswith(".ipynb")]
            linked = re.findall(r'href="((?:\.\./)*_downloads/[^"]*/' + re.escape(name) + ')"', text)
            notebook = (page.parent / linked[0]).resolve() if linked else exercises[name].release_path
            assert notebook.is_file(), (page, linked)
            run_as_shown(command, notebook, wheel_only, tmp_path / f"run{len(ran)}")
            ran.append((page.relative_to(site), command))
    for exercise in helpers.EXERCISES:
        cells = json.loads(exercise.release_path.read_text())["cells"]
        markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        for command in shown_commands(markdown):
            run_as_shown(command, exercise.release_path, wheel_only, tmp_path / f"run{len(ran)}")
            ran.append((exercise.notebook, command))
    chapters = {str(page) for page, _ in ran if Path(page).stem[:2].isdigit()}
    assert len(chapters) == 24, sorted(chapters)   # twelve chapters, two editions
    assert {name for name, _ in ran} >= set(exercises), ran
    assert not [command for _, command in ran if "exercises/" in command], ran
