"""The cells that let a chapter or an exercise run outside the repository.

Both install the book's package when it is missing, from the archive of the
repository named by `repository.url` and `repository.branch` in _config.yml
(the d2l way: pip from the notebook itself, quiet when it works); inside the repository,
where the package is installed editable, they do nothing.  The environment
variable ATTENTION_BOOK_PACKAGE replaces the address (a wheel file, a mirror):
the tests point it at the wheel they built, without network.

`python tests/learner_cells.py` writes them into the chapters (their first
code cell) and the exercise sources (their last cell, the self-check); the
tests check every chapter of the TOC and every exercise against them.
"""
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
PACKAGE_VARIABLE = "ATTENTION_BOOK_PACKAGE"
SELF_CHECK_ID = "self_check"


def archive_url(config=None):
    """The zip of the repository's branch: pip installs it without git."""
    config = config or yaml.safe_load((REPO / "_config.yml").read_text())
    repository = config["repository"]
    return f"{repository['url'].rstrip('/')}/archive/refs/heads/{repository.get('branch', 'main')}.zip"


def _string_lines(text, indent, width=79):
    """``text`` as adjacent string literals, one per line, each line within ``width``."""
    room = width - len(indent) - 3   # the quotes and a closing parenthesis
    pieces = []
    while len(text) > room:
        cut = text.rindex("/", 0, room) + 1   # break after a slash
        pieces.append(text[:cut])
        text = text[cut:]
    return [f'{indent}"{piece}"' for piece in pieces + [text]]


def _install(module, url):
    """Install the package quietly when ``module`` is missing; when that fails, one line (IPython shows an
    exception's ``_render_traceback_`` instead of a traceback) says which Python lacks what, and the
    command that installs it."""
    lines = [
        "try:",
        f"    import {module}  # noqa: F401",
        "except ImportError:",
        "    import os, subprocess, sys",
        "    package = os.environ.get(",
        f'        "{PACKAGE_VARIABLE}",',
        *_string_lines(url, "        "),
    ]
    lines[-1] += ")"
    return lines + [
        '    pip = [sys.executable, "-m", "pip", "install", "--quiet", package]',
        "    if subprocess.run(pip, capture_output=True).returncode:",
        "        class NotInstalled(Exception):",
        "            def _render_traceback_(self):  # one line, no traceback",
        "                return [str(self)]",
        "        raise NotInstalled(",
        "            f\"This kernel's Python ({sys.executable}) lacks the book's \"",
        "            \"package, and installing it failed. In a terminal run: \"",
        "            f'\"{sys.executable}\" -m pip install \"{package}\" '",
        "            \"(or choose the kernel of the environment that has it).\")",
    ]


def chapter_cell(url=None):
    """The first code cell of every chapter."""
    url = url or archive_url()
    return "\n".join([
        "# The book's package (the `attention` library and the exercises'",
        "# self-check), installed when missing: in Colab, Binder, a laptop.",
        *_install("attention", url),
    ])


def self_check_cell(url=None):
    """The last cell of every exercise: grades the saved notebook."""
    url = url or archive_url()
    return "\n".join([
        "# Self-check: grades this notebook as last saved, with the hidden",
        "# tests. Save first (Ctrl+S), then run this cell. Nothing to edit.",
        *_install("autograder.selfcheck", url),
        "from autograder.selfcheck import check_this_notebook",
        "check_this_notebook()",
    ])


def _self_check_cell_json(source):
    return {
        "cell_type": "code", "execution_count": None, "id": "self-check", "outputs": [],
        "metadata": {"nbgrader": {"grade": False, "grade_id": SELF_CHECK_ID, "locked": True,
                                  "schema_version": 3, "solution": False, "task": False}},
        "source": source.splitlines(keepends=True),
    }


def write():
    import json
    config = yaml.safe_load((REPO / "_config.yml").read_text())
    url = archive_url(config)
    for path in sorted((REPO / "book").glob("[0-9][0-9]_*.ipynb")):
        notebook = json.loads(path.read_text())
        code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
        # the reader sees a toggle, not the installer (it does nothing inside the repository)
        cell = {"cell_type": "code", "execution_count": None, "id": "install-package",
                "metadata": {"tags": ["hide-input"]}, "outputs": [],
                "source": chapter_cell(url).splitlines(keepends=True)}
        if "".join(code[0]["source"]).startswith(chapter_cell(url).splitlines()[0]):
            code[0]["source"], code[0]["id"], code[0]["metadata"] = cell["source"], cell["id"], cell["metadata"]
        else:
            notebook["cells"].insert(notebook["cells"].index(code[0]), cell)
        path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")
    for path in sorted((REPO / "solutions").glob("*/*.ipynb")):
        notebook = json.loads(path.read_text())
        notebook["cells"] = [c for c in notebook["cells"]
                             if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") != SELF_CHECK_ID]
        notebook["cells"].append(_self_check_cell_json(self_check_cell(url)))
        path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    sys.exit(write())
