"""WCAG 2.2 AA: axe-core on every page of both editions and on the grader's pages, and the
checks axe cannot make (language of parts, a keyboard-only walk, reflow at 320 px, the
contrast of code and outputs), in Debian's Chromium, offline.

axe-core is the copy the pinned `axe-playwright-python` wheel ships (axe_playwright_python/
axe.min.js), injected into each page from disk.  It runs the rules tagged wcag2a, wcag2aa,
wcag21a, wcag21aa and wcag22aa, with no rule excluded (CONTRIBUTING.md, "Accessibility"),
in the light theme and then the dark one (pydata-sphinx-theme's data-theme on <html>).
"""
import json
import re
from pathlib import Path

import axe_playwright_python
import pytest

import helpers
import test_class_grading
import test_formgrader
from test_book import CHAPTERS
from test_class_grading import graded_class  # noqa: F401 (the class graded, with its feedback)
from test_formgrader import graded  # noqa: F401 (a course graded, for Formgrader)

AXE = Path(axe_playwright_python.__file__).with_name("axe.min.js")
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
EXCLUDED_RULES = {}   # rule id -> why; none (CONTRIBUTING.md says the same)
REDIRECTS = ["index.html", "ja/index.html"]   # each edition's index.html is a bare <meta> redirect


@pytest.fixture(scope="module")
def server(site):
    with helpers.serve(site) as url:
        yield url


def pages(site):
    """Every page of both editions but the two redirects (test_the_index_pages_only_redirect)."""
    return sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                  if not any(part.startswith("_") for part in p.relative_to(site).parts)
                  and p.relative_to(site).as_posix() not in REDIRECTS)


RUN_AXE = """async ([tags, excluded]) => {
    const rules = Object.fromEntries(excluded.map(id => [id, {enabled: false}]));
    const r = await axe.run(document, {runOnly: {type: 'tag', values: tags}, rules: rules});
    const nodes = list => list.map(rule => ({id: rule.id, impact: rule.impact, help: rule.help,
        targets: rule.nodes.map(n => n.target.join(' ')), html: rule.nodes.map(n => n.html.slice(0, 120))}));
    const ran = new Set([r.passes, r.violations, r.incomplete, r.inapplicable].flat().map(rule => rule.id));
    return {passes: r.passes.length, violations: nodes(r.violations), incomplete: nodes(r.incomplete),
            inapplicable: r.inapplicable.length, rules: ran.size};
}"""


def axe(page):
    """axe-core's results on an open page (injected once)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(RUN_AXE, [WCAG_TAGS, list(EXCLUDED_RULES)])


def readable(where, violations):
    return [f"{where}: {v['id']} ({v['impact']}): {v['help']} at {', '.join(v['targets'][:6])}"
            + (f" (+{len(v['targets']) - 6} more)" if len(v["targets"]) > 6 else "") for v in violations]


def rule_count(result):
    """'rules (passes/violations/incomplete/inapplicable)': a rule with some elements passing and
    some not is in two lists, so the four add up to more than the rules run."""
    return (f"{result['rules']} rules ({result['passes']}/{len(result['violations'])}/"
            f"{len(result['incomplete'])}/{result['inapplicable']})")


def set_theme(page, theme):
    """The theme as pydata-sphinx-theme's switch leaves it: its choice in localStorage, then
    <html data-mode data-theme>, which its CSS reads."""
    page.evaluate("""(theme) => { localStorage.setItem('mode', theme); localStorage.setItem('theme', theme);
                                  document.documentElement.dataset.mode = theme;
                                  document.documentElement.dataset.theme = theme;
                                  document.getAnimations().forEach(a => a.finish()); }""", theme)   # no colour mid-way
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == \
        {"light": "rgb(255, 255, 255)", "dark": "rgb(18, 18, 18)"}[theme]


def test_the_index_pages_only_redirect(site):
    for name in REDIRECTS:
        assert re.fullmatch(r'<meta http-equiv="Refresh" content="0; url=book/intro.html" />\s*',
                            (site / name).read_text()), name


# The search page once it shows results (highlighted words, snippets of every page).
SEARCHES = ["search.html?q=softmax", "ja/search.html?q=ソフトマックス"]


def open_page_as_shown(browser, server, name):
    page, _ = helpers.open_page(browser, f"{server}/{name}")
    page.evaluate(helpers.WAIT_FOR_MATHJAX)
    if "?q=" in name:
        page.wait_for_selector("#search-results li", timeout=30_000)
    return page


def test_axe_finds_no_violation_on_any_page_in_either_theme(site, server, browser):
    problems, counts, summaries = [], {}, {}
    for name in pages(site) + SEARCHES:
        page = open_page_as_shown(browser, server, name)
        for theme in ("light", "dark"):
            set_theme(page, theme)
            result = axe(page)
            counts[name, theme] = result["rules"]
            summaries[name, theme] = rule_count(result)
            problems += readable(f"{name} [{theme}]", result["violations"])
        page.close()
    print("\naxe rules run per page (rules with passes/violations/incomplete/inapplicable):")
    for (name, theme), summary in summaries.items():
        print(f"  {name} [{theme}]: {summary}")
    assert len(counts) == 2 * len(pages(site) + SEARCHES) and min(counts.values()) >= 50, counts
    assert problems == [], "\n".join(problems)


def test_the_theme_switch_reaches_the_dark_theme(server, browser):
    """The sweep above sets the theme as the switch does; the switch itself gets there."""
    page, _ = helpers.open_page(browser, f"{server}/book/01_softmax.html")
    seen = []
    for _ in range(3):
        page.click("button.theme-switch-button")
        seen.append(page.evaluate("document.documentElement.dataset.theme"))
    page.close()
    assert "dark" in seen and "light" in seen, seen


# --- the language of the page and of its parts (WCAG 3.1.1, 3.1.2) ------------------------

# Text of the other language whose nearest lang="..." is the page's.  Japanese text: any
# kana or CJK ideograph; English text in a Japanese page: three English words in a row,
# outside code and formulas (book/_ext/accessibility.py marks the same runs).
WRONG_LANGUAGE = r"""(language) => {
    const japanese = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u;
    const english = /[A-Za-z][A-Za-z'’-]*(?:[\s\u00a0,:;.()\-–—\/&]+[A-Za-z][A-Za-z'’-]*){2,}/;
    const notProse = 'script, style, noscript, textarea, svg, .math, .MathJax, .MathJax_Display, '
                   + '.MathJax_Preview, .MJX_Assistive_MathML, mjx-container, math'
                   + (language === 'ja' ? ', pre, code, kbd, samp, .highlight' : '');
    const wrong = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const parent = node.parentElement;
        if (!parent || parent.closest(notProse)) continue;
        const lang = (parent.closest('[lang]') || document.documentElement).lang.split('-')[0];
        const text = node.textContent;
        if (language === 'en' ? japanese.test(text) && lang !== 'ja'
                              : english.test(text) && lang === 'ja') wrong.push(text.trim().slice(0, 60));
    }
    return {lang: document.documentElement.lang, wrong: wrong};
}"""


def test_every_page_and_every_passage_says_its_language(site, server, browser):
    problems, checked = [], {"en": 0, "ja": 0}
    for name in pages(site):
        language = "ja" if name.startswith("ja/") else "en"
        page, _ = helpers.open_page(browser, f"{server}/{name}")
        page.evaluate(helpers.WAIT_FOR_MATHJAX)
        result = page.evaluate(WRONG_LANGUAGE, language)
        page.close()
        checked[language] += 1
        if result["lang"] != language:
            problems.append(f"{name}: <html lang={result['lang']!r}>, not {language!r}")
        problems += [f"{name}: {text!r} is not marked lang={'en' if language == 'ja' else 'ja'}"
                     for text in result["wrong"]]
    assert checked["en"] == checked["ja"] > 20
    assert problems == [], "\n".join(problems)


def test_the_passages_of_the_other_language_are_marked(site):
    """The marks themselves, where the book has such passages."""
    glossary = (site / "book" / "glossary.html").read_text()
    assert '<span lang="ja">ソフトマックス関数</span>' in glossary
    assert re.search(r'<a [^>]*edition-switch[^>]*lang="ja"[^>]*>日本語</a>', glossary)      # the switch
    bibliography = (site / "ja" / "book" / "bibliography.html").read_text()
    assert '<span lang="en">Advances in Neural Information Processing Systems' in bibliography
    assert re.search(r'<a [^>]*edition-switch[^>]*lang="en"[^>]*>English</a>', bibliography)
    for edition in ("", "ja/"):   # the French of the running example, in both editions, and nothing else
        chapter = (site / f"{edition}book" / "07_masking_self_attention.html").read_text()
        assert chapter.count('<span lang="fr">la zone de contrôle international</span>') == 2, edition
        assert re.findall(r'<span lang="fr">[^<]*<span', chapter) == [], edition


# Every button of a chapter, by the name assistive technology computes (Playwright's ARIA snapshot).
BUTTON_NAME = re.compile(r'^\s*- button "([^"]*)"', re.M)


@pytest.mark.parametrize("edition", ["", "ja/"])
def test_controls_are_named_in_the_editions_language_by_their_visible_words(server, browser, edition):
    page, _ = helpers.open_page(browser, f"{server}/{edition}book/06_scaled_dot_product_attention.html")
    page.wait_for_load_state("load")
    names = BUTTON_NAME.findall(page.locator("body").aria_snapshot())
    hints = page.eval_on_selector_all("button.toggle-button", "buttons => buttons.map(b => b.dataset.toggleHint)")
    page.close()
    assert len(names) > 20 and hints, names
    # a show-answer button is named by the words it shows (WCAG 2.5.3), not "Toggle hidden content"
    assert "Toggle hidden content" not in names and set(hints) <= set(names), (hints, names)
    if edition == "ja/":   # no English word left on a control of the Japanese edition
        english = sorted({name for name in names if re.search(r"[A-Za-z]{3,}", name)})
        assert english == [], english


# --- a keyboard-only walk through a chapter (WCAG 2.1.1, 2.1.2, 2.4.3, 2.4.7) --------------

# Number every element a keyboard user must reach (visible, enabled, not tabindex=-1), and
# keep how it looks unfocused.
FOCUSABLE = """() => {
    const selector = 'a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex="-1"])';
    const look = e => { const s = getComputedStyle(e);
        return [s.outlineStyle, s.outlineWidth, s.outlineColor, s.boxShadow, s.opacity].join('|'); };
    const elements = [...document.querySelectorAll(selector)].filter(e =>
        !e.disabled && e.tabIndex >= 0 && e.checkVisibility({visibilityProperty: true})
        && e.getClientRects().length && !e.closest('[inert], [aria-hidden="true"]'));
    elements.forEach((e, i) => { e.dataset.walk = i; e.dataset.unfocused = look(e); });
    return elements.map(e => ({index: +e.dataset.walk, tag: e.tagName.toLowerCase(),
        text: (e.innerText || e.getAttribute('aria-label') || e.title || '').trim().slice(0, 40),
        main: !!e.closest('main article'), copy: e.matches('button.copybtn'),
        switch: e.matches('a.edition-switch'), skip: e.matches('.skip-link a, a.skip-link')}));
}"""

FOCUSED = """() => {
    const e = document.activeElement;
    if (!e || e === document.body || !e.dataset.walk) return e && e !== document.body ? {stray: e.outerHTML.slice(0, 120)} : null;
    e.getAnimations().forEach(a => a.finish());     // a fade-in (the copy button's) at its end
    const s = getComputedStyle(e);
    const look = [s.outlineStyle, s.outlineWidth, s.outlineColor, s.boxShadow, s.opacity].join('|');
    const outline = s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 1;
    const shadow = s.boxShadow !== 'none';
    return {index: +e.dataset.walk, visible: (outline || shadow) && look !== e.dataset.unfocused
                                             && parseFloat(s.opacity) > 0.5};
}"""


@pytest.mark.parametrize("name", ["book/06_scaled_dot_product_attention.html",
                                  "ja/book/06_scaled_dot_product_attention.html"])
def test_a_keyboard_reaches_everything_in_order_and_shows_where_it_is(server, browser, name):
    page, _ = helpers.open_page(browser, f"{server}/{name}")
    page.evaluate(helpers.WAIT_FOR_MATHJAX)
    expected = page.evaluate(FOCUSABLE)
    order, invisible, stray = [], [], []
    for _ in range(len(expected) + 20):
        page.keyboard.press("Tab")
        focused = page.evaluate(FOCUSED)
        if focused is None:                      # focus left the page after its last element
            break
        if "stray" in focused:
            stray.append(focused["stray"])
            continue
        if focused["index"] in order:            # came round again: the walk is over
            break
        order.append(focused["index"])
        if not focused["visible"]:
            invisible.append(expected[focused["index"]])
    page.close()
    by_index = {e["index"]: e for e in expected}
    assert order and by_index[order[0]]["skip"], "the skip link is not the first stop"
    assert any(e["copy"] for e in expected) and any(e["switch"] for e in expected)
    missed = [e for e in expected if e["index"] not in order]
    assert missed == [], f"never reached by Tab: {missed[:10]}"
    main = [i for i in order if by_index[i]["main"]]
    assert main == sorted(main), "the article's links and buttons are not reached in document order"
    assert invisible == [], f"focused but not visibly: {invisible[:10]}"
    assert stray == [], f"focus went to elements that were not focusable when the walk began: {stray[:5]}"
    print(f"{name}: {len(order)} stops by Tab, all visibly focused")


# --- reflow at 320 CSS px (WCAG 1.4.10) ---------------------------------------------------

# The page must not scroll sideways; a box that does (formulas, tables, code) is reachable by
# keyboard and named, so a keyboard user can scroll it and a screen reader says what it is.
REFLOW = """() => {
    const root = document.documentElement;
    const boxes = [...document.querySelectorAll('main *')].filter(e => {
        const s = getComputedStyle(e);
        return /(auto|scroll)/.test(s.overflowX) && e.scrollWidth > e.clientWidth + 1
               && e.checkVisibility();
    });
    const unreachable = boxes.filter(e => !(e.tabIndex >= 0 && e.matches('[tabindex], a, button, input, select, textarea'))
        || !(e.getAttribute('role') === 'region' || e.hasAttribute('aria-label') || e.hasAttribute('aria-labelledby')));
    return {page: root.scrollWidth - root.clientWidth, boxes: boxes.length,
            unreachable: unreachable.map(e => e.tagName.toLowerCase() + '.' + [...e.classList].join('.')
                                            + ' ' + (e.id || '') + ' ' + e.outerHTML.slice(0, 80))};
}"""


def test_every_page_reflows_at_320_css_px(site, server, browser):
    problems, scrolling = [], 0
    names = pages(site) + SEARCHES
    for name in names:
        page = open_page_as_shown(browser, server, name)
        page.set_viewport_size({"width": 320, "height": 640})
        page.wait_for_timeout(800)     # the theme sets the tab stops of what scrolls 300 ms after a resize
        result = page.evaluate(REFLOW)
        page.close()
        scrolling += result["boxes"]
        if result["page"] > 1:
            problems.append(f"{name}: the page scrolls sideways by {result['page']} px")
        problems += [f"{name}: scrolls but cannot be reached or is unnamed: {e}" for e in result["unreachable"]]
    assert problems == [], "\n".join(problems)
    assert scrolling > 0        # there are wide formulas, tables or code at 320 px
    print(f"{len(names)} pages at 320 px: {scrolling} boxes scroll inside themselves")


# --- contrast of code, outputs and error text (WCAG 1.4.3) --------------------------------

CODE_AND_OUTPUTS = {"code": "div.cell_input pre, div.highlight pre", "output": "div.cell_output pre",
                    "error text": "div.output.stderr pre, div.output.traceback pre, .output_stderr pre"}

# axe's color-contrast on the code, outputs and error text only, then WCAG's formula for
# what axe leaves 'incomplete' (it cannot tell the background when boxes overlap): the
# text's colour against the first opaque background of its ancestors.
CONTRAST = """async (selectors) => {
    const counts = {};
    const luminance = c => { const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map(v => {
        v = v / 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
    const background = e => { for (; e; e = e.parentElement) { const c = getComputedStyle(e).backgroundColor;
        const alpha = (c.match(/[\\d.]+/g) || [])[3]; if (c !== 'transparent' && (alpha === undefined || +alpha === 1)) return c; }
        return 'rgb(255, 255, 255)'; };
    const low = [];
    for (const [kind, selector] of Object.entries(selectors)) {
        if (!document.querySelector(selector)) { counts[kind] = {elements: 0}; continue; }
        const r = await axe.run({include: [[selector]]}, {runOnly: ['color-contrast']});
        const nodes = list => list.flatMap(rule => rule.nodes);
        const incomplete = nodes(r.incomplete);
        for (const n of incomplete) {
            const e = document.querySelector(n.target[0]);
            const s = getComputedStyle(e);
            const [l1, l2] = [luminance(s.color), luminance(background(e))].sort((a, b) => b - a);
            const ratio = (l1 + 0.05) / (l2 + 0.05);
            const large = parseFloat(s.fontSize) >= 24 || (parseFloat(s.fontSize) >= 18.66 && +s.fontWeight >= 700);
            if (ratio < (large ? 3 : 4.5)) low.push(`${kind} ${n.target[0]}: ${ratio.toFixed(2)}`);
        }
        counts[kind] = {elements: document.querySelectorAll(selector).length, passes: nodes(r.passes).length,
                        violations: nodes(r.violations).map(n => n.target.join(' ')), incomplete: incomplete.length};
    }
    return {counts: counts, low: low};
}"""


def test_code_outputs_and_error_text_have_enough_contrast_in_both_themes(server, browser):
    problems, covered = [], {}
    for name in [f"{edition}{chapter}.html" for edition in ("", "ja/") for chapter in CHAPTERS]:
        page, _ = helpers.open_page(browser, f"{server}/{name}")
        page.add_script_tag(path=str(AXE))
        for theme in ("light", "dark"):
            set_theme(page, theme)
            result = page.evaluate(CONTRAST, CODE_AND_OUTPUTS)
            for kind, count in result["counts"].items():
                total = covered.setdefault(kind, {"elements": 0, "passes": 0, "incomplete": 0})
                for key in total:
                    total[key] += count.get(key, 0)
                problems += [f"{name} [{theme}] {kind}: {target}" for target in count.get("violations", [])]
            problems += [f"{name} [{theme}] below 4.5:1: {low}" for low in result["low"]]
        page.close()
    print("\ncolour contrast checked (both themes, both editions):", json.dumps(covered))
    assert covered["code"]["passes"] > 1000 and covered["output"]["passes"] > 100, covered
    assert problems == [], "\n".join(problems)


# --- the grader's pages: nbgrader's feedback and Formgrader's submission page ---------------

@pytest.mark.nbgrader
def test_axe_finds_no_violation_on_the_feedback_page(graded_class, browser):  # noqa: F811 (the fixture)
    feedback = graded_class / "autograder" / "feedback"
    with helpers.serve(feedback) as url:
        page, _ = helpers.open_page(browser, f"{url}/{test_class_grading.CAROL}/01_softmax/softmax.html")
        page.evaluate(helpers.WAIT_FOR_MATHJAX)
        assert "the `axis` argument is ignored" in page.inner_text("body")
        result = axe(page)
        page.close()
    print(f"\nfeedback page: {rule_count(result)}")
    assert result["violations"] == [], "\n".join(readable("feedback", result["violations"]))


# Formgrader's submission page is nbgrader's (formgrade/index.html.j2, Bootstrap 3): the course's
# template replaces its MathJax macro, and with it brings the page's fixes (language, contrast,
# focusable scrolling boxes, its navbar's list): autograder/templates/formgrade/mathjax.html.j2.
@pytest.mark.nbgrader
def test_axe_finds_no_violation_on_formgraders_submission_page(graded, browser):  # noqa: F811 (the fixture)
    from nbgrader.api import Gradebook
    with Gradebook(helpers.gradebook_url(graded)) as gradebook:
        submission_id = gradebook.find_submission_notebook("softmax", "01_softmax", "carol").id
    with test_formgrader.jupyter_server(graded) as url:
        page, _ = helpers.open_page(browser, f"{url}/formgrader/submissions/{submission_id}")
        page.evaluate(helpers.WAIT_FOR_MATHJAX)
        assert "formgrade.js" in page.content()
        result = axe(page)
        page.close()
    print(f"\nformgrader submission page: {rule_count(result)}")
    assert result["violations"] == [], "\n".join(readable("formgrader", result["violations"]))
