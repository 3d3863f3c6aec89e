"""Every figure in the book is drawn by these helpers, so all chapters look
alike.

Figures are rendered as PNG (see ``use_book_style``) so that a notebook's
stored outputs do not depend on SVG ids, and every plot is deterministic for
nbval.

Each figure is drawn in both editions from the same code.  When a notebook
shows a figure, ``use_book_style``'s PNG formatter renders it once as drawn
(English) and, when the page's Japanese catalog is at hand and the CJK font
is installed, once more with every word a reader reads (titles, axis labels,
legend entries, annotations; not the tick labels, which are data) replaced
by its translation.  ``use_book_style(page="03_additive_attention")`` names
the catalog: ``locales/ja/LC_MESSAGES/book/<page>.po`` of the repository,
read with babel.  Both drawings travel in the output: the English PNG as its
data, the English strings and the Japanese PNG in its metadata
(``metadata["image/png"]["attention_book"]``), which Jupyter does not show.
The book's build extracts the strings into the page's catalog and shows the
Japanese PNG in the Japanese edition (``book/_ext/editions.py``).
"""
import base64
import os
import re
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.text import Text

FIGSIZE = (6.0, 3.4)
# Japanese text needs a CJK font; the same one draws the English figures, so
# both editions look alike.  Only installed families are named (matplotlib
# warns about every missing one); without it the English figures still draw.
CJK_FONT = "Noto Sans CJK JP"
# A string a reader reads: a Latin word of two letters or more outside $...$.
_WORD = re.compile(r"[A-Za-z]{2,}")
_MATHS = re.compile(r"\$[^$]*\$")


_PAGE = {"name": None}


def use_book_style(page=None):
    """Fix the look of every figure and make the notebook emit PNG only (with
    the Japanese rendering in its metadata when ``page``, the book page this
    notebook is, names a catalog: see the module's docstring)."""
    _PAGE["name"] = page
    from matplotlib import font_manager
    installed = {font.name for font in font_manager.fontManager.ttflist}
    families = [f for f in (CJK_FONT, "DejaVu Sans") if f in installed]
    others = matplotlib.rcParams["font.sans-serif"]
    matplotlib.rcParams.update({
        # a list of families, so that a glyph missing from the first (ℝ, ᵀ, ₐ
        # in Noto Sans CJK) falls back to the next, DejaVu Sans
        "font.family": families or ["sans-serif"],
        "font.sans-serif": families + [f for f in others if f not in families],
        "figure.figsize": FIGSIZE,
        "figure.dpi": 100,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "font.size": 10,
        "legend.frameon": False,
    })
    try:  # inside IPython: ask the inline backend for PNG, not SVG
        from IPython import get_ipython
        shell = get_ipython()
    except ImportError:
        shell = None
    # Plain Python (tests, benchmarks): nothing to configure.  The inline
    # backend's set_matplotlib_formats would create an IPython shell there.
    if shell is not None:
        from matplotlib_inline.backend_inline import set_matplotlib_formats
        set_matplotlib_formats("png")
        formatter = shell.display_formatter.formatters["image/png"]
        formatter.for_type(matplotlib.figure.Figure, figure_png)


def reader_texts(figure):
    """The Text artists of ``figure`` that carry words a reader reads: titles,
    axis labels, legend entries, annotations.  Tick labels are data (the
    tokens of a sentence, numbers) and stay as they are."""
    ticks = set()
    for ax in figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            ticks.update(map(id, axis.get_ticklabels(which="both")))
    return [t for t in figure.findobj(Text)
            if id(t) not in ticks and t.get_visible()
            and _WORD.search(_MATHS.sub(" ", t.get_text()))]


def _png(figure):
    from IPython.core.pylabtools import print_figure
    return print_figure(figure, "png")


def figure_png(figure):
    """The inline backend's PNG of ``figure`` and, as metadata, the strings a
    reader reads and the figure drawn with their Japanese translations."""
    english = _png(figure)
    texts = reader_texts(figure)
    strings = [t.get_text() for t in texts]
    book = {"text": strings}
    drawable = CJK_FONT in matplotlib.rcParams["font.sans-serif"]
    if strings and _PAGE["name"] and drawable:
        # The English figure is shown whatever happens here: a translation
        # matplotlib cannot draw (bad maths) or an unreadable catalog leaves
        # the Japanese drawing out, and the book's build names the figure.
        try:
            japanese = japanese_catalog(_PAGE["name"])
            if japanese:
                book["ja"] = _drawn_in(figure, texts, strings, japanese)
        except Exception as error:
            book["ja_error"] = f"{type(error).__name__}: {error}"[:500]
    return english, {"attention_book": book}


def _drawn_in(figure, texts, strings, translations):
    """The figure drawn with its strings translated, then left as it was."""
    translated = [translations.get(s, s) for s in strings]
    try:
        for artist, string in zip(texts, translated):
            artist.set_text(string)
        drawn = base64.b64encode(_png(figure)).decode("ascii")
    finally:
        for artist, string in zip(texts, strings):
            artist.set_text(string)
    return {"text": translated, "png": drawn}


_CATALOG = {}


def japanese_catalog(page, start=None):
    """{English: Japanese} of the page's catalog in the book's Japanese
    edition, ``locales/ja/LC_MESSAGES/book/<page>.po`` of the repository above
    the working folder; empty outside the repository or without babel (a
    learner's machine)."""
    start = Path(start or os.getcwd()).resolve()
    for folder in (start, *start.parents):
        path = folder / "locales/ja/LC_MESSAGES/book" / f"{page}.po"
        if path.is_file():
            break
    else:
        return {}
    # read again when the catalog changed (a kernel outlives an edit)
    key = (path, path.stat().st_mtime_ns)
    if key not in _CATALOG:
        try:
            from babel.messages.pofile import read_po
        except ImportError:
            return {}
        with open(path, "rb") as handle:
            table = {m.id: m.string for m in read_po(handle)
                     if m.id and m.string and not m.fuzzy}
        _CATALOG.clear()
        _CATALOG[key] = table
    return _CATALOG[key]


def show_heatmap(weights, row_labels=None, col_labels=None, *, ax=None,
                 title=None, xlabel="key position j",
                 ylabel="query position i",
                 annotate=True, cmap="Blues"):
    """Draw an attention-weight matrix ``weights`` of shape (n, m), one query
    per row.

    Cells are annotated with their value (two decimals) when the matrix is
    small. Returns the matplotlib Axes so a chapter can add to it.
    """
    weights = np.asarray(weights)  # (n, m)
    if ax is None:
        _, ax = plt.subplots(figsize=(0.6 * weights.shape[1] + 2.2,
                                      0.5 * weights.shape[0] + 1.6))
    image = ax.imshow(weights, cmap=cmap, vmin=0.0,
                      vmax=max(1e-12, float(weights.max())), aspect="auto")
    ax.grid(False)
    ax.set_xticks(range(weights.shape[1]),
                  col_labels if col_labels is not None
                  else range(weights.shape[1]))
    ax.set_yticks(range(weights.shape[0]),
                  row_labels if row_labels is not None
                  else range(weights.shape[0]))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if annotate and weights.size <= 100:
        for (i, j), w in np.ndenumerate(weights):
            ax.text(j, i, f"{w:.2f}", ha="center", va="center",
                    color="white" if w > 0.6 * weights.max() else "black",
                    fontsize=8)
    plt.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    return ax


def plot_curves(x, curves, *, ax=None, xlabel="", ylabel="", title=None,
                logx=False, logy=False, marker="o"):
    """Plot several named curves ``{label: y}`` against the same ``x``; returns
    the Axes.
    """
    if ax is None:
        _, ax = plt.subplots()
    for label, y in curves.items():
        ax.plot(x, y, marker=marker, markersize=3, label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    if title:
        ax.set_title(title)
    if len(curves) > 1:
        ax.legend()
    return ax
