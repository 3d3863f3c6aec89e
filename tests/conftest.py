import os
import sys
from pathlib import Path

# Let test modules import tests/helpers.py, and let nbgrader find `alembic`
# and the other console scripts of this environment.
sys.path.insert(0, str(Path(__file__).parent))
os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
