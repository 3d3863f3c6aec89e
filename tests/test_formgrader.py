"""Formgrader, offline: a submission's page typesets its math with the MathJax Jupyter serves.

nbgrader's formgrade template loads MathJax from a CDN (raw $$...$$ with no network);
the course's template (autograder/templates/formgrade/mathjax.html.j2) loads the copy
of the jupyter-server-mathjax extension.  A Jupyter server runs on a scratch course
with the course's configuration, and Chromium opens the page with the network cut.
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
        assert "formgrade.js" in html                       # Formgrader's page, not the feedback one
        assert "cdnjs" not in html and "cdn.jsdelivr" not in html
        assert "/static/components/MathJax/MathJax.js" in page.evaluate(
            "() => [...document.scripts].map(s => s.src).join(' ')")
        page.close()
    assert problems == []
