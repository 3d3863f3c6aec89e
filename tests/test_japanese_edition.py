"""The Japanese edition: complete catalogs, Japanese pages, a switch between editions.

The catalogs are checked against the book as it is now: the message templates
are extracted afresh and merged into a copy of ``locales/`` exactly as
``make locales`` does, so an English edit that nobody translated shows up here
as a fuzzy or empty entry.  Each message is then checked by
``tests/translation.py`` (maths, citations and cross-references kept, Japanese,
である調).  The built pages are checked for English prose outside code, and for
the language switch on every page.  The browser tests of both editions are in
test_browser.py.
"""
import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from xml.etree import ElementTree
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

import helpers
import translation
from test_book import toc_files

LOCALES = helpers.REPO / "locales"
CATALOGS = LOCALES / "ja" / "LC_MESSAGES" / "book"
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def merged_catalogs(tmp_path_factory):
    """locales/ after `make locales` on the current sources (in a scratch copy)."""
    scratch = tmp_path_factory.mktemp("i18n")
    result = subprocess.run([str(BIN / "jupyter-book"), "build", str(helpers.REPO), "--builder", "custom",
                             "--custom-builder", "gettext", "--path-output", str(scratch)],
                            capture_output=True, text=True)
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    shutil.copytree(LOCALES, scratch / "locales")
    result = subprocess.run([str(BIN / "sphinx-intl"), "update", "-p", str(scratch / "_build" / "gettext"),
                             "-l", "ja", "-d", str(scratch / "locales")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return scratch / "locales" / "ja" / "LC_MESSAGES" / "book"


def test_every_page_has_a_catalog():
    pages = {Path(page).name for page in toc_files()}
    assert {path.stem for path in CATALOGS.glob("*.po")} == pages


@pytest.mark.book   # builds the message templates with Jupyter Book
def test_the_catalogs_are_current_complete_and_in_order(merged_catalogs):
    problems = [f"{path.name}: {excerpt!r}: {problem}"
                for path in sorted(merged_catalogs.glob("*.po"))
                for excerpt, problem in translation.catalog_problems(path)]
    assert problems == [], f"{len(problems)} problem(s), e.g.\n" + "\n".join(problems[:30])


def test_the_checker_catches_what_it_promises():
    """tests/translation.py on hand-made messages: each rule fires, a good translation passes."""
    from babel.messages.catalog import Message

    def problems(english, japanese, **kwargs):
        return translation.message_problems(Message(english, japanese, **kwargs))

    english = "The weights $\\alpha_{ij}$ of {cite:t}`bahdanau2015` sum to 1 ({ref}`notation`)."
    good = "{cite:t}`bahdanau2015` の重み $\\alpha_{ij}$ の和は 1 である（「{ref}`notation`」）。"
    assert problems(english, good) == []
    assert problems(english, "") == ["not translated"]
    assert "fuzzy" in problems(english, good, flags=["fuzzy"])[0]
    assert "lost or changed" in problems(english, good.replace("$\\alpha_{ij}$", "α"))[0]
    assert "lost or changed" in problems(english, good.replace("（「{ref}`notation`」）", ""))[0]
    assert "still English" in problems(english, english)[0]
    assert problems("English", "English", user_comments=["English on purpose: a column"]) == []
    assert "である調" in problems(english, good.replace("である", "です"))[0]
    assert "list" in problems("1.1 Definition", "1. 定義")[0]
    assert problems("1. Softmax", "1\\. ソフトマックス") == []
    # issue 28: a cross-reference stands in 「」 (a table cell holding only the reference
    # excepted), and bold closes only where Markdown closes it
    assert "cross-reference without 「」" in problems(english, good.replace("「{ref}`notation`」",
                                                                           "{ref}`notation`"))[0]
    assert problems("{doc}`01_softmax`", "{doc}`01_softmax`") == []
    assert "bold that does not render" in problems("**Masks.** Every head", "**マスク。**どのヘッドも")[0]
    assert problems("**Masks.** Every head", "**マスク**。どのヘッドも") == []
    assert "bold that does not render" in problems("a **“quoted”** term", "**「引用」**した語")[0]
    assert problems("a **“quoted”** term", "「**引用**」した語") == []
    # a vector's dimension is 次元: 長さ, 大きさ and 幅 read as its norm
    scale = "Divide by the square root of the key width $\\sqrt{d_k}$."
    assert problems(scale, "キーの次元の平方根 $\\sqrt{d_k}$ で割る。") == []
    for wrong in ("キーの長さの平方根 $\\sqrt{d_k}$ で割る。", "長さ $\\sqrt{d_k}$ で割る。",
                  "幅 $d_k$ の平方根 $\\sqrt{d_k}$ で割る。"):
        assert "dimension called length" in problems(scale, wrong)[0], wrong
    assert "dimension called length" in problems("$d_k$ is the width of the keys.",
                                                 "$d_k$ はキーの長さである。")[0]
    assert "dimension called length" in problems("a query of width 4", "幅 4 のクエリ")[0]
    length = "A sequence of length $T$ is shifted by a large margin; a rotation keeps the length."
    assert problems(length, "長さ $T$ の系列を大幅にずらす。回転は長さを保つ。") == []
    # a word the terms table rules out, unless the translator says it is on purpose
    assert "rules out: 'ワンホット'" in problems("a one-hot vector", "ワンホットベクトル")[0]
    assert problems("a one-hot vector", "one-hot ベクトル") == []
    assert problems("an alternative", "ワンホット", user_comments=["Term on purpose: glossary"]) == []
    assert problems("`pairs`", "`pairs`") == []       # code is not prose: `ペア` would pass too
    assert "rules out: '順列行列'" in problems("a permutation matrix", "順列行列")[0]
    assert "digit before つ" in problems("one query", "クエリ 1 つ")[0]
    # a diagram's label keeps its markup (Graphviz reads it)
    assert "lost or changed" in problems("score e<SUB>ij</SUB>", "スコア eij")[0]
    assert problems("score e<SUB>ij</SUB>", "スコア e<SUB>ij</SUB>") == []
    assert "bare & or <" in problems("e<SUB>ij</SUB> and x", "e<SUB>ij</SUB> & x")[0]
    assert problems("e<SUB>ij</SUB> and x", "e<SUB>ij</SUB> &amp; x") == []
    # the breaker's cases (issue 28): the norm is 長さ（ノルム）; nouns are not orders or counters
    norm = "The rotation keeps the norm of the queries."
    for fine in ("回転はクエリとキーの長さ（ノルム）を保つ。", "オーバーヘッドの大きさ",
                 "$n$ と $d$ はそれぞれ系列の長さと次元である。", "$d_k$ が大きいほど内積の大きさは大きくなる。"):
        assert problems(norm, fine) == [], fine
    for wrong in ("長さ（$d_k$）のキー", "ベクトル長 $d_k$", "キー長", "$d_v$ の長さをもつバリュー",
                  "長さ `d_k` のキー", "長さの平方根 `np.sqrt(d_k)` で割る"):
        assert "dimension called length" in problems(norm, wrong)[0], wrong
    assert "digit before つ" in problems("one query", "クエリ1つ")[0]
    assert "digit before つ" in problems("one query", "クエリ１つ")[0]
    assert problems("twelve queries", "クエリ 12 個") == []
    assert problems("feeling", "気持ち") == [] and problems("spare", "スペア") == []
    assert "持っ" in problems("having", "持っている")[0]
    for spaced in ("これは** マスク**である", "**マスク **"):
        assert "bold that does not render" in problems("**mask**", spaced)[0], spaced


def test_the_grader_is_held_to_explaining():
    """A grader message explains; 命令形, 〜すること and あなた are flagged, the book's terms too."""
    for order in ("softmax の前に最大値を引け。", "`Q @ K.T` を計算せよ: 形状は (n, m)",
                  "`np.arange(n)` を使え。", "行 t として追加した (t + 1, d_k) のキャッシュを返せ",
                  "自分の解答と比べること。", "表を見よ。", "行の数を数えよ）"):
        assert any("an order" in p for p in translation.grader_message_problems(order)), order
    assert "rules out: 'あなた'" in translation.grader_message_problems("あなたの周波数は一致する")[0]
    for order in ("softmax の前に最大値を引け（Eq. 1）。", "入力を書き換えるな。", "値を返すべし。",
                  "もう一度見ろ。", "保存して下さい。", "最大値を引け\n次に割る"):
        assert any("an order" in p for p in translation.grader_message_problems(order)), order
    for noun in ("正しい答え: {expected}", "計算の流れ：", "期待される形状（全て）", "二つの結果は同じこと。",
                 "一部の練習サイトが求めるような丸め"):
        assert translation.grader_message_problems(noun) == [], noun
    explanation = ("softmax の前に最大値を引いていないため、大きな入力で exp があふれる。"
                   "正しいスコアは `Q @ K.T` である。")
    assert translation.grader_message_problems(explanation) == []
    assert translation.grader_message_problems("クエリとキーの長さ d_k の平方根") != []


def test_the_exercises_and_the_grader_follow_the_terms_and_explain():
    """The Japanese cells of every exercise source and every grader message pass the checker."""
    paths = [*sorted(helpers.REPO.glob("solutions/*/*.ipynb")),
             helpers.REPO / "autograder" / "locale" / "ja" / "LC_MESSAGES" / "autograder.po"]
    problems = [f"{path.name}: {excerpt!r}: {problem}" for path in paths
                for excerpt, problem in (translation.notebook_problems(path) if path.suffix == ".ipynb"
                                         else translation.catalog_problems(path))]
    assert problems == [], f"{len(problems)} problem(s), e.g.\n" + "\n".join(problems[:30])


# --- the built Japanese pages ---------------------------------------------------------

JAPANESE = translation.KANA_OR_KANJI
# Six English words in a row (names, a title, a phrase in parentheses are shorter).
ENGLISH_RUN = re.compile(r"(?:\b[A-Za-z][A-Za-z'’-]*\b[\s,;:]+){5}\b[A-Za-z][A-Za-z'’-]*\b")
NOT_PROSE = ["pre", "code", "script", "style", "math", ".math", ".MathJax", "div.cell_output", "div.output",
             "div.highlight", ".citation", "div.bibliography", ".docutils.container .bibliography",
             "nav", "footer", "header", ".bd-sidebar-primary", ".bd-sidebar-secondary", ".toc-entry"]
BLOCKS = "p, li, td, th, h1, h2, h3, h4, dt, dd, figcaption, caption, .admonition-title, summary"


def japanese_pages(site):
    return sorted(p for p in (site / "ja").rglob("*.html")
                  if p.relative_to(site / "ja").parts[0] == "book")


# A quotation stays in its language: a paper's title in italics, a program's message in 「」.
QUOTED = re.compile(f"「[^「」{translation.KANA_KANJI}]*」")


def english_prose(html):
    """Runs of English prose in a page's article, outside code, maths and quotations."""
    soup = BeautifulSoup(html, "html.parser")
    article = soup.select_one("article") or soup
    for selector in NOT_PROSE:
        for node in article.select(selector):
            node.decompose()
    for node in article.select("em, cite, q"):
        if not JAPANESE.search(node.get_text()):
            node.decompose()
    found = []
    for block in article.select(BLOCKS):
        if block.find(BLOCKS.split(", ")):   # judge the innermost blocks only
            continue
        text = QUOTED.sub("「」", " ".join(block.get_text(" ").split()))
        found += [match.group(0) for match in ENGLISH_RUN.finditer(text)]
    return found


def test_japanese_pages_show_no_english_prose(site):
    pages = japanese_pages(site)
    assert len(pages) == len(toc_files())
    # The glossary's English column and the English terms of its definitions are English on purpose.
    allowed = {"glossary"}
    english = {p.stem: english_prose(p.read_text()) for p in pages}
    problems = [f"{page}: {text}" for page, texts in english.items() for text in texts
                if not (page in allowed and not JAPANESE.search(text) and len(text.split()) <= 8)]
    assert problems == [], "\n".join(problems[:40])
    # myst-nb's toggle of a hidden cell speaks the page's language (a learner's trial, issue 28)
    assert [p.name for p in pages if "Show code cell" in p.read_text()] == []
    assert any("コードを表示" in p.read_text() for p in pages)


def test_the_english_pages_would_fail_that_check(site):
    """The check is real: the English chapter pages are full of what it looks for."""
    assert len(english_prose((site / "book" / "01_softmax.html").read_text())) > 20


def test_japanese_figures_have_japanese_alt_text(site):
    missing = []
    for page in japanese_pages(site):
        soup = BeautifulSoup(page.read_text(), "html.parser")
        for image in soup.select("article img[alt], article object[aria-label]"):
            alt = image.get("alt") or image.get("aria-label")
            if alt and not JAPANESE.search(alt):
                missing.append(f"{page.name}: {alt[:80]}")
    assert missing == []


def test_japanese_pages_keep_the_maths_and_the_references(site):
    """Per page, every formula, citation and cross-reference of the English is in the Japanese
    (a sentence may name a symbol once more)."""
    def inventory(html):
        article = BeautifulSoup(html, "html.parser").select_one("article")
        maths = Counter(" ".join(m.get_text().split()) for m in article.select(".math"))
        links = Counter(a["href"].split("#")[-1] for a in article.select("a.reference.internal[href]"))
        citations = Counter(a["href"].split("#")[-1] for a in article.select('a[href*="bibliography.html#"]'))
        return maths, links, citations
    lost = []
    for page in japanese_pages(site):
        english = inventory((site / page.relative_to(site / "ja")).read_text())
        japanese = inventory(page.read_text())
        for kind, en, ja in zip(("formulas", "cross-references", "citations"), english, japanese):
            if en - ja:
                lost.append(f"{page.name}: {kind} lost: {sorted(en - ja)[:5]}")
    assert lost == []


def test_every_page_links_to_itself_in_the_other_edition(site):
    checked = 0
    for page in japanese_pages(site):
        twin = site / page.relative_to(site / "ja")
        for here, there, lang in ((page, twin, "en"), (twin, page, "ja")):
            link = BeautifulSoup(here.read_text(), "html.parser").select_one(f"a.edition-switch[hreflang={lang}]")
            assert link is not None, f"{here}: no link to the {lang} edition"
            assert (here.parent / link["href"]).resolve() == there.resolve(), (here, link["href"])
            checked += 1
    assert checked == 2 * len(toc_files())


def test_the_japanese_edition_is_japanese(site):
    index = (site / "ja" / "book" / "intro.html").read_text()
    assert '<html lang="ja"' in index
    assert "アテンション" in BeautifulSoup(index, "html.parser").title.get_text()


def test_every_page_states_the_licences_in_its_language(site):
    """The footer of every page of both editions: text CC BY 4.0, code MIT, the LICENSE
    file; the README and the file itself say the same."""
    root = Path(__file__).parents[1]
    for page in japanese_pages(site):
        twin = site / page.relative_to(site / "ja")
        for here, words in ((twin, "Text and figures"), (page, "本文と図")):
            footer = BeautifulSoup(here.read_text(), "html.parser").select_one("p.licence")
            assert footer is not None, f"{here}: no licence in the footer"
            text = footer.get_text()
            assert words in text and "CC BY 4.0" in text and "MIT" in text, (here, text)
            assert footer.select_one("a[href$='/blob/main/LICENSE']"), (here, footer)
    licence = " ".join((root / "LICENSE").read_text().split())
    assert "Creative Commons Attribution 4.0" in licence and "Permission is hereby granted" in licence
    assert "CC BY 4.0" in (root / "README.md").read_text()


# --- the words inside figures (issue 28) ------------------------------------------------
# book/attention/plotting.py draws every plot in both languages; book/_ext/editions.py puts
# the strings into the page's catalog, shows the Japanese PNG and translates diagram labels.

sys.path.insert(0, str(helpers.REPO / "book" / "_ext"))
import editions  # noqa: E402

# What may stay Latin inside a Japanese figure: symbols, code names and units.
FIGURE_SYMBOLS = {
    "softmax", "matmul", "exp", "tanh", "max", "log", "sin", "cos", "argmax", "concat", "np",
    "ms", "MiB", "GiB", "KiB", "KB", "MB", "GB", "bits", "FFN", "KV", "RoPE", "LayerNorm",
    "Add", "Norm", "Linear", "ReLU", "GELU", "BERT", "GPT", "ViT", "LSTM", "RNN", "GRU",
    "Transformer", "FlashAttention", "CMUdict", "NumPy", "dtype", "float", "Adam", "SGD", "PE",
    "pos",                                       # chapter 10's position symbol
    "BLEU", "newstest", "Vaswani", "Bahdanau", "Luong",   # a metric, a test set, names (in Latin)
}
FIGURE_ENGLISH = re.compile(r"(?<![A-Za-z_\\])[A-Za-z]{2,}(?![A-Za-z_])")


def english_in_figure(text):
    """The English words of a figure's string, outside maths ($...$), code names, symbols
    (d_k, W_q) and units."""
    prose = re.sub(r"\$[^$]*\$|\bone-hot\b", " ", text)     # one-hot: the terms table's word
    return [w for w in FIGURE_ENGLISH.findall(prose) if w not in FIGURE_SYMBOLS]


def notebook_pages():
    return [(Path(page).name, helpers.REPO / f"{page}.ipynb") for page in toc_files()
            if (helpers.REPO / f"{page}.ipynb").exists()]


def page_catalog(page):
    from babel.messages.pofile import read_po
    with open(CATALOGS / f"{page}.po", "rb") as handle:
        return {m.id: m.string for m in read_po(handle) if m.id and m.string and not m.fuzzy}


def test_every_plot_is_drawn_in_japanese_with_the_catalogs_words():
    """Each figure of a notebook carries its Japanese drawing, made with the current
    translations of its page's catalog, and they are Japanese (symbols and units aside)."""
    problems, figures = [], 0
    for page, path in notebook_pages():
        catalog = page_catalog(page)
        source = path.read_text(encoding="utf-8")
        drawn = editions.notebook_figures(path)
        pngs = sum("image/png" in output.get("data", {}) for cell in json.loads(source)["cells"]
                   for output in cell.get("outputs", []))
        if pngs != len(drawn):                            # a plot drawn without the helpers
            problems.append(f"{page}: a PNG output without attention.plotting's metadata")
        if drawn and f'use_book_style(page=\\"{page}\\")' not in source:
            problems.append(f'{page}: the notebook must call use_book_style(page="{page}")')
        for _, book in drawn:
            figures += 1
            japanese = book.get("ja", {}).get("text")
            wanted = [catalog.get(text, text) for text in book["text"]]
            if japanese != wanted:
                problems.append(f"{page}: drawn with {japanese}, the catalog says {wanted} "
                                "(translate the figure's strings, then run the chapter again)")
            problems += [f"{page}: English in a figure: {text!r}"
                         for text in wanted if english_in_figure(text)]
    assert figures >= 40
    assert problems == [], "\n".join(problems[:30])


def test_the_figure_check_is_real():
    assert english_in_figure("accuracy against length $T$") == ["accuracy", "against", "length"]
    assert english_in_figure("長さ $T$ に対する精度（softmax, ms）") == []
    assert english_in_figure("W_q と d_k") == []
    assert english_in_figure("one-hot ベクトル") == []


@pytest.mark.book
def test_each_edition_shows_its_own_drawing_of_every_plot(site):
    import hashlib
    import base64
    problems = []
    for page, path in notebook_pages():
        relative = Path(path).relative_to(helpers.REPO).with_suffix(".html")
        shown = {edition: {Path(img["src"]).name for img in
                           BeautifulSoup((site / folder / relative).read_text(), "html.parser")
                           .select("article img")}
                 for edition, folder in (("en", "."), ("ja", "ja"))}
        for english, book in editions.notebook_figures(path):
            japanese = hashlib.sha256(base64.b64decode(book["ja"]["png"])).hexdigest()
            if f"{english}.png" not in shown["en"] or f"{japanese}.png" not in shown["ja"] \
                    or f"{english}.png" in shown["ja"]:
                problems.append(f"{page}: a figure is not shown in its language")
    assert problems == []


@pytest.mark.book
def test_japanese_diagrams_are_labelled_in_japanese(site):
    """The text of every Graphviz diagram on a Japanese page (its SVG's <text>)."""
    problems, diagrams = [], 0
    for page in japanese_pages(site):
        soup = BeautifulSoup(page.read_text(), "html.parser")
        for image in soup.select("article img[src$='.svg'], article object[data$='.svg']"):
            source = page.parent / (image.get("src") or image.get("data"))
            diagrams += 1
            texts = ElementTree.parse(source).getroot().iter("{http://www.w3.org/2000/svg}text")
            # italics quote an example's words (chapter 2's sentence), as in the prose
            problems += [f"{page.name}: {''.join(text.itertext())!r}" for text in texts
                         if text.get("font-style") != "italic" and english_in_figure("".join(text.itertext()))]
    assert diagrams >= 11
    assert problems == [], "\n".join(problems[:30])
