"""Every plot's data as a table under it, and as a CSV file.

A chapter's figure output carries, in its metadata, the data it plots
(``book/attention/plotting.py``'s ``figure_data``: tables of a caption, column
headers and rows).  After each such figure this extension adds a collapsed
section, ``<details class="figure-data">``, with one HTML table per table (a
caption, ``<th scope="col">`` headers, each row named by a ``<th scope="row">``)
and a link to a CSV of the whole table, written into the site as
``_static/figure-data/<page>-<figure>-<table>.csv`` (UTF-8 with a byte-order
mark, so that spreadsheets read Japanese headers right).

The HTML table shows at most ``MAX_ROWS`` rows and ``MAX_COLUMNS`` data columns
(its caption says so); the CSV holds all the figure stored.  In the Japanese
edition the captions and headers, the figure's own strings, are translated by
the page's catalog (they are its messages already: ``editions.figure_messages``);
the few words of this extension carry their Japanese here (``WORDS``).
"""
import csv
import html
import io
import re
from pathlib import Path

from docutils import nodes
from sphinx.transforms import SphinxTransform

import editions

MAX_ROWS = 100
MAX_COLUMNS = 16
FOLDER = "_static/figure-data"
CSS = Path(__file__).with_name("static") / "figure-data.css"

WORDS = {
    "en": {"summary": "Data of this figure",
           "untitled": "Data of figure {n}",
           "download": "Download “{caption}” as CSV",
           "rows_cut": "first {shown} of {total} rows shown",
           "columns_cut": "first {shown} of {total} columns shown",
           "csv_has_all": "the CSV has them all",
           "csv_cut": "the figure stored its first {stored} of {total} rows",
           "csv_every": "the figure stored every {every}th of its {total} rows",
           "joint": "; "},
    "ja": {"summary": "この図のデータ",
           "untitled": "図 {n} のデータ",
           "download": "「{caption}」を CSV でダウンロード",
           "rows_cut": "全 {total} 行のうち最初の {shown} 行を表示",
           "columns_cut": "全 {total} 列のうち最初の {shown} 列を表示",
           "csv_has_all": "CSV にはすべてを収録",
           "csv_cut": "図が保存したのは全 {total} 行のうち最初の {stored} 行",
           "csv_every": "図が保存したのは全 {total} 行から {every} 行ごと",
           "joint": "、"},
}
MATHS_DOLLARS = re.compile(r"\$([^$]*)\$")


def cell_text(value):
    """A cell as a reader reads it: numbers in their shortest form, missing ones empty."""
    if value is None:
        return ""
    if isinstance(value, float):
        return format(value, ".4g")
    return str(value)


TEX_SYMBOLS = {"\\ldots": "…", "\\cdots": "⋯", "\\cdot": "·", "\\times": "×", "\\alpha": "α",
               "\\beta": "β", "\\phi": "φ", "\\theta": "θ", "\\sigma": "σ", "\\top": "ᵀ"}
# \mathrm{Var} reads "Var", \sqrt{d_k} reads "√d_k": the commands a figure's strings use (and a few
# more); the braces they leave go too.
BINARY = ("\\cdot", "\\times")
TEX_WRAPPERS = re.compile(r"\\(?:mathrm|mathit|mathbf|operatorname|text)\{([^{}]*)\}")
TEX_ROOT = re.compile(r"\\sqrt\{([^{}]*)\}")


def header_text(value, translate=str):
    """A header or caption: the figure's string translated, its maths as a reader reads it,
    without the dollars and commands matplotlib needs ("$T$" reads "T", "$\\mathrm{Var}(q \\cdot k)$"
    reads "Var(q · k)", "\\ldots" reads "…")."""
    text = MATHS_DOLLARS.sub(r"\1", translate(value) if isinstance(value, str) else cell_text(value))
    text = TEX_ROOT.sub(r"√\1", TEX_WRAPPERS.sub(r"\1", text))
    for command, symbol in TEX_SYMBOLS.items():   # a space after a command only ends its name
        spaced = f" {symbol} " if command in BINARY else symbol
        text = re.sub((r"\s*" if command in BINARY else "") + re.escape(command) + r"(?![A-Za-z])\s?", spaced, text)
    return text.replace("^ᵀ", "ᵀ").replace("{", "").replace("}", "")


def table_csv(table, translate=str):
    """The whole table as CSV text: a header row, then every row."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")   # RFC 4180
    writer.writerow([header_text(h, translate) for h in table["columns"]])
    writer.writerows([[cell_text(v) for v in row] for row in table["rows"]])
    return out.getvalue()


def table_html(table, caption, csv_href, words, translate=str):
    """One accessible HTML table (at most MAX_ROWS x MAX_COLUMNS data cells) and its
    CSV link."""
    rows, columns = table["rows"], table["columns"]
    shown_rows, shown_columns = rows[:MAX_ROWS], columns[:MAX_COLUMNS + 1]
    notes = []
    if len(rows) > MAX_ROWS:
        notes.append(words["rows_cut"].format(shown=MAX_ROWS, total=len(rows)))
    if len(columns) > MAX_COLUMNS + 1:
        notes.append(words["columns_cut"].format(shown=MAX_COLUMNS, total=len(columns) - 1))
    if notes:
        notes.append(words["csv_has_all"])
    if table.get("every"):
        notes.append(words["csv_every"].format(every=table["every"], total=table["total_rows"]))
    elif table.get("total_rows"):
        notes.append(words["csv_cut"].format(stored=len(rows), total=table["total_rows"]))
    full_caption = caption + (f" ({words['joint'].join(notes)})" if notes else "")
    head = "".join(f'<th scope="col">{html.escape(header_text(h, translate))}</th>' for h in shown_columns)
    body = "".join(
        "<tr>" + f'<th scope="row">{html.escape(cell_text(row[0]))}</th>'
        + "".join(f"<td>{html.escape(cell_text(v))}</td>" for v in row[1:len(shown_columns)]) + "</tr>"
        for row in shown_rows)
    # the scrolling box is a focusable region so that a keyboard reaches every cell
    return (f'<div class="figure-data-scroll" tabindex="0" role="region" '
            f'aria-label="{html.escape(caption)}">'
            f'<table class="figure-data-table"><caption>{html.escape(full_caption)}</caption>'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
            f'<p class="figure-data-download"><a href="{html.escape(csv_href)}" download>'
            f"{html.escape(words['download'].format(caption=caption))}</a></p>")


def csv_name(docname, figure, table):
    return f"{docname.replace('/', '-')}-{figure}-{table}.csv"


class FigureDataTables(SphinxTransform):
    """After each notebook figure with data, its tables; the CSVs wait in the
    environment until the build writes them (``write_csvs``).  Runs before
    editions.TranslateAttributes (101), which renames a figure to its Japanese PNG."""

    default_priority = 100

    def apply(self, **kwargs):
        store = self.env.figure_data_csv = getattr(self.env, "figure_data_csv", {})
        store.pop(self.env.docname, None)
        if self.app.builder.format != "html":
            return
        language = editions.language_of(self.config)
        words = WORDS[language]
        translate = self.translator(language)
        figures = dict(editions.notebook_figures(self.env.doc2path(self.env.docname)))
        up = "../" * self.env.docname.count("/")
        number = 0
        for image in list(self.document.findall(nodes.image)):
            book = figures.get(Path(image.get("uri", "")).stem)
            if not book or not book.get("data"):
                continue
            number += 1
            parts = []
            for index, table in enumerate(book["data"], 1):
                name = csv_name(self.env.docname, number, index)
                store.setdefault(self.env.docname, {})[name] = table_csv(table, translate)
                caption = (header_text(table["caption"], translate) if table["caption"]
                           else words["untitled"].format(n=number))
                parts.append(table_html(table, caption, f"{up}{FOLDER}/{name}", words, translate))
            details = (f'<details class="figure-data"><summary>{html.escape(words["summary"])}</summary>'
                       + "".join(parts) + "</details>")
            image.parent.insert(image.parent.index(image) + 1, nodes.raw("", details, format="html"))

    def translator(self, language):
        """The page's catalog's gettext in a translated edition; else the identity."""
        if language == "en":
            return str
        from sphinx.locale import init as init_locale
        from sphinx.util.i18n import docname_to_domain
        dirs = [str(Path(self.env.srcdir, d)) for d in self.config.locale_dirs]
        domain = docname_to_domain(self.env.docname, self.config.gettext_compact)
        catalog, found = init_locale(dirs, self.config.language, domain)
        return catalog.gettext if found else str


def _purge(app, env, docname):
    getattr(env, "figure_data_csv", {}).pop(docname, None)


def _merge(app, env, docnames, other):
    store = env.figure_data_csv = getattr(env, "figure_data_csv", {})
    store.update({d: t for d, t in getattr(other, "figure_data_csv", {}).items() if d in docnames})


def write_csvs(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    folder = Path(app.outdir) / FOLDER
    for tables in getattr(app.env, "figure_data_csv", {}).values():
        for name, text in tables.items():
            folder.mkdir(parents=True, exist_ok=True)
            (folder / name).write_text(text, encoding="utf-8-sig", newline="")


def _add_static(app, config):
    if str(CSS.parent) not in config.html_static_path:    # editions.py may have added it
        config.html_static_path = [*config.html_static_path, str(CSS.parent)]


def setup(app):
    app.connect("config-inited", _add_static)
    app.add_transform(FigureDataTables)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("build-finished", write_csvs)
    app.add_css_file("figure-data.css")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
