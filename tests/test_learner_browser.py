"""The learner's loop in a real client (issue 13): JupyterLab, driven by Playwright in
Debian's Chromium, opens a downloaded exercise, the learner types a solution into the
solution cell, saves, runs the self-check cell and reads the score and the named
mistake on the page; the check cell follows a rename and tells work run but not saved
(issue 26).  Screenshots are kept in _build/screenshots/."""
import json
import re
import statistics
import os
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
CORRECT = (helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py").read_text()


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
    # JupyterLab saves every 120 s by itself: off, so that "not saved" is what the test made it.
    settings = tmp_path / "lab-settings" / "@jupyterlab" / "docmanager-extension"
    settings.mkdir(parents=True)
    (settings / "plugin.jupyterlab-settings").write_text(json.dumps({"autosave": False}))
    server = subprocess.Popen(
        [str(jupyter), "lab", "--no-browser", "--allow-root", f"--port={port}", "--ip=127.0.0.1",
         f"--ServerApp.root_dir={folder}", f"--IdentityProvider.token={token}",
         "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(tmp_path / "lab-settings")})
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


def open_notebook(browser, url):
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.route(re.compile(r"^(?!http://127\.0\.0\.1).*"), lambda route: route.abort())  # offline
    page.goto(url, wait_until="load")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=120_000)
    return page


def type_solution(page, code):
    """Replace the solution cell (the one holding `raise NotImplementedError()`) with ``code``; the
    cell is left active, in command mode."""
    solution = page.locator(".jp-CodeCell", has_text="raise NotImplementedError").first
    editor = solution.locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(code.strip())   # as pasted: no auto-indent, no auto-brackets
    page.keyboard.press("Escape")


def run_cell(page, cell, expect):
    """Run ``cell`` (a locator) and return its output's text once it holds ``expect``."""
    cell.locator(".jp-InputPrompt").click()
    page.keyboard.press("Control+Enter")
    output = cell.locator(".jp-OutputArea")
    deadline = time.monotonic() + 120
    while expect not in output.inner_text():
        assert time.monotonic() < deadline, f"no {expect!r} in the output: {output.inner_text()!r}"
        time.sleep(0.05)
    return output.inner_text()


def run_check(page, expect):
    """Run the self-check cell; (its output's text, seconds until it showed ``expect``)."""
    check = page.locator(".jp-CodeCell", has_text="check_this_notebook()").last
    check.locator(".jp-OutputArea").evaluate("node => node.replaceChildren()")   # no earlier output matches
    start = time.monotonic()
    text = run_cell(page, check, expect)
    return text, time.monotonic() - start


def test_type_save_and_check_in_jupyterlab(browser, jupyterlab):
    url, folder = jupyterlab
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page = open_notebook(browser, url)
    type_solution(page, WRONG)
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


def test_check_tells_unsaved_work_and_follows_a_rename(browser, jupyterlab):
    """Issue 26: a solution run but not saved is said so, not graded "not implemented yet"; saved,
    it gets full marks; renamed in JupyterLab (File > Rename Notebook), the same kernel's check
    cell grades the renamed file.  The check cell's time on the solved exercise is printed."""
    url, folder = jupyterlab
    page = open_notebook(browser, url)
    type_solution(page, CORRECT)
    solution = page.locator(".jp-Notebook .jp-CodeCell", has_text="def softmax").first
    prompt = solution.locator(".jp-InputPrompt")
    prompt.click()
    # the learner runs the solution cell (Run > Run Selected Cell), and forgets to save
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run Selected Cell").first.click()
    deadline = time.monotonic() + 60
    while not re.search(r"\[\d+\]", prompt.inner_text()):
        assert time.monotonic() < deadline, f"the solution cell did not run: {prompt.inner_text()!r}"
        time.sleep(0.1)
    assert "raise NotImplementedError" in (folder / "softmax.ipynb").read_text()
    text, _ = run_check(page, "not saved")
    assert "Your notebook has changes that are not saved: save (Ctrl+S), then run this cell again." in text, text
    assert "`softmax`" in text and "points" not in text, text

    page.keyboard.press("Control+s")
    deadline = time.monotonic() + 30
    while "raise NotImplementedError" in (folder / "softmax.ipynb").read_text():
        assert time.monotonic() < deadline, "the notebook was not saved"
        time.sleep(0.2)
    seconds = []
    for _ in range(3):
        text, took = run_check(page, "points")
        seconds.append(took)
        assert "softmax.ipynb" in text and "7 / 7 points" in text, text
    print(f"check cell on the solved exercise 01 in JupyterLab: median {statistics.median(seconds):.2f} s "
          f"of {', '.join(f'{s:.2f}' for s in seconds)}")

    page.locator(".lm-MenuBar-itemLabel", has_text="File").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Rename Notebook").first.click()
    name = page.locator(".jp-Dialog input")
    name.fill("my attempt.ipynb")
    page.keyboard.press("Enter")
    deadline = time.monotonic() + 30
    while not (folder / "my attempt.ipynb").exists():
        assert time.monotonic() < deadline, "the notebook was not renamed"
        time.sleep(0.2)
    assert not (folder / "softmax.ipynb").exists()
    text, _ = run_check(page, "points")
    assert "(my attempt.ipynb)" in text and "7 / 7 points" in text, text
    assert 'Language: English (the default). For Japanese: check_this_notebook(language="ja")' in text, text
    page.close()
