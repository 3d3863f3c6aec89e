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
