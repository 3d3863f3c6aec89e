import os
import sys
from pathlib import Path

import pytest

# Let test modules import tests/helpers.py, and let nbgrader find `alembic`
# and the other console scripts of this environment.
sys.path.insert(0, str(Path(__file__).parent))
os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
# The grader speaks the locale's language (autograder/i18n.py): tests read its English, whatever
# the developer's locale; the tests of the Japanese grader set the language they need.
for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
    os.environ.pop(variable, None)
os.environ["LANG"] = "C.UTF-8"


# The tiers (markers are declared in pyproject.toml and checked with --strict-markers):
# `make check` runs the tests that carry none of these, `make test` runs all.
FIXTURE_MARKERS = {"site": "book", "browser": "browser", "new_postgres_database": "postgres"}


@pytest.hookimpl(tryfirst=True)   # before `-m` deselects by marker
def pytest_collection_modifyitems(items):
    """Mark each test by what it needs, read from the fixtures it uses."""
    for item in items:
        for fixture, marker in FIXTURE_MARKERS.items():
            if fixture in getattr(item, "fixturenames", ()):   # nbval cells have none
                item.add_marker(marker)
        params = getattr(getattr(item, "callspec", None), "params", {})
        if "postgresql" in params.values():
            item.add_marker("postgres")


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """The book, built once per test run as `make book` builds it: the English edition
    with `jupyter-book build . -W -n --keep-going`, the Japanese one into its ja/ folder
    with `python book/_ext/editions.py ja` (also -W -n --keep-going); no warning in either;
    then both as PDFs with `python book/_ext/pdf.py` (into _build/pdf, copied into the site)."""
    import re
    import subprocess
    out = tmp_path_factory.mktemp("book")
    root = Path(__file__).parents[1]
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    for command in ([str(jupyter_book), "build", str(root), "-W", "-n", "--keep-going"],
                    [sys.executable, str(root / "book" / "_ext" / "editions.py"), "ja"],
                    [sys.executable, str(root / "book" / "_ext" / "pdf.py")]):
        result = subprocess.run([*command, "--path-output", str(out)], capture_output=True, text=True)
        log = result.stdout + result.stderr
        assert result.returncode == 0, log[-5000:]
        assert not re.search(r"\bWARNING\b", log), log[-5000:]
    return out / "_build" / "html"


# Debian's Chromium and its flags, as the book's PDF step (book/_ext/pdf.py) drives it.
sys.path.insert(0, str(Path(__file__).parents[1] / "book" / "_ext"))
from pdf import CHROMIUM, CHROMIUM_FLAGS  # noqa: E402


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium driven by Playwright."""
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()
