import os
import sys
from pathlib import Path

import pytest

# Let test modules import tests/helpers.py, and let nbgrader find `alembic`
# and the other console scripts of this environment.
sys.path.insert(0, str(Path(__file__).parent))
os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """The book, built once per test run with `jupyter-book build . -W -n --keep-going`."""
    import re
    import subprocess
    out = tmp_path_factory.mktemp("book")
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    result = subprocess.run([str(jupyter_book), "build", str(Path(__file__).parents[1]), "-W", "-n",
                             "--keep-going", "--path-output", str(out)], capture_output=True, text=True)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-5000:]
    assert not re.search(r"\bWARNING\b", log), log[-5000:]
    return out / "_build" / "html"
