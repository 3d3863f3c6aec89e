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
import re
import shutil
import subprocess
import sys
from collections import Counter
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
