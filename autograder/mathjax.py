"""A local copy of MathJax, for pages that must render math with no network.

The one piece of build tooling shared by the book and the grader: MathJax 2.7
ships inside the pinned ``jupyter-server-mathjax`` wheel, and this copies it,
with the offline settings of ``mathjax-offline.js``, where a page can load it.
The book build (book/_ext/offline.py) copies it into
``_build/html/_static/mathjax``, nbgrader's feedback step
(autograder/nbgrader_config.py) into ``autograder/feedback/mathjax``.
"""
import shutil
from pathlib import Path

import jupyter_server_mathjax

MATHJAX_DIR = Path(jupyter_server_mathjax.__file__).parent / "static"
# The accessibility extension names a CDN inside its code and is never loaded.
_IGNORE = shutil.ignore_patterns("a11y")


# The settings every page needs to use this copy offline, added to it as
# config/local/offline.js.
OFFLINE_CONFIG = Path(__file__).with_name("mathjax-offline.js")
# What a page loads, relative to the copy: the wheel's one combined
# configuration, then ours.
ENTRY = "MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,local/offline"


def copy_mathjax(target):
    """Copy MathJax, with the offline settings, into the folder ``target``
    (created if needed).
    """
    shutil.copytree(MATHJAX_DIR, target, ignore=_IGNORE, dirs_exist_ok=True)
    (Path(target) / "config" / "local").mkdir(parents=True, exist_ok=True)
    shutil.copy(OFFLINE_CONFIG,
                Path(target) / "config" / "local" / "offline.js")
