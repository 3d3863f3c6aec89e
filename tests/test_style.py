"""House style that a reader sees on the page, checked on the sources.

Code lines fit a printed page and a narrow screen (79 characters, PEP 8), and the
chapters stay within the prose budget of the book revision (issue 15). The table
of contents decides which chapters exist, so a new chapter is checked as soon as
it is listed.
"""
import re

import nbformat
import pytest

import helpers
from test_book import toc_files

LONGEST_LINE = 79
# Chapters 1-9 (the chapters before the revision added more) share this many words
# of markdown prose: whitespace-separated words in markdown cells.
PROSE_BUDGET = {"chapters": range(1, 10), "words": 24_000}


def toc_notebooks():
    return [helpers.REPO / f"{f}.ipynb" for f in toc_files()
            if (helpers.REPO / f"{f}.ipynb").exists()]


def chapter_number(path):
    match = re.match(r"(\d\d)_", path.name)
    return int(match.group(1)) if match else None


def code_files():
    """Every notebook the book and the exercises show, and the helper library the
    chapters import."""
    notebooks = toc_notebooks() + sorted((helpers.REPO / "solutions").rglob("*.ipynb")) \
        + sorted((helpers.REPO / "exercises").rglob("*.ipynb"))
    library = sorted((helpers.REPO / "book" / "attention").glob("*.py"))
    return [p for p in notebooks if ".ipynb_checkpoints" not in p.parts] + library


def code_lines(path):
    """(where, line) of every code line in ``path``: cells are numbered from 0."""
    if path.suffix == ".py":
        return [(str(n), line) for n, line in enumerate(path.read_text().splitlines(), 1)]
    cells = nbformat.read(path, as_version=4).cells
    return [(f"cell {i} line {n}", line) for i, cell in enumerate(cells) if cell.cell_type == "code"
            for n, line in enumerate(cell.source.splitlines(), 1)]


@pytest.mark.parametrize("path", code_files(), ids=lambda p: p.relative_to(helpers.REPO).as_posix())
def test_code_lines_fit_79_characters(path):
    name = path.relative_to(helpers.REPO).as_posix()
    too_long = [f"{name}:{where}: {len(line)} characters"
                for where, line in code_lines(path) if len(line) > LONGEST_LINE]
    assert too_long == [], "\n".join(too_long)


def prose_words(path):
    notebook = nbformat.read(path, as_version=4)
    return sum(len(cell.source.split()) for cell in notebook.cells
               if cell.cell_type == "markdown")


def test_chapters_stay_within_the_prose_budget():
    chapters = [p for p in toc_notebooks() if chapter_number(p) in PROSE_BUDGET["chapters"]]
    assert chapters, "no numbered chapter in _toc.yml"
    words = {p.stem: prose_words(p) for p in chapters}
    total = sum(words.values())
    assert total <= PROSE_BUDGET["words"], f"{total} words of prose: {words}"


@pytest.mark.parametrize("notebook", toc_notebooks(), ids=lambda p: p.stem)
def test_each_cell_prints_into_one_box(notebook):
    """A cell's printed text is one stream output, never pieces split by flushes or by a
    figure: the page would show several boxes for one cell's print-out."""
    split = []
    for index, cell in enumerate(nbformat.read(notebook, as_version=4).cells):
        names = [o.name for o in cell.get("outputs", []) if o.output_type == "stream"]
        if len(names) != len(set(names)):
            split.append(f"cell {index}: {len(names)} stream outputs")
    assert split == [], split
