"""Shared test helpers: the implementations in tests/submissions/, pages in a browser.

Learner submissions and scratch courses come from ``autograder.fixtures``
(the benchmarks build their classes with it too); they are re-exported here.
"""
import contextlib
import re
from pathlib import Path

from autograder.course import default_course
from autograder.fixtures import (course, exercise, gradebook_scores, gradebook_url, nbgrader,  # noqa: F401
                                 nbgrader_config_dir, release_differences, release_notebook, submission,
                                 submitted, write)

REPO = Path(__file__).resolve().parents[1]
# The hidden inputs the engine-level tests grade with: one fixed draw, so a test's verdict never
# depends on the machine (the class run's draw comes from its course's secret, autograder/course_secret.py).
TEST_DRAW = "class:tests"
SUBMISSIONS = REPO / "tests" / "submissions"
COURSE = default_course()
EXERCISES = COURSE.exercises


def catalogue(assignment):
    """The exercise's misconception catalogue module."""
    return exercise(assignment).catalogue


def implementations(kind):
    """(assignment, path) for every tests/submissions/<assignment>/<kind>/*.py."""
    return [(p.parent.parent.name, p) for p in sorted(SUBMISSIONS.glob(f"*/{kind}/*.py"))]


def recorded(notebook, exercise, student, failed=None):
    """``notebook`` with the records the grader seals into each test cell for ``student`` of ``exercise``
    (``preprocessors.record``): passed, unless ``failed`` maps its grade id to (Kind, findings).  The
    exercise's course gets a grading secret if it has none."""
    from autograder import course_secret, notebooks, preprocessors
    from autograder.results import TestResult
    if course_secret.seal_key(exercise.course) is None:
        secret = exercise.course.root / course_secret.SECRET_FILE
        secret.parent.mkdir(parents=True, exist_ok=True)
        secret.write_text("a secret for the tests\n")
    key = course_secret.seal_key(exercise.course)
    for cell in notebook.cells:
        if notebooks.is_test_cell(cell):
            grade_id = notebooks.meta(cell)["grade_id"]
            kind, findings = (failed or {}).get(grade_id, (None, ()))
            result = TestResult(grade_id, 0.0, 1.0, "", *([kind] if kind else []), findings=tuple(findings))
            where = (exercise.assignment, exercise.source.name, student, grade_id)
            cell.metadata[preprocessors.RECORD] = preprocessors.record(key, where, result)
    return notebook


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


# MathJax 3: resolves when it has typeset the page (false if MathJax is not there).
# MathJax.startup.promise is the readiness signal every consumer (tests, the PDF print) waits on.
WAIT_FOR_MATHJAX = """() => new Promise(resolve => {
    const ready = () => window.MathJax && MathJax.startup && MathJax.startup.promise;
    if (ready()) { MathJax.startup.promise.then(() => resolve(true), () => resolve(false)); return; }
    if (!window.MathJax) { resolve(false); return; }
    // Only the settings so far: the component (a deferred script) is still loading.
    const started = Date.now(), poll = setInterval(() => {
        if (ready()) { clearInterval(poll); MathJax.startup.promise.then(() => resolve(true), () => resolve(false)); }
        else if (Date.now() - started > 20000) { clearInterval(poll); resolve(false); }
    }, 50);
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
    const typeset = document.querySelectorAll('mjx-container');                // what MathJax typeset
    const errors = document.querySelectorAll('mjx-merror, [data-mjx-error]');
    const clone = document.body.cloneNode(true);
    clone.querySelectorAll('script, style, pre, code, mjx-container').forEach(e => e.remove());
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


# Each typeset formula: its accessible name (the speech text of the speech rule engine) and whether
# it carries the hidden MathML (a <math> element) that screen readers read.
SPOKEN = """() => [...document.querySelectorAll('mjx-container')].map(c => ({
    name: c.getAttribute('aria-label') || '',
    mathml: !!c.querySelector('mjx-assistive-mml > math'),
    tex: [...MathJax.startup.document.math].filter(item => item.typesetRoot === c).map(item => item.math).join('')
}))"""


def speech_problems(page):
    """Formulas of an open page (MathJax has run) that a screen reader could not speak: no
    accessible name, or no assistive MathML (empty: every formula can be read)."""
    formulas = page.evaluate(SPOKEN)
    return [f"formula without speech or MathML: {f}" for f in formulas if not (f["name"].strip() and f["mathml"])]


def central_difference(loss, array, index, step):
    """(loss() at array[index] + step - loss() at array[index] - step) / (2 step), the entry
    restored: the numerical derivative that gradient checks compare a backward pass with."""
    saved = array[index]
    array[index] = saved + step
    up = loss()
    array[index] = saved - step
    down = loss()
    array[index] = saved
    return (up - down) / (2 * step)


def is_number(cell):
    """Whether a CSV cell reads as a number (a spreadsheet keeps it a number, never a formula)."""
    try:
        float(cell)
    except ValueError:
        return False
    return True
