"""Mathematics a screen reader can speak, offline: MathJax 3 with assistive MathML, the speech
rule engine's speech text and the keyboard explorer (autograder/mathjax.py's settings).

On chapter pages of the built book: every formula has an accessible name and hidden MathML;
real formulas of the chapters are spoken as what they are; a formula reached with Tab can be
explored with the arrow keys (the live region speaks a sub-expression); no request leaves the
local server (MathJax, its a11y components and fonts come from the site's copy).  The feedback
page and Formgrader are checked with the same helper (test_class_grading.py, test_formgrader.py).
"""
import re

import pytest

import helpers

pytestmark = [pytest.mark.book, pytest.mark.browser]


@pytest.fixture(scope="module")
def server(site):
    with helpers.serve(site) as url:
        yield url


def _open(browser, url):
    page, problems = helpers.open_page(browser, url)
    problems += helpers.math_problems(page)
    return page, problems


@pytest.mark.parametrize("chapter", ["book/06_scaled_dot_product_attention.html", "ja/book/01_softmax.html"])
def test_every_formula_has_speech_and_assistive_mathml(server, browser, chapter):
    page, problems = _open(browser, f"{server}/{chapter}")
    formulas = page.evaluate(helpers.SPOKEN)
    problems += helpers.speech_problems(page)
    # what the speech rule engine gets wrong in the book's notation is corrected (autograder/mathjax.py)
    wrong = [f for f in formulas if re.search(r"down tack| divides |normal infinity|member of r-|softmax times",
                                              f.get("name", ""))]
    assert wrong == [], wrong[:3]
    # the speech is English in both editions: a formula's language is English, whatever the page's
    languages = page.evaluate("() => [...document.querySelectorAll('mjx-container')].map(f => f.closest('[lang]').lang)")
    page.close()
    assert len(formulas) >= 5 and problems == []
    assert set(languages) == {"en"}, sorted(set(languages))


# (chapter, a piece of the formula's TeX, words its speech text must contain): real formulas.
SAMPLES = [
    ("06_scaled_dot_product_attention", r"\sqrt{d_k}", ["the square root of d sub k"]),
    ("06_scaled_dot_product_attention", r"\operatorname{Attention}",
     ["Attention of open paren Q comma K comma V close paren equals softmax of open paren",
      "the fraction with numerator Q K transpose and denominator the square root of d sub k"]),
    ("02_seq2seq", r"\prod_{i=1}^{T_y}", ["p of open paren y sub i given y sub 1"]),
    ("01_softmax", r"\mathbb{R}^m", ["is a member of the real numbers to the power m"]),
    ("01_softmax", r"\sum_{j=1}^{m}",
     ["softmax", "the sum from j equals 1 to m of the exp of open paren x sub j close paren"]),
    ("03_additive_attention", r"\alpha_{ij} =",
     ["alpha sub i j equals the fraction with numerator the exp of open paren e sub i j close paren",
      "the sum from k equals 1 to T sub x"]),
    ("08_multi_head_attention", r"\sum_{i=1}^{h}", ["Concat", "the sum from i equals 1 to h of head sub i"]),
]


@pytest.mark.parametrize("chapter, tex, words", SAMPLES, ids=[f"{c}:{t}" for c, t, _ in SAMPLES])
def test_formulas_are_spoken_as_what_they_are(server, browser, chapter, tex, words):
    page, problems = _open(browser, f"{server}/book/{chapter}.html")
    formulas = [f for f in page.evaluate(helpers.SPOKEN) if tex in f["tex"]]
    page.close()
    assert problems == [] and formulas, f"no formula with {tex!r} typeset"
    name = formulas[0]["name"]
    assert all(w in name for w in words), name


FOCUSED = """() => { const c = document.activeElement && document.activeElement.closest('mjx-container');
                     return c ? c.getAttribute('aria-label') : null; }"""
SPOKEN_NOW = "() => [...document.querySelectorAll('[aria-live]')].map(e => e.textContent.trim()).filter(t => t).join(' ')"


def corrected(spoken):
    """The explorer speaks the speech engine's own words; a formula's name has them corrected."""
    from autograder.mathjax import SPEECH_CORRECTIONS
    for find, replace in SPEECH_CORRECTIONS:
        spoken = re.sub(find, replace.replace("$1", r"\1"), spoken)
    return spoken


def test_a_formula_is_explored_with_the_keyboard(server, browser):
    page, problems = _open(browser, f"{server}/book/06_scaled_dot_product_attention.html")
    whole = None
    for _ in range(300):                               # Tab through the page to the first formula
        page.keyboard.press("Tab")
        whole = page.evaluate(FOCUSED)
        if whole:
            break
    assert whole == "the square root of d sub k"
    for _ in range(300):                               # ... and on to the attention formula
        page.keyboard.press("Tab")
        whole = page.evaluate(FOCUSED)
        if whole and whole.startswith("Attention"):
            break
    page.keyboard.press("Enter")                       # start exploring: the whole formula is spoken
    assert corrected(page.evaluate(SPOKEN_NOW)) == whole
    page.keyboard.press("ArrowDown")                   # into it: the equation without its full stop
    equation = page.evaluate(SPOKEN_NOW)
    page.keyboard.press("ArrowDown")                   # into the equation: its left-hand side
    left = page.evaluate(SPOKEN_NOW)
    page.keyboard.press("ArrowRight")                  # the next part: the equals sign
    after = page.evaluate(SPOKEN_NOW)
    page.close()
    assert equation != whole and corrected(equation) in whole and equation.endswith("close paren V")
    assert left == "Attention of open paren Q comma K comma V close paren", left
    assert after == "equals", after
    assert problems == []


def test_no_request_leaves_the_local_server(server, browser):
    page = browser.new_page()
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{server}/book/06_scaled_dot_product_attention.html", wait_until="networkidle")
    assert page.evaluate(helpers.WAIT_FOR_MATHJAX)
    page.close()
    assert [u for u in requests if not u.startswith(server) and not u.startswith("data:")] == []
    # The speech rules (English, built into the component; other locales would load from
    # sre/mathmaps) and the explorer come from the site's copy.
    assert f"{server}/_static/mathjax/a11y/semantic-enrich.js" in requests
    assert f"{server}/_static/mathjax/a11y/explorer.js" in requests
    assert any("/_static/mathjax/output/chtml/fonts/woff-v2/" in u for u in requests)
