"""A learner who searches the sandbox's whole file system (issue 24): the cell, and what it looks for.

During a class run the learner's code must read nothing that holds a reference solution (the source
notebooks' solution cells, the book's library modules), a model answer, the course's secret or its
gradebook.  ``submission`` is a correct softmax plus a cell that walks ``/`` (not /proc, /sys, /dev),
reads every readable regular file up to ``LARGEST`` bytes and prints which of ``needles`` it found.
tests/test_sandbox.py runs it from the repository's editable install, tests/test_learner_anywhere.py
from the wheel installed in a fresh venv.  Each also places a sentinel in a folder the sandbox binds:
the walker must find it, so a walk that reads nothing cannot pass.
"""
import json
import re
import secrets
from pathlib import Path

import nbformat

from autograder import fixtures, notebooks, public_course

REPO = Path(__file__).resolve().parents[1]
LARGEST = 1 << 20          # every source notebook, library module and model answer file is far smaller
FIRST_LINE = "# walks the whole file system"
CORRECT = (REPO / "tests" / "submissions" / "01_softmax" / "correct" / "logsumexp.py").read_text()


def distinctive(text, public=""):
    """The run of ``text`` with the most different characters that reads the same in a .py file and
    in a notebook's or a JSON file's escaped string (printable ASCII, no quote, no backslash), at
    most 60 characters: a line of code or prose, not a rule of dashes; one not in ``public``."""
    pieces = [piece.strip()[:60] for piece in re.split(r'[^\x20-\x7e]|["\\]', text)]
    return max((piece for piece in pieces if piece not in public), key=lambda piece: (len(set(piece)), len(piece)))


def public_text():
    """What the public book already shows of the exercises: the releases, the library, the catalogue."""
    paths = [*(REPO / "exercises").glob("*/*.ipynb"), *(REPO / "book" / "attention").glob("*.py"),
             *(REPO / "autograder" / "catalogue").glob("*.py")]
    return "\n".join(path.read_text(encoding="utf-8") for path in sorted(paths))


def solution_needles(source):
    """{label: text}: a line of each solution cell of the source notebooks in the folder ``source``
    (solutions/), and of each model answer; none that the public book also shows (``public_text``)."""
    public = public_text()
    found = {}
    for path in sorted(Path(source).glob("*/*.ipynb")):
        for cell in notebooks.read_notebook(path).cells:
            meta = notebooks.meta(cell)
            if not meta.get("solution"):
                continue
            if cell.cell_type == "code":
                _, regions = public_course._regions(cell.source, public_course.SOLUTION, "", str(path))
                found[f"solution {meta['grade_id']}"] = distinctive("\n".join(regions), public)
            else:
                found[f"model answer {meta['grade_id']}"] = distinctive(cell.source, public)
    return found


def needles(course_root):
    """{label: text} for the course at ``course_root``: ``solution_needles``, a line of each library
    module (the public course's reference solutions), its secret and its gradebook (files that
    ``secret_and_gradebook`` writes)."""
    found = solution_needles(Path(course_root) / "solutions")
    for path in sorted((REPO / "book" / "attention").glob("*.py")):
        if path.stem != "__init__":
            found[f"library {path.stem}"] = distinctive(path.read_text())
    root = Path(course_root)
    found["secret"] = (root / "autograder" / "grading-secret").read_text().strip()
    found["gradebook"] = (root / "gradebook.db").read_text()[-48:]
    assert all(len(text) >= 20 for text in found.values()), found
    return found


def secret_and_gradebook(course_root):
    """Give the course at ``course_root`` a secret and a gradebook file, each with a random text."""
    root = Path(course_root)
    (root / "autograder").mkdir(parents=True, exist_ok=True)
    (root / "autograder" / "grading-secret").write_text(secrets.token_hex(24) + "\n")
    (root / "gradebook.db").write_text("SQLite format 3 (a stand-in) " + secrets.token_hex(24))


WALKER = """
import os
found = set()
for top, folders, files in os.walk("/"):
    if top == "/":
        folders[:] = [f for f in folders if f not in ("proc", "sys", "dev")]
    for name in files:
        path = os.path.join(top, name)
        try:
            if os.path.islink(path) or not os.path.isfile(path) or os.path.getsize(path) > LARGEST:
                continue
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        found |= {label for label, needle in NEEDLES.items() if needle in data}
print("FOUND " + json.dumps(sorted(found)))
"""


def submission(search):
    """The softmax exercise, correct, with a cell searching for ``search`` ({label: text})."""
    notebook = fixtures.submission("01_softmax", CORRECT)
    needles = {label: text.encode() for label, text in search.items()}
    code = f"import json\nLARGEST = {LARGEST}\nNEEDLES = {needles!r}\n" + WALKER
    notebook.cells.append(nbformat.v4.new_code_cell(FIRST_LINE + "\n" + code))
    return notebook


def found(cells):
    """The labels the walker printed, from the (first line, output) of each learner cell a report ran."""
    cells = list(cells)
    outputs = [output for first_line, output in cells if first_line.startswith(FIRST_LINE)]
    assert len(outputs) == 1, cells
    [line] = [line for line in outputs[0].splitlines() if line.startswith("FOUND ")]
    return set(json.loads(line[len("FOUND "):]))
