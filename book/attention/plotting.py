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

The metadata also holds the data the figure plots, as tables
(``figure_data``), which the book shows under the figure and offers as CSV
(``book/_ext/figure_data.py``): a reader who cannot see the plot reads its
numbers.
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
    book = {"text": strings, "data": figure_data(figure)}
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


# --- the data of a figure, as tables -----------------------------------------

# A table holds at most this many cells (data and row headers), so that a
# notebook stays small: a bigger matrix keeps its first rows, a longer curve
# every k-th point ("every": k) and its last; "total_rows" says how many rows
# there were.
MAX_CELLS = 10_000


def thinned(table):
    """``table`` with at most MAX_CELLS cells: every k-th row of a long series
    (and the last one), marked with ``every`` and ``total_rows``."""
    rows, width = table["rows"], len(table["columns"])
    if len(rows) * width <= MAX_CELLS:
        return table
    every = -(-len(rows) * width // MAX_CELLS)  # ceiling division
    kept = list(range(0, len(rows), every))
    if kept[-1] != len(rows) - 1:
        kept.append(len(rows) - 1)
    return {
        **table,
        "rows": [rows[i] for i in kept],
        "every": every,
        "total_rows": len(rows),
    }


def _value(v):
    """A cell: an integral number as an int, any other number to 4
    significant digits, a missing one (NaN, masked) as None, text as is."""
    if v is None or v is np.ma.masked:
        return None
    if isinstance(v, (str, np.str_)):
        return str(v)
    try:
        v = float(v)
    except (TypeError, ValueError):
        return str(v)
    if not np.isfinite(v):
        return None
    if v.is_integer() and abs(v) < 2**53:
        return int(v)
    return float(f"{v:.4g}")


def _column(values):
    values = np.ma.asarray(values).ravel()
    if (
        values.dtype.kind in "fiub"
    ):  # numbers: a masked one becomes NaN, then None
        values = values.astype(float).filled(np.nan)
    return [_value(v) for v in values.tolist()]


def _in_data_coordinates(artist, ax):
    """Drawn at data coordinates on both axes: a curve, not axhline/axvline
    (whose other coordinate is a fraction of the axes)."""
    return artist.get_transform().contains_branch(ax.transData)


def _caption(ax, figure):
    title = (
        ax.get_title() or ax.get_title(loc="left") or ax.get_title(loc="right")
    )
    if not title and figure._suptitle is not None:
        title = figure._suptitle.get_text()
    return title


def _labelled(artist):
    label = artist.get_label()
    return label if label and not label.startswith("_") else ""


def _legend_texts(ax):
    legend = ax.get_legend()
    return {t.get_text() for t in legend.get_texts()} if legend else set()


def _series_tables(ax, caption):
    """Curves (Line2D) and scatter points (PathCollection): one table per
    distinct x, its first column the x values, one column per series."""
    shown = _legend_texts(ax)
    series, levels = [], []  # (x, y, label); (label, y) of labelled axhlines
    for line in ax.get_lines():
        if not line.get_visible():
            continue
        if _in_data_coordinates(line, ax):
            series.append(
                (
                    _column(line.get_xdata()),
                    _column(line.get_ydata()),
                    _labelled(line),
                )
            )
        elif _labelled(line) and len(set(_column(line.get_ydata()))) == 1:
            levels.append((_labelled(line), _column(line.get_ydata())[0]))
    for points in ax.collections:
        if (
            isinstance(points, matplotlib.collections.PathCollection)
            and points.get_visible()
        ):
            offsets = np.ma.asarray(points.get_offsets())
            if offsets.size:
                series.append(
                    (
                        _column(offsets[:, 0]),
                        _column(offsets[:, 1]),
                        _labelled(points),
                    )
                )
    groups = {}
    for x, y, label in series:
        groups.setdefault(tuple(x), []).append((y, label))
    ylabel = ax.get_ylabel()
    tables = []
    for x, curves in groups.items():
        headers = []
        for number, (_, label) in enumerate(curves, 1):
            # the name a reader sees: the legend's entry, else the y axis's
            # label when it names the only curve, else the curve's own label
            if label in shown or (label and not ylabel):
                headers.append(label)
            elif len(curves) == 1 and ylabel:
                headers.append(ylabel)
            else:
                headers.append(
                    label or (f"y {number}" if len(curves) > 1 else "y")
                )
        # a labelled reference level (axhline, "chance (1/8)"): its value
        # on every row
        headers += [label for label, _ in levels]
        tables.append(
            thinned(
                {
                    "caption": caption,
                    "columns": [ax.get_xlabel() or "x", *headers],
                    "rows": [
                        [
                            xi,
                            *(y[i] for y, _ in curves),
                            *(level for _, level in levels),
                        ]
                        for i, xi in enumerate(x)
                    ],
                }
            )
        )
    return tables


def _tick_names(axis, count):
    """The labels of an image's rows (or columns) when a tick names each one
    (``show_heatmap``'s tokens), else the indices 0..count-1."""
    ticks = list(axis.get_ticklocs())
    names = [t.get_text() for t in axis.get_ticklabels()]
    if ticks == list(range(count)) and all(names):
        return [_value(n) for n in names]
    return list(range(count))


def _image_tables(ax, caption):
    """A heatmap (AxesImage of one value per pixel): the matrix, its rows and
    columns named by their tick labels."""
    tables = []
    for image in ax.get_images():
        matrix = np.ma.asarray(image.get_array())
        if (
            matrix.ndim != 2 or not image.get_visible()
        ):  # RGB(A) pictures carry no values
            continue
        n, m = matrix.shape
        rows = [
            [name, *_column(matrix[i])]
            for i, name in zip(
                range(min(n, MAX_CELLS // (m + 1) or 1)),
                _tick_names(ax.yaxis, n),
            )
        ]
        table = {
            "caption": caption,
            "columns": [ax.get_ylabel() or "y", *_tick_names(ax.xaxis, m)],
            "rows": rows,
        }
        if len(rows) < n:
            table["total_rows"] = n
        tables.append(table)
    return tables


def _bar_tables(ax, caption):
    """Bars (BarContainer, also a histogram's): one row per bar, named by the
    tick label at its centre (a category) or its centre; one column per set
    of bars."""
    shown = _legend_texts(ax)
    groups = {}
    for container in ax.containers:
        if not isinstance(container, matplotlib.container.BarContainer):
            continue
        horizontal = container.orientation == "horizontal"
        axis = ax.yaxis if horizontal else ax.xaxis
        ticks = {
            round(float(t), 9): label.get_text()
            for t, label in zip(axis.get_ticklocs(), axis.get_ticklabels())
        }
        names, values = [], []
        for bar in container.patches:
            centre = (
                bar.get_y() + bar.get_height() / 2
                if horizontal
                else bar.get_x() + bar.get_width() / 2
            )
            names.append(_value(ticks.get(round(centre, 9)) or centre))
            values.append(
                _value(bar.get_width() if horizontal else bar.get_height())
            )
        groups.setdefault((horizontal, tuple(names)), []).append(
            (values, _labelled(container))
        )
    tables = []
    for (horizontal, names), sets in groups.items():
        name_label, value_label = (
            (ax.get_ylabel(), ax.get_xlabel())
            if horizontal
            else (ax.get_xlabel(), ax.get_ylabel())
        )
        headers = [
            label
            if label in shown or (label and len(sets) > 1)
            else (value_label or label or "y")
            for values, label in sets
        ]
        tables.append(
            {
                "caption": caption,
                "columns": [name_label or "x", *headers],
                "rows": [
                    [name, *(values[i] for values, _ in sets)]
                    for i, name in enumerate(names)
                ],
            }
        )
    return tables


def figure_data(figure):
    """The data ``figure`` plots, read from its artists: a list of tables
    ``{"caption", "columns", "rows"}`` (``rows[i][0]`` names the row, and
    ``columns[0]`` names that first column), one per axes and kind of plot.

    * curves and scatter points (a series over ``MAX_CELLS`` cells keeps
      every k-th point, see ``thinned``): the x values, then one column per
      series with the same x (a series with other x values: another table); a
      labelled horizontal reference line (``axhline(..., label="chance")``)
      adds a column of its value;
    * an image with one value per pixel (a heatmap): the matrix, its rows and
      columns named by their tick labels when a tick names each (else their
      index), capped at ``MAX_CELLS`` cells (its first rows; ``total_rows``
      then says how many it had);
    * bars: one row per bar, named by its category.

    Headers are the figure's own strings (axis labels, legend entries), so
    the page's catalog translates them; the caption is the axes' title, else
    the figure's.  Numbers keep 4 significant digits (integers stay exact).

    Left out as decoration: unlabelled axhline/axvline reference lines (one
    coordinate is a fraction of the axes, and what they mark, a block's edge
    or 1/m, is said by the text beside them), colorbars, text annotations
    (the heatmap's values are in its matrix) and RGB pictures.  No chapter
    draws error bars, filled regions or meshes (pcolormesh); they are not
    read: ``tests/test_figures.py`` checks every figure of the book has data.
    """
    tables = []
    for ax in figure.axes:
        if getattr(ax, "_colorbar", None) is not None or not ax.get_visible():
            continue
        caption = _caption(ax, figure)
        tables += (
            _image_tables(ax, caption)
            + _series_tables(ax, caption)
            + _bar_tables(ax, caption)
        )
    return tables
