"""nbgrader run from the repository root: the course's configuration, autograder/nbgrader_config.py.

Without this file, `nbgrader export` from here would write an empty gradebook.db and
an empty CSV next to it and exit 0; with it, every nbgrader command works the same
from the root as from autograder/.
"""
c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)
load_subconfig("autograder/nbgrader_config.py")  # noqa: F821
