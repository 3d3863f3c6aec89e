"""Shared test helpers: learner submissions, nbgrader on scratch courses, pages in a browser."""
import ast
import contextlib
import re
import copy
import importlib
from pathlib import Path

import nbformat

from autograder import notebooks

REPO = Path(__file__).resolve().parents[1]
SUBMISSIONS = REPO / "tests" / "submissions"


def release_notebook(assignment):
    source = _source(assignment)
    return nbformat.read(REPO / "exercises" / assignment / source.path.name, as_version=4)


def _source(assignment):
    (source,) = [s for s in notebooks.source_notebooks() if s.assignment == assignment]
    return source


def _defined(code):
    return {node.name for node in ast.parse(code).body if isinstance(node, ast.FunctionDef)}


def _strip_markers(code):
    return "\n".join(line for line in code.splitlines()
                     if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION"))


def submission(assignment, code):
    """The release notebook as a learner would fill it in with ``code``.

    ``code`` goes into the solution cell(s) whose functions it defines; every
    other solution cell gets the reference solution, so that a wrong
    implementation of one function is graded next to correct others.
    """
    notebook = copy.deepcopy(release_notebook(assignment))
    reference = {notebooks.meta(c)["grade_id"]: _strip_markers(c.source)
                 for c in _source(assignment).notebook.cells
                 if c.cell_type == "code" and notebooks.meta(c).get("solution")}
    mine = _defined(code)
    placed = False
    for cell in notebook.cells:
        grade_id = notebooks.meta(cell).get("grade_id")
        if grade_id in reference:
            if _defined(reference[grade_id]) & mine:
                cell.source, placed = ("" if placed else code), True
            else:
                cell.source = reference[grade_id]
    assert placed, f"{code[:40]!r} defines none of the exercise's functions"
    return notebook


def write(notebook, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)
    return path


def catalogue(assignment):
    """The exercise's misconception catalogue module (named after its notebook)."""
    return importlib.import_module(f"autograder.catalogue.{_source(assignment).name}")


def implementations(kind):
    """(assignment, path) for every tests/submissions/<assignment>/<kind>/*.py."""
    return [(p.parent.parent.name, p) for p in sorted(SUBMISSIONS.glob(f"*/{kind}/*.py"))]


def nbgrader(*args, root, check=True, db_url=None):
    """Run an nbgrader command from autograder/ (where its config lives) on the course at ``root``."""
    import subprocess
    import sys
    command = [sys.executable, "-m", "nbgrader", *args, f"--CourseDirectory.root={root}",
               f"--CourseDirectory.db_url={db_url or f'sqlite:///{root}/gradebook.db'}"]
    result = subprocess.run(command, cwd=REPO / "autograder", capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError(f"nbgrader {' '.join(args)} failed:\n{result.stdout}\n{result.stderr}")
    return result


def submitted(root, student, name="softmax.ipynb", assignment="01_softmax"):
    """Where a collected submission lives in the course at ``root``."""
    return root / "autograder" / "submitted" / student / assignment / name


def gradebook_scores(root, assignment="01_softmax"):
    """{student: score} from the SQLite gradebook of the course at ``root``."""
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{root}/gradebook.db") as gradebook:
        return {s.student.id: s.score for s in gradebook.assignment_submissions(assignment)}


def nbgrader_config_dir(folder, *, stock=False, settings=()):
    """A folder whose nbgrader_config.py loads the course's configuration, then ``settings``
    (lines such as "c.SandboxedExecute.call_seconds = 3.0").  With ``stock``, nbgrader's own
    autograde pipeline: each notebook runs in a Jupyter kernel, as stock nbgrader does."""
    lines = ["c = get_config()", f"load_subconfig({str(REPO / 'autograder' / 'nbgrader_config.py')!r})", *settings]
    if stock:
        lines += ["from nbgrader.converters import Autograde",
                  "c.Autograde.autograde_preprocessors = Autograde.autograde_preprocessors.make_dynamic_default()"]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nbgrader_config.py").write_text("\n".join(lines) + "\n")
    return folder


def course(tmp_path):
    """A scratch course: a copy of solutions/, so tests never touch the real gradebook or release."""
    import shutil
    root = tmp_path / "course"
    shutil.copytree(REPO / "solutions", root / "solutions",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    return root


def write_text(path, text):
    path.write_text(text)
    return path


@contextlib.contextmanager
def serve(folder):
    """Serve ``folder`` over HTTP on 127.0.0.1 (a free port) while the block runs; yield its URL."""
    import functools
    import http.server
    import threading

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(folder)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()


# MathJax 2: resolves when its queue has typeset the page (false if MathJax is not there).
WAIT_FOR_MATHJAX = """() => new Promise(resolve => {
    if (!window.MathJax || !MathJax.Hub) { resolve(false); return; }
    MathJax.Hub.Queue(() => resolve(true));
})"""


def open_page(browser, url):
    """Open ``url`` with the network cut off; return (page, problems) where problems collects
    console errors, failed requests and HTTP errors as the page loads."""
    import re as _re
    page = browser.new_page()
    page.route(_re.compile(r"^(?!http://127\.0\.0\.1).*"), lambda route: route.abort())  # offline
    problems = []
    page.on("console", lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed: {r.url}"))
    page.on("response", lambda r: problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
    page.goto(url, wait_until="networkidle")
    return page, problems


# After MathJax has run: the formulas Sphinx wrote, the ones MathJax found, its errors, and the
# page text without code and typeset math (raw TeX left there means a formula was not typeset).
MATH_REPORT = """() => {
    const math = document.querySelectorAll('.math.notranslate');               // Sphinx's formulas
    const typeset = document.querySelectorAll('script[type^="math/tex"]');     // what MathJax found
    const errors = document.querySelectorAll('.MathJax_Error, merror, .merror');
    const clone = document.body.cloneNode(true);
    clone.querySelectorAll('script, style, pre, code, .MathJax_Preview, .MathJax, .MathJax_Display')
         .forEach(e => e.remove());
    return {math: math.length, typeset: typeset.length, errors: errors.length, text: clone.innerText};
}"""


def math_problems(page, at_least=0):
    """What is wrong with the math of an open page once MathJax has run (empty: all typeset).

    Sphinx marks each formula (`.math.notranslate`); a page without such marks (nbgrader
    feedback) says how many formulas MathJax must at least have found.
    """
    has_mathjax = page.evaluate(WAIT_FOR_MATHJAX)
    report = page.evaluate(MATH_REPORT)
    problems = []
    expected = max(report["math"], at_least)
    if expected:  # pages without math load no MathJax
        found_all = report["typeset"] == report["math"] if report["math"] else report["typeset"] >= at_least
        if not has_mathjax or not found_all or report["errors"]:
            problems.append(f"math not typeset ({ {k: v for k, v in report.items() if k != 'text'} })")
        leftover = re.findall(r"\\\(|\\\[|\$\$|\\frac|\\operatorname|\\sum_", report["text"])
        if leftover:
            problems.append(f"raw TeX left: {leftover[:5]}")
    return problems
