"""The learner's loop in a real client (issue 13): JupyterLab, driven by Playwright in
Debian's Chromium, opens a downloaded exercise, the learner types a solution into the
solution cell, saves, runs the self-check cell and reads the score and the named
mistake on the page.  Screenshots are kept in _build/screenshots/."""
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import helpers

SCREENSHOTS = helpers.REPO / "_build" / "screenshots"
# The learner forgets the axis in both reductions: the visible tests pass, the hidden ones do not.
WRONG = (helpers.SUBMISSIONS / "01_softmax" / "wrong" / "axis_ignored.py").read_text()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def jupyterlab(tmp_path):
    """JupyterLab serving a folder that holds only the released exercise 01; (url, folder)."""
    folder = tmp_path / "downloads"
    folder.mkdir()
    (folder / "softmax.ipynb").write_bytes(helpers.exercise("01_softmax").release_path.read_bytes())
    port, token = free_port(), secrets.token_hex(16)
    jupyter = Path(sys.executable).with_name("jupyter")
    server = subprocess.Popen(
        [str(jupyter), "lab", "--no-browser", "--allow-root", f"--port={port}", "--ip=127.0.0.1",
         f"--ServerApp.root_dir={folder}", f"--IdentityProvider.token={token}",
         "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=1)
                break
            except OSError:
                time.sleep(0.5)
        else:
            raise AssertionError("JupyterLab did not start")
        yield f"{url}/lab/tree/softmax.ipynb?token={token}", folder
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_type_save_and_check_in_jupyterlab(browser, jupyterlab):
    url, folder = jupyterlab
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.route(re.compile(r"^(?!http://127\.0\.0\.1).*"), lambda route: route.abort())  # offline
    page.goto(url, wait_until="load")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)

    # The solution cell: the one that holds `raise NotImplementedError()`.
    solution = page.locator(".jp-CodeCell", has_text="raise NotImplementedError").first
    editor = solution.locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(WRONG.strip())   # as pasted: no auto-indent, no auto-brackets
    page.keyboard.press("Escape")
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + 30
    while "raise NotImplementedError" in (folder / "softmax.ipynb").read_text():
        assert time.monotonic() < deadline, "the notebook was not saved"
        time.sleep(0.2)
    page.screenshot(path=str(SCREENSHOTS / "learner-jupyterlab-solution.png"))

    # Run the last cell, the self-check.
    check = page.locator(".jp-CodeCell", has_text="check_this_notebook()").last
    check.locator(".jp-InputPrompt").click()
    page.keyboard.press("Control+Enter")
    output = check.locator(".jp-OutputArea-output")
    output.filter(has_text="points").first.wait_for(timeout=120_000)
    text = check.locator(".jp-OutputArea").inner_text()
    check.scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "learner-jupyterlab-self-check.png"))
    assert "Graded the copy saved at" in text, text
    assert "4 / 7 points (+1 written answer, graded by your instructor)" in text, text
    assert "the `axis` argument is ignored" in text, text
    page.close()
