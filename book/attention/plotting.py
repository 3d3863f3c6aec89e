"""Every figure in the book is drawn by these helpers, so all chapters look
alike.

Figures are rendered as PNG (see ``use_book_style``) so that a notebook's
stored outputs do not depend on SVG ids, and every plot is deterministic for
nbval.
"""
import matplotlib
import matplotlib.pyplot as plt
import numpy as np

FIGSIZE = (6.0, 3.4)


def use_book_style():
    """Fix the look of every figure and make the notebook emit PNG only."""
    matplotlib.rcParams.update({
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
        from matplotlib_inline.backend_inline import set_matplotlib_formats
        set_matplotlib_formats("png")
    except Exception:  # plain Python (tests, benchmarks): nothing to configure
        pass


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
