"""A local copy of MathJax, for pages that must render math with no network.

MathJax 2.7 ships inside the pinned ``jupyter-server-mathjax`` wheel.  The book
build (book/_ext/offline.py) copies it into ``_build/html/_static/mathjax`` and
nbgrader's feedback step (autograder/nbgrader_config.py) into
``autograder/feedback/mathjax``.
"""
import shutil
from pathlib import Path

import jupyter_server_mathjax

MATHJAX_DIR = Path(jupyter_server_mathjax.__file__).parent / "static"
# The accessibility extension names a CDN inside its code and is never loaded.
_IGNORE = shutil.ignore_patterns("a11y")


def copy_mathjax(target):
    """Copy MathJax into the folder ``target`` (created if needed)."""
    shutil.copytree(MATHJAX_DIR, target, ignore=_IGNORE, dirs_exist_ok=True)
