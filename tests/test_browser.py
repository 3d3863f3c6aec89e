"""The built book in a real browser, offline: Playwright drives Debian's Chromium.

Every page of both editions (English, and Japanese in ja/) is served from
localhost and loaded: no console error, no failed request, every image loaded,
MathJax typesets every formula with no raw TeX left, every internal link and
anchor resolves.  The search page finds the softmax chapter (for ソフトマックス in
the Japanese edition); Japanese glyphs render (not as empty boxes); the glossary's
Japanese terms never break inside a word at 1280 px; the language switch leads to
the same page in the other edition and back; a screenshot of every chapter is
saved in _build/screenshots/.
"""
import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

import helpers
from test_book import CHAPTERS

SCREENSHOTS = helpers.REPO / "_build" / "screenshots"


@pytest.fixture(scope="module")
def server(site):
    with helpers.serve(site) as url:
        yield url


EDITIONS = ["", "ja"]   # the folder of each edition in the site


def pages(site):
    """Every page of both editions (ja/... for the Japanese one)."""
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if not any(part.startswith("_") for part in p.relative_to(site).parts))


IMAGES = """() => Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)"""


def test_every_page_loads_cleanly_offline(site, server, browser):
    problems = []
    for name in pages(site):
        page, seen = helpers.open_page(browser, f"{server}/{name}")
        if name not in ("index.html", "ja/index.html"):  # the editions' index.html only redirect
            seen += helpers.math_problems(page)
            seen += [f"image not loaded: {src}" for src in page.evaluate(IMAGES)]
        problems += [f"{name}: {problem}" for problem in seen]
        page.close()
    assert problems == []
    print(f"{len(pages(site))} pages checked")


def test_every_internal_link_and_anchor_resolves(site):
    ids = {}
    missing = []
    for name in pages(site):
        html = (site / name).read_text()
        for href in re.findall(r'href="([^"]+)"', html):
            url = urlparse(href)
            if url.scheme in ("http", "https", "mailto", "javascript") or href.startswith("//"):
                continue
            target = (site / name).parent / unquote(url.path) if url.path else site / name
            if url.path.endswith("/") or target.is_dir():
                target = target / "index.html"
            if not target.resolve().exists():
                missing.append(f"{name} -> {href}")
                continue
            if url.fragment and target.suffix == ".html":
                key = target.resolve()
                if key not in ids:
                    ids[key] = set(re.findall(r'\bid="([^"]+)"', target.read_text()))
                if unquote(url.fragment) not in ids[key]:
                    missing.append(f"{name} -> {href} (no such anchor)")
    assert missing == []


@pytest.mark.parametrize("edition, query", [("", "softmax"), ("ja/", "ソフトマックス")])
def test_search_finds_the_softmax_chapter(server, browser, edition, query):
    page = browser.new_page()
    page.goto(f"{server}/{edition}search.html?q={query}", wait_until="networkidle")
    page.wait_for_selector("#search-results li", timeout=20000)
    links = page.eval_on_selector_all("#search-results li a", "els => els.map(e => e.getAttribute('href'))")
    page.close()
    assert any("01_softmax" in link for link in links), links


# Draw a string on a canvas and return its pixels: a missing glyph draws the same empty box as
# a code point that has no glyph anywhere (U+0378 is unassigned).
GLYPHS = """(text) => {
    const draw = s => { const c = document.createElement('canvas'); c.width = 400; c.height = 60;
        const g = c.getContext('2d'); g.font = '40px ' + getComputedStyle(document.body).fontFamily;
        g.fillText(s, 5, 45); return c.toDataURL(); };
    return {text: draw(text), boxes: draw('\\u0378'.repeat(text.length))};
}"""


@pytest.mark.parametrize("name", ["book/glossary.html", "ja/book/glossary.html", "ja/book/03_additive_attention.html"])
def test_japanese_glyphs_render(server, browser, name):
    page = browser.new_page()
    page.goto(f"{server}/{name}", wait_until="networkidle")
    assert "加法注意" in page.inner_text("body")
    drawn = page.evaluate(GLYPHS, "注意機構")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / name.replace("/", "_").replace(".html", ".png")), full_page=True)
    page.close()
    assert drawn["text"] != drawn["boxes"], "Japanese text is drawn as empty boxes: install a CJK font"


# Each word of the glossary's Japanese column, wrapped in a span: a word broken across two
# lines has two client rectangles.  Words are split where Japanese typesetting may break a
# compound term: at spaces, after 「・」「、」「／」「）」 and before 「（」.
BROKEN_WORDS = r"""() => {
    const broken = [];
    const cells = document.querySelectorAll('section#glossary table tbody td:nth-child(2)');
    for (const cell of cells) {
        const words = cell.textContent.split(/\s+|(?<=[・、／）])|(?=（)/).filter(w => w);
        cell.innerHTML = words.map(w => '<span class="w">' + w + '</span>').join('<wbr>');
        for (const span of cell.querySelectorAll('span.w')) {
            if (span.getClientRects().length > 1) broken.push(span.textContent);
        }
    }
    return {broken: broken, cells: cells.length};
}"""


@pytest.mark.parametrize("edition", EDITIONS)
def test_glossary_japanese_terms_never_break_inside_a_word_at_1280_px(server, browser, edition):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{server}/{edition + '/' if edition else ''}book/glossary.html", wait_until="networkidle")
    result = page.evaluate(BROKEN_WORDS)
    page.close()
    assert result["cells"] > 40
    assert result["broken"] == []


def test_the_language_switch_leads_to_the_same_page_and_back(server, browser):
    page = browser.new_page()
    page.goto(f"{server}/book/06_scaled_dot_product_attention.html", wait_until="networkidle")
    page.click("a.edition-switch[hreflang=ja]")
    page.wait_for_load_state("networkidle")
    assert page.url == f"{server}/ja/book/06_scaled_dot_product_attention.html"
    assert page.evaluate("document.documentElement.lang") == "ja"
    # The Japanese font is the prose's; code keeps the theme's monospace font.
    fonts = page.evaluate("""() => [getComputedStyle(document.querySelector('article p')).fontFamily,
                                    getComputedStyle(document.querySelector('div.highlight pre span')).fontFamily]""")
    assert "Noto Sans CJK JP" in fonts[0] and "Noto Sans CJK JP" not in fonts[1], fonts
    page.click("a.edition-switch[hreflang=en]")
    page.wait_for_load_state("networkidle")
    assert page.url == f"{server}/book/06_scaled_dot_product_attention.html"
    assert page.evaluate("document.documentElement.lang") == "en"
    page.close()


def test_screenshot_of_every_chapter(site, server, browser):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    chapters = [n for n in pages(site) if re.match(r"book/\d\d_", n)]
    for name in chapters:
        page.goto(f"{server}/{name}", wait_until="networkidle")
        page.evaluate(helpers.WAIT_FOR_MATHJAX)
        path = SCREENSHOTS / f"{Path(name).stem}.png"
        page.screenshot(path=str(path))
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page.close()
    assert len(chapters) == len(CHAPTERS)  # every numbered chapter of _toc.yml


WIDE_PAGE = {"width": 1280, "height": 900}

# Display math typeset by MathJax 3 (CommonHTML): mjx-math inside the mjx-container carries the
# formula's real width, which may exceed the block MathJax draws it in. Compare it with Sphinx's
# container; the TeX, for the message, is MathJax's own record of the formula.
MATH_WIDTHS = """() => Array.from(document.querySelectorAll('div.math')).map(box => {
    const formula = box.querySelector('mjx-container > mjx-math');
    const item = [...MathJax.startup.document.math].find(i => box.contains(i.typesetRoot));
    return {tex: item ? item.math : box.textContent.slice(0, 80),
            width: formula ? formula.getBoundingClientRect().width : null, room: box.clientWidth};
})"""


@pytest.mark.parametrize("edition", EDITIONS)
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_display_math_fits_its_column_at_1280_px(server, browser, chapter, edition):
    page = browser.new_page(viewport=WIDE_PAGE)
    page.goto(f"{server}/{edition + '/' if edition else ''}{chapter}.html", wait_until="networkidle")
    page.evaluate(helpers.WAIT_FOR_MATHJAX)
    formulas = page.evaluate(MATH_WIDTHS)
    page.close()
    assert all(f["width"] is not None for f in formulas), "display math not typeset"
    wide = [f"{f['width']:.0f} px > {f['room']} px: {' '.join(f['tex'].split())[:100]}"
            for f in formulas if f["width"] > f["room"] + 0.5]
    assert wide == [], wide


# Sphinx embeds each Graphviz SVG as an <object>; a loaded one exposes its <svg> document.
DIAGRAMS = """() => Array.from(document.querySelectorAll('div.graphviz object')).map(o => {
    const svg = o.contentDocument && o.contentDocument.documentElement;
    return {data: o.getAttribute('data'), loaded: !!svg && svg.tagName.toLowerCase() === 'svg',
            width: o.getBoundingClientRect().width, height: o.getBoundingClientRect().height,
            room: o.closest('figure, section, article').getBoundingClientRect().width};
})"""


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_diagrams_load_and_fit_at_1280_px(server, browser, chapter):
    page = browser.new_page(viewport=WIDE_PAGE)
    page.goto(f"{server}/{chapter}.html", wait_until="load")
    page.wait_for_load_state("networkidle")
    diagrams = page.evaluate(DIAGRAMS)
    page.close()
    bad = [d for d in diagrams if not d["loaded"] or d["height"] < 20 or d["width"] > d["room"] + 0.5]
    assert bad == [], bad
