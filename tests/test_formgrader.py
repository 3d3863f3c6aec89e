"""Formgrader, offline: a submission's page typesets its math with the course's MathJax 3.

nbgrader's formgrade template loads MathJax from a CDN (raw $$...$$ with no network);
the course's template (autograder/templates/formgrade/mathjax.html.j2) loads the MathJax
the course's Jupyter server extension serves (autograder/jupyter_mathjax.py, enabled in the
venv by make), with the book's settings: assistive MathML and speech.  A Jupyter server runs
on a scratch course with the course's configuration, and Chromium opens the page with the
network cut.
"""
import contextlib
import socket
import subprocess
import sys
import time
import urllib.request

import pytest
from nbgrader.api import Gradebook

import helpers
from autograder import classrun
from autograder import course as courses

pytestmark = pytest.mark.nbgrader

WRONG = helpers.SUBMISSIONS / "01_softmax" / "wrong" / "axis_ignored.py"


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def jupyter_server(root):
    """`jupyter server` started in the course root, as an instructor starts Jupyter for Formgrader."""
    port = _free_port()
    command = [sys.executable, "-m", "jupyter", "server", "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
               "--IdentityProvider.token=", "--ServerApp.password=", f"--ServerApp.root_dir={root}", "--allow-root"]
    log = open(root / "jupyter-server.log", "w")
    server = subprocess.Popen(command, cwd=root, stdout=log, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"{url}/api/status", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise AssertionError("jupyter server did not start:\n" + (root / "jupyter-server.log").read_text()[-3000:])
                time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = helpers.course(tmp_path_factory.mktemp("formgrader"))
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    helpers.write(helpers.submission("01_softmax", WRONG.read_text()), helpers.submitted(root, "carol"))
    config = courses.load_config(root)
    classrun.grade_class("01_softmax", jobs=1, config=config, progress=False)
    helpers.nbgrader_config_dir(root, settings=[f"c.CourseDirectory.root = {str(root)!r}",
                                                f"c.CourseDirectory.db_url = {helpers.gradebook_url(root)!r}"])
    return root


def test_formgrader_page_typesets_math_offline(graded, browser):
    with Gradebook(helpers.gradebook_url(graded)) as gradebook:
        submission_id = gradebook.find_submission_notebook("softmax", "01_softmax", "carol").id
    with jupyter_server(graded) as url:
        page, problems = helpers.open_page(browser, f"{url}/formgrader/submissions/{submission_id}")
        html = page.content()
        problems += helpers.math_problems(page, at_least=1)
        problems += helpers.speech_problems(page)
        assert "formgrade.js" in html                       # Formgrader's page, not the feedback one
        assert "cdnjs" not in html and "cdn.jsdelivr" not in html
        scripts = page.evaluate("() => [...document.scripts].map(s => s.src)")
        assert f"{url}/attention-mathjax/settings.js" in scripts
        assert f"{url}/attention-mathjax/tex-chtml-full-speech.js" in scripts
        page.close()
    assert problems == []


@pytest.fixture(scope="module")
def new_postgres_database():
    import postgres
    with postgres.server() as new_database:
        yield new_database


def test_two_machines_share_postgresql_and_the_guides_folders(tmp_path, new_postgres_database, browser):
    """Two course folders stand for two machines: each grades one shard into one PostgreSQL gradebook,
    sharing autograder/submitted/ and autograder/autograded/ as the guide says (here by links, as a
    network file system would); Formgrader on machine B opens a submission machine A graded."""
    import os
    db_url = new_postgres_database()              # new: the graders add the assignment themselves
    a, b = helpers.course(tmp_path / "a"), helpers.course(tmp_path / "b")
    students = {"alice": helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py", "carol": WRONG,
                "dave": helpers.SUBMISSIONS / "01_softmax" / "wrong" / "no_max_subtraction.py", "erin": WRONG}
    for student, path in students.items():
        helpers.write(helpers.submission("01_softmax", path.read_text()), helpers.submitted(a, student))
    for shared in ("submitted", "autograded"):
        (a / "autograder" / shared).mkdir(parents=True, exist_ok=True)
        os.symlink(a / "autograder" / shared, b / "autograder" / shared)
    command = [sys.executable, "-m", "autograder", "grade", "01_softmax", "--jobs", "1", "--no-progress",
               "--db-url", db_url]
    # Each machine has the course's secret, as the guide says (here both from the environment).
    env = {**os.environ, "ATTENTION_GRADING_SECRET": "the course's secret"}
    runs = [subprocess.Popen(command + ["--course-root", str(root), "--shard", f"{k}/2"], cwd=helpers.REPO, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k, root in ((1, a), (2, b))]
    for run in runs:
        out, err = run.communicate(timeout=900)
        assert run.returncode == 0, err
    with Gradebook(db_url) as gradebook:
        assert {s.student.id: s.score for s in gradebook.assignment_submissions("01_softmax")} == \
            {"alice": 7.0, "carol": 4.0, "dave": 5.0, "erin": 4.0}
        graded_by_a = sorted(students)[0]           # shard 1/2 is the 1st, 3rd, ... of the sorted names
        submission_id = gradebook.find_submission_notebook("softmax", "01_softmax", graded_by_a).id
    helpers.nbgrader_config_dir(b, settings=[f"c.CourseDirectory.root = {str(b)!r}",
                                             f"c.CourseDirectory.db_url = {db_url!r}"])
    with jupyter_server(b) as url:
        page, problems = helpers.open_page(browser, f"{url}/formgrader/submissions/{submission_id}")
        assert "formgrade.js" in page.content()
        problems += helpers.math_problems(page, at_least=1)
        page.close()
    assert problems == []
