"""Ships the book's package with the site: the wheel the learners page links.

After an HTML build, the wheel (``attention_book-<version>-py3-none-any.whl``,
named per the wheel standard) is built from a copy of the package's sources
with pip, without build isolation and without network (setuptools is pinned in
requirements.txt), into the site's root folder.  A learner installs it with
``pip install`` into any venv: the `attention` library the chapters import and
the exercises' self-check, with the public copy of the course (no solutions; see autograder/public_course.py).
"""
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SOURCES = ["pyproject.toml", "README.md", "autograder", "book/attention", "solutions"]
# What the package never holds: an instructor's state, caches.
IGNORE = shutil.ignore_patterns("__pycache__", ".ipynb_checkpoints", "submitted", "autograded", "feedback",
                                "downloaded", "grading-log", "reports", "exports", "gradebook.db*")


def build_wheel(outdir):
    """Build the wheel into ``outdir``; its path."""
    with tempfile.TemporaryDirectory() as scratch:
        for name in SOURCES:
            source, target = REPO / name, Path(scratch) / name
            if source.is_dir():
                shutil.copytree(source, target, ignore=IGNORE)
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(source, target)
        result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                                 "--no-build-isolation", "-w", str(outdir), scratch],
                                capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"building the book's wheel failed:\n{result.stderr[-3000:]}")
    return max(Path(outdir).glob("attention_book-*.whl"), key=lambda p: p.stat().st_mtime)


def _ship_wheel(app, exception):
    if exception is None and app.builder.format == "html":
        build_wheel(app.outdir)


def setup(app):
    app.connect("build-finished", _ship_wheel)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
