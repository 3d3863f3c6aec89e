"""One notation across the book (the notation section of book/intro.md), checked on the
sources so that a chapter cannot drift from it:

* letters: $n$ queries (or targets) and $m$ keys (or sources), so an attention-weight
  shape never ends in ``m, n)`` except where a text shows the column convention or a
  transposed product on purpose;
* positions have their own letters ($pos$, $s$, $t$): no text places a token "at
  position $m$" or "$n$";
* indices start at 1: no formula sums or multiplies over an index from 0, and no
  factorisation starts at $y_0$ (positions, which count from 0, are written pos, s, t).
"""
import re

import nbformat
import pytest

import helpers
from test_book import toc_files

# A shape tuple whose last two entries are m, n: "(m, n)", "(h, m, n)", "(..., m, n)".
ENDS_IN_M_N = re.compile(r"\((?:[^()]{0,40}?,\s*)?m,\s*n\)|\^\{\s*m\s*\\times\s*n\s*\}|\[m,\s*n\]")
# Where (m, n) is meant: the column convention (K_c, Q_c, "column"), or a product
# written the other way round to show the mistake ("K @ Q.T", "transposed").
COLUMN_OR_TRANSPOSED = re.compile(r"column convention|columns? sums?|column-wise|_c\b|K @ Q\.T|K\^\\top Q"
                                  r"|_columns\b|transposed|Softmax\(K", re.I)
POSITION_M_OR_N = re.compile(r"\bpositions? \$?[mn]\$?(?![\w-])|\bat \$[mn]\$|positions \$\([mn], [mn]\)\$")
FROM_ZERO = re.compile(r"\\(?:sum|prod)(?:\\limits)?_\{\s*(?!pos\b|s\b|t\b)[a-z]\s*=\s*0\s*\}"
                       r"|[pP]\(y_\{?0\b")


def texts():
    """(page, paragraph) for every paragraph of markdown, and every block of code lines
    without a blank line, of the book's pages: a sentence may run over several lines."""
    for name in toc_files():
        path = helpers.REPO / f"{name}.ipynb"
        if path.exists():
            sources = [cell.source for cell in nbformat.read(path, as_version=4).cells]
        else:
            sources = [(helpers.REPO / f"{name}.md").read_text()]
        for source in sources:
            for paragraph in re.split(r"\n\s*\n", source):
                yield path.name, paragraph


def notation_problems(lines):
    problems = []
    for page, paragraph in lines:
        line = " ".join(paragraph.split())
        if ENDS_IN_M_N.search(line) and not COLUMN_OR_TRANSPOSED.search(line):
            problems.append(f"{page}: a shape ends in (m, n), keys before queries: {line[:160]}")
        if POSITION_M_OR_N.search(line):
            problems.append(f"{page}: m or n used as a position (positions are pos, s, t): {line[:160]}")
        if FROM_ZERO.search(line):
            problems.append(f"{page}: an index counted from 0 in a formula (indices start at 1): {line[:160]}")
    return problems


def test_the_book_keeps_one_notation():
    assert notation_problems(texts()) == []


@pytest.mark.parametrize("line", [
    "| cross-attention weights | $(h, m, n)$ |",                        # chapter 11 before
    "$(h, m, n)$: one row per target position, one column per source position.",
    "$i$ of the vector at position $m$ counter-clockwise by the angle $m\\theta_i$",
    "take a random query and key and compute their score at every pair of positions\n$(m, n)$ from 0 to 11.",
    "p(y_0, \\dots, y_{n-1} \\mid x) = \\prod_{t=0}^{n-1} p(y_t \\mid y_0, \\dots, y_{t-1}, x),",
    "s_i = \\frac{\\exp(x_i)}{\\sum_{j=0}^{m-1} \\exp(x_j)}",
    # a breaker's trial: the same mistakes in other spellings
    "the row-convention weights $A \\in \\mathbb{R}^{m \\times n}$",
    "a query at position m and a key at position n",
    "s_i = e^{x_i} / \\sum\\limits_{ j = 0 }^{m-1} e^{x_j}",
    "P(y_{0}, \\dots \\mid x)",
])
def test_the_check_catches_what_the_book_once_said(line):
    assert notation_problems([("old", line)])


@pytest.mark.parametrize("line", [
    "column convention: A_c (m, n), columns sum to 1",
    "1. **Transposed scores.** `K @ Q.T` has shape $(m, n)$; the product with $V$",
    "| cross-attention weights | $(h, n, m)$ |",
    "$PE_{s} \\cdot PE_{t} = \\sum_i \\cos\\bigl((s - t)\\theta_i\\bigr)$",
    "p(y_1, \\dots, y_n \\mid x) = \\prod_{i=1}^{n} p(y_i \\mid y_1, \\dots, y_{i-1}, x),",
])
def test_the_check_lets_the_notation_through(line):
    assert notation_problems([("new", line)]) == []
