"""Figures in both editions from the same code (issue 28): the plotting helpers draw a plot twice,
the build translates a diagram's labels before Graphviz lays it out.

book/attention/plotting.py: ``reader_texts`` picks the words a reader reads (not tick labels),
``figure_png`` returns the English PNG and, as metadata, the strings and the Japanese drawing.
book/_ext/editions.py: ``translate_dot`` passes every label line through the catalog, keeping
markup, quoted examples (italics) and the DOT syntax intact.
"""
import base64
import shutil
import subprocess
import sys

import matplotlib
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import helpers  # noqa: E402

sys.path.insert(0, str(helpers.REPO / "book"))
sys.path.insert(0, str(helpers.REPO / "book" / "_ext"))
import editions  # noqa: E402
from attention import plotting  # noqa: E402


def a_plot(page="page"):
    plotting.use_book_style(page=page)   # Noto Sans CJK (Debian's fonts-noto-cjk), as the book draws
    figure, ax = plt.subplots()
    ax.plot([1, 2], [3, 4], label="with attention")
    ax.plot([1, 2], [4, 3], label="without")
    ax.set_xticks([1, 2], ["the", "cat"])         # data: tokens of an example
    ax.set_xlabel("input length $T$")
    ax.set_title("Accuracy")
    ax.text(1.5, 3.5, "0.25")                      # a number: nothing to translate
    ax.legend()
    return figure


def test_outside_ipython_the_style_creates_no_shell():
    """use_book_style in plain Python (tests, benchmarks) must not start an IPython shell: the
    inline backend's set_matplotlib_formats would, and a later test's shell would be that one."""
    from IPython.core.interactiveshell import InteractiveShell
    InteractiveShell.clear_instance()
    plotting.use_book_style(page="page")
    assert not InteractiveShell.initialized()


def test_the_words_a_reader_reads_are_titles_labels_legends_and_annotations():
    figure = a_plot()
    assert sorted(t.get_text() for t in plotting.reader_texts(figure)) == [
        "Accuracy", "input length $T$", "with attention", "without"]
    plt.close(figure)


def catalog(tmp_path, pairs):
    books = tmp_path / "locales" / "ja" / "LC_MESSAGES" / "book"
    books.mkdir(parents=True)
    entries = "".join(f'\nmsgid "{en}"\nmsgstr "{ja}"\n' for en, ja in pairs)
    (books / "page.po").write_text('msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n' + entries,
                                   encoding="utf-8")
    return tmp_path


def test_a_plot_is_drawn_twice_and_left_as_it_was(tmp_path, monkeypatch):
    monkeypatch.chdir(catalog(tmp_path, [("Accuracy", "精度"), ("input length $T$", "入力長 $T$"),
                                         ("with attention", "注意あり")]))
    plotting._CATALOG.clear()
    figure = a_plot()
    assert plotting.CJK_FONT in matplotlib.rcParams["font.sans-serif"], "apt-get install fonts-noto-cjk"
    english, metadata = plotting.figure_png(figure)
    book = metadata["attention_book"]
    assert book["text"] == ["input length $T$", "Accuracy", "with attention", "without"]
    # an untranslated string stays English, so the book's test names it
    assert book["ja"]["text"] == ["入力長 $T$", "精度", "注意あり", "without"]
    japanese = base64.b64decode(book["ja"]["png"])
    assert japanese.startswith(b"\x89PNG") and japanese != english
    assert [t.get_text() for t in plotting.reader_texts(figure)] == book["text"]   # restored
    assert plotting.figure_png(figure)[0] == english                                 # same drawing
    plt.close(figure)


def test_outside_the_repository_or_without_a_page_a_plot_is_drawn_once(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for page in ("page", None):
        plotting._CATALOG.clear()
        figure = a_plot(page)
        english, metadata = plotting.figure_png(figure)
        assert english.startswith(b"\x89PNG") and "ja" not in metadata["attention_book"]
        plt.close(figure)
    monkeypatch.chdir(catalog(tmp_path, [("Accuracy", "精度")]))
    figure = a_plot(None)        # in the repository, but the notebook named no page
    assert "ja" not in plotting.figure_png(figure)[1]["attention_book"]
    figure = a_plot("another")   # a page without a catalog
    assert "ja" not in plotting.figure_png(figure)[1]["attention_book"]
    plt.close("all")


def test_a_translator_s_edit_reaches_a_running_kernel(tmp_path, monkeypatch):
    monkeypatch.chdir(catalog(tmp_path, [("Accuracy", "精度")]))
    plotting._CATALOG.clear()
    assert plotting.japanese_catalog("page") == {"Accuracy": "精度"}
    po = tmp_path / "locales" / "ja" / "LC_MESSAGES" / "book" / "page.po"
    po.write_text(po.read_text(encoding="utf-8").replace("精度", "正解率"), encoding="utf-8")
    import os
    os.utime(po, ns=(po.stat().st_atime_ns, po.stat().st_mtime_ns + 10**9))
    assert plotting.japanese_catalog("page") == {"Accuracy": "正解率"}


DIAGRAM = r'''digraph d {
  node [fontname="Noto Sans CJK JP"];
  a [label="softmax\nper row"]; b [label="say \"hi\" here"];
  c [label=<score e<SUB>ij</SUB><BR/>weights &amp; values>];
  t [label=<<I>the</I>>];
  cluster_label [label=<<table><tr><td>query q</td></tr></table>>];
  a -> b [label="S (n, m)"]; b -> c -> t;
}
'''


def test_diagram_labels_are_the_lines_a_reader_reads():
    assert editions.dot_label_lines(DIAGRAM) == [
        "softmax", "per row", 'say "hi" here', "score e<SUB>ij</SUB>", "weights &amp; values", "query q"]


def test_a_translated_diagram_keeps_its_structure_and_graphviz_reads_it():
    table = {"per row": "行ごと", 'say "hi" here': "「やあ」と言う", "score e<SUB>ij</SUB>": "スコア e<SUB>ij</SUB>",
             "weights &amp; values": "重みとバリュー", "query q": "クエリ q"}
    japanese = editions.translate_dot(DIAGRAM, lambda text: table.get(text, text))
    assert 'label="softmax\\n行ごと"' in japanese
    assert 'label="「やあ」と言う"' in japanese
    assert "label=<スコア e<SUB>ij</SUB><BR/>重みとバリュー>" in japanese
    assert "label=<<I>the</I>>" in japanese and "<td>クエリ q</td>" in japanese
    assert editions.translate_dot(DIAGRAM, lambda text: text) == DIAGRAM
    if shutil.which("dot"):   # Debian's graphviz, installed by make book
        result = subprocess.run(["dot", "-Tsvg"], input=japanese, capture_output=True, text=True)
        assert result.returncode == 0 and "行ごと" in result.stdout, result.stderr


@pytest.mark.parametrize("path", sorted((helpers.REPO / "book" / "diagrams").glob("*.dot")),
                         ids=lambda p: p.name)
def test_every_diagram_of_the_book_survives_translation(path):
    code = path.read_text(encoding="utf-8")
    marked = editions.translate_dot(code, lambda text: f"訳{text}訳")
    assert marked.count("訳") == 2 * len(editions.dot_label_lines(code))
    if shutil.which("dot"):
        result = subprocess.run(["dot", "-Tsvg"], input=marked, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr


def test_a_translation_matplotlib_cannot_draw_leaves_the_english_figure(tmp_path, monkeypatch):
    """The breaker's case: bad maths in a translation (the checker sees only lost maths)."""
    monkeypatch.chdir(catalog(tmp_path, [("Accuracy", "精度 $\\\\alpha_$")]))
    plotting._CATALOG.clear()
    figure = a_plot()
    english, metadata = plotting.figure_png(figure)
    assert english.startswith(b"\x89PNG") and "ja" not in metadata["attention_book"]
    assert "ValueError" in metadata["attention_book"]["ja_error"]
    assert [t.get_text() for t in plotting.reader_texts(figure)][1] == "Accuracy"    # restored
    plt.close(figure)


def test_symbols_missing_from_the_cjk_font_fall_back_without_a_warning(recwarn):
    figure = a_plot()
    figure.axes[0].set_ylabel("x ∈ ℝᵈ, Wₐ, Kᵀ")
    plotting.figure_png(figure)
    assert not [w for w in recwarn if "missing from font" in str(w.message)]
    plt.close(figure)


def test_a_comment_is_never_read_as_a_label():
    code = ('digraph d {\n  // an HTML label looks like label=<x<SUB>j</SUB> (more)\n'
            '  /* label="not this" */\n  a [label="softmax\\nper row"];\n  b [label=<key k<SUB>1</SUB>>];\n}\n')
    assert editions.dot_label_lines(code) == ["softmax", "per row", "key k<SUB>1</SUB>"]
    assert editions.translate_dot(code, lambda text: text) == code
    japanese = editions.translate_dot(code, lambda text: {"per row": "行ごと"}.get(text, text))
    assert "// an HTML label looks like label=<x<SUB>j</SUB> (more)" in japanese and "行ごと" in japanese
    if shutil.which("dot"):
        result = subprocess.run(["dot", "-Tsvg"], input=japanese, capture_output=True, text=True)
        assert result.returncode == 0, result.stderr


# --- the data of a figure, as tables (issue 29) -----------------------------------------------

import csv  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import figure_data  # noqa: E402


def test_a_line_plot_s_table_is_x_then_each_labelled_curve():
    plotting.use_book_style()
    figure, ax = plt.subplots()
    plotting.plot_curves([1, 2, 4], {"with attention": [0.123456, 0.5, 1 / 3], "without": [1e-6, np.nan, 2]},
                         ax=ax, xlabel="input length $T$", ylabel="accuracy", title="Accuracy")
    ax.axhline(0.125, color="gray", label="chance (1/8)")    # labelled: a level a reader compares with
    ax.axvline(3.5, color="gray")                              # unlabelled: decoration
    ax.plot([10, 20], [5, 6], label="elsewhere")               # other x values: its own table
    ax.legend()
    tables = plotting.figure_data(figure)
    assert tables[0] == {"caption": "Accuracy",
                         "columns": ["input length $T$", "with attention", "without", "chance (1/8)"],
                         "rows": [[1, 0.1235, 1e-06, 0.125], [2, 0.5, None, 0.125], [4, 0.3333, 2, 0.125]]}
    assert tables[1]["columns"] == ["input length $T$", "elsewhere", "chance (1/8)"]
    assert [row[:2] for row in tables[1]["rows"]] == [[10, 5], [20, 6]]
    assert len(tables) == 2
    json.dumps(tables, allow_nan=False)          # stored in the notebook: strict JSON
    assert plotting.figure_png(figure)[1]["attention_book"]["data"] == tables
    plt.close(figure)


def test_a_single_unlabelled_curve_is_named_by_its_axis_and_scatter_points_join_their_x():
    plotting.use_book_style()
    figure, ax = plt.subplots()
    plotting.plot_curves(np.arange(3), {"running maximum": [1.0, 2.0, 2.0]}, ax=ax, ylabel="score")
    ax.scatter(np.arange(3), [1.0, 2.0, 0.5], label="score s_j")
    ax.legend()
    other, ax2 = plt.subplots()
    ax2.plot([0, 1], [2, 3])
    ax2.set_ylabel("loss")
    assert plotting.figure_data(figure)[0]["columns"] == ["x", "running maximum", "score s_j"]
    assert plotting.figure_data(figure)[0]["rows"][2] == [2, 2, 0.5]
    assert plotting.figure_data(other)[0]["columns"] == ["x", "loss"]
    plt.close("all")


def test_a_heatmap_s_table_is_its_matrix_named_by_its_tick_labels():
    plotting.use_book_style()
    weights = np.array([[0.7, 0.3, 0.0], [0.25, 0.25, 0.5]])
    ax = plotting.show_heatmap(weights, ["the", "cat"], ["le", "chat", "noir"], title="weights")
    figure = ax.figure
    assert plotting.figure_data(figure) == [{   # the colorbar and the cells' annotations are not data
        "caption": "weights", "columns": ["query position i", "le", "chat", "noir"],
        "rows": [["the", 0.7, 0.3, 0], ["cat", 0.25, 0.25, 0.5]]}]
    plt.close(figure)
    figure, ax = plt.subplots()
    ax.imshow(np.arange(30.0).reshape(15, 2), aspect="auto")   # ticks 0, 5, 10: rows named by index
    figure.suptitle("a figure's title")
    table, = plotting.figure_data(figure)
    assert table["caption"] == "a figure's title" and table["columns"] == ["y", 0, 1]
    assert [row[0] for row in table["rows"]] == list(range(15)) and table["rows"][14] == [14, 28, 29]
    plt.close(figure)


def test_a_bar_chart_s_table_is_one_row_per_bar():
    plotting.use_book_style()
    figure, ax = plt.subplots()
    ax.bar(["softmax", "sparsemax"], [2.5, 1.0])
    ax.set_xlabel("method")
    ax.set_ylabel("time (ms)")
    assert plotting.figure_data(figure) == [{"caption": "", "columns": ["method", "time (ms)"],
                                             "rows": [["softmax", 2.5], ["sparsemax", 1]]}]
    plt.close(figure)


def test_an_oversized_heatmap_is_capped_and_says_so():
    plotting.use_book_style()
    figure, ax = plt.subplots()
    ax.imshow(np.arange(200 * 40.0).reshape(200, 40), aspect="auto")
    ax.set_title("big")
    table, = plotting.figure_data(figure)                       # under MAX_CELLS: all stored
    assert len(table["rows"]) == 200 and len(table["columns"]) == 41 and "total_rows" not in table
    page = figure_data.table_html(table, "big", "big.csv", figure_data.WORDS["en"])
    assert page.count("<tr>") == figure_data.MAX_ROWS + 1       # the HTML shows a corner of it
    assert page.count('<th scope="col">') == figure_data.MAX_COLUMNS + 1
    assert page.count("<td>") == figure_data.MAX_ROWS * figure_data.MAX_COLUMNS
    assert (f"<caption>big (first {figure_data.MAX_ROWS} of 200 rows shown; first {figure_data.MAX_COLUMNS} "
            "of 40 columns shown; the CSV has them all)</caption>") in page
    rows = list(csv.reader(io.StringIO(figure_data.table_csv(table))))   # the CSV has everything
    assert len(rows) == 201 and len(rows[0]) == 41 and rows[200][:3] == ["199", "7960", "7961"]
    ax.images[0].remove()
    ax.imshow(np.arange(300 * 300.0).reshape(300, 300), aspect="auto")
    table, = plotting.figure_data(figure)                       # over MAX_CELLS: the first rows
    stored = plotting.MAX_CELLS // 301
    assert len(table["rows"]) == stored and table["total_rows"] == 300 and len(table["columns"]) == 301
    page = figure_data.table_html(table, "big", "big.csv", figure_data.WORDS["ja"])
    assert f"図が保存したのは全 300 行のうち最初の {stored} 行" in page
    plt.close(figure)


def test_a_long_curve_keeps_every_k_th_point_and_its_last():
    plotting.use_book_style()
    figure, ax = plt.subplots()
    ax.plot(np.arange(15001), np.arange(15001) / 2, label="rate")
    table, = plotting.figure_data(figure)
    every = -(-15001 * 2 // plotting.MAX_CELLS)
    assert table["every"] == every == 4 and table["total_rows"] == 15001
    assert table["rows"][:2] == [[0, 0], [4, 2]] and table["rows"][-1] == [15000, 7500]
    assert len(table["rows"]) * 2 <= plotting.MAX_CELLS
    page = figure_data.table_html(table, "rate", "r.csv", figure_data.WORDS["en"])
    assert "the figure stored every 4th of its 15001 rows" in page
    plt.close(figure)


def test_a_table_in_html_has_a_caption_scoped_headers_and_its_language():
    table = {"caption": "Accuracy", "columns": ["input length $T$", "with attention"],
             "rows": [[1, 0.1235], [2, None]]}
    japanese = {"input length $T$": "入力長 $T$", "with attention": "注意あり"}.get
    page = figure_data.table_html(table, "精度", "../x.csv", figure_data.WORDS["ja"],
                                  lambda s: japanese(s) or s)
    assert "<caption>精度</caption>" in page
    assert '<th scope="col">入力長 T</th><th scope="col">注意あり</th>' in page
    assert '<tr><th scope="row">1</th><td>0.1235</td></tr><tr><th scope="row">2</th><td></td></tr>' in page
    assert '<a href="../x.csv" download>「精度」を CSV でダウンロード</a>' in page
    assert figure_data.table_csv(table) == "input length T,with attention\r\n1,0.1235\r\n2,\r\n"


def committed_figures():
    for path in sorted((helpers.REPO / "book").glob("*.ipynb")):
        for digest, book in editions.notebook_figures(path):
            yield path.stem, digest, book


def test_every_figure_of_the_book_carries_its_data():
    """The committed outputs hold each plot's tables (run the chapter again when one is missing)."""
    figures = list(committed_figures())
    assert len(figures) >= 40
    problems = []
    for page, digest, book in figures:
        tables = book.get("data") or []
        if not tables:
            problems.append(f"{page}: figure {digest[:8]} has no data")
        for table in tables:
            width = len(table["columns"])
            if not table["rows"] or any(len(row) != width for row in table["rows"]) \
                    or any(h in ("", None) for h in table["columns"]):
                problems.append(f"{page}: figure {digest[:8]}: a table with empty headers or ragged rows")
    assert problems == []


def _catalog(page):
    from babel.messages.pofile import read_po
    with open(helpers.REPO / "locales" / "ja" / "LC_MESSAGES" / "book" / f"{page}.po", "rb") as handle:
        return {m.id: m.string for m in read_po(handle) if m.id and m.string and not m.fuzzy}


def test_every_figure_of_both_editions_is_followed_by_its_data(site):
    """In the built pages each plot is followed by a collapsed section with its tables (a caption,
    th headers with their scope, in the edition's language) and CSV links that resolve."""
    import hashlib
    from bs4 import BeautifulSoup
    problems, checked = [], 0
    for path in sorted((helpers.REPO / "book").glob("*.ipynb")):
        figures = editions.notebook_figures(path)
        if not figures:
            continue
        translations = _catalog(path.stem)
        for edition, folder, summary in (("en", site, "Data of this figure"), ("ja", site / "ja", "この図のデータ")):
            page = folder / "book" / f"{path.stem}.html"
            soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
            images = {Path(img["src"]).stem: img for img in soup.select("article img")}
            for digest, book in figures:
                if edition == "ja":
                    digest = hashlib.sha256(base64.b64decode(book["ja"]["png"])).hexdigest()
                    translate = lambda text: translations.get(text, text)  # noqa: E731
                else:
                    translate = str
                where = f"{edition} {path.stem} {digest[:8]}"
                details = images[digest].find_next_sibling() if digest in images else None
                if details is None or details.name != "details" or "figure-data" not in details["class"]:
                    problems.append(f"{where}: no data after the figure")
                    continue
                checked += 1
                assert details.summary.get_text() == summary, where
                tables, links = details.select("table"), details.select("a[href$='.csv']")
                assert len(tables) == len(links) == len(book["data"]), where
                for table, link, data in zip(tables, links, book["data"]):
                    caption = table.caption.get_text()
                    if data["caption"]:
                        assert caption.startswith(figure_data.header_text(data["caption"], translate)), where
                    heads = [th.get_text() for th in table.select("thead th")]
                    assert all(th.get("scope") == "col" for th in table.select("thead th")), where
                    assert heads and all(heads), where
                    assert [figure_data.header_text(h, translate) for h in data["columns"]][:len(heads)] == heads
                    assert all(row.select_one("th[scope=row]") is not None for row in table.select("tbody tr"))
                    csv_file = (page.parent / link["href"]).resolve()
                    assert csv_file.is_file() and csv_file.is_relative_to(folder), f"{where}: {link['href']}"
                    rows = list(csv.reader(io.StringIO(csv_file.read_text(encoding="utf-8-sig"))))
                    assert rows[0][:len(heads)] == heads and len(rows) == len(data["rows"]) + 1, where
                    if edition == "ja":
                        assert "CSV でダウンロード" in link.get_text(), where
    assert problems == [] and checked >= 80, problems[:20]


@pytest.mark.parametrize("tex, reads", [
    (r"$\mathrm{Var}(q \cdot k)$（測定値）", "Var(q · k)（測定値）"),
    (r"$\mathrm{Var}(q \cdot k / \sqrt{d_k})$", "Var(q · k / √d_k)"),
    (r"$\alpha_{ij}$ over $x_1, \ldots, x_n$", "α_ij over x_1, …, x_n"),
    (r"$QK^\top$", "QKᵀ"),
])
def test_a_table_header_reads_the_figures_maths_without_tex(tex, reads):
    assert figure_data.header_text(tex) == reads
