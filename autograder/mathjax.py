"""A local copy of MathJax 3, for pages that must render math with no network, and its settings.

The one piece of build tooling shared by the book and the grader: MathJax 3.2.2 (its full es5
build, with the speech rule engine and its locale files) ships inside the pinned
``sphinx-mathjax-offline`` wheel. Three consumers load it with the same settings (``SETTINGS``):

* the book: book/_ext/offline.py copies it into ``_build/html/_static/mathjax`` and gives Sphinx
  the settings as ``mathjax3_config``;
* nbgrader's feedback pages: autograder/nbgrader_config.py copies it into
  ``autograder/feedback/mathjax``, with the settings for notebooks as ``settings.js``
  (templates/feedback/mathjax.html.j2 loads both);
* Formgrader: the Jupyter server extension autograder/jupyter_mathjax.py serves the wheel's files
  and the same ``settings.js`` (templates/formgrade/mathjax.html.j2).

Every formula carries assistive MathML (what a screen reader reads) and its speech text (from
the speech rule engine, whose rules are loaded from the copy's sre/mathmaps), and can be explored
with the keyboard.  The speech rule engine of 3.2.2 has no Japanese locale, so both editions
speak the mathematics in English (see CONTRIBUTING.md).
"""
import copy
import json
import shutil
from importlib.metadata import distribution
from pathlib import Path

# The wheel installs a folder whose name is not a Python package name (it has hyphens).
MATHJAX_DIR = Path(distribution("sphinx-mathjax-offline").locate_file("sphinx-mathjax-offline/static/mathjax"))
# TeX input, CommonHTML output, the menu, assistive MathML, the speech rule engine, semantic
# enrichment and the explorer, in one file; everything else it needs is loaded from beside it.
COMPONENT = "tex-chtml-full-speech.js"
# The page of a notebook (feedback, Formgrader) loads this, written beside the copy, first.
SETTINGS_FILE = "settings.js"
# Only what the component loads (and the SVG output its menu offers): not the wheel's other
# components (latest.js asks api.github.com for the newest MathJax; node-main.js is for Node).
_IGNORE = shutil.ignore_patterns("latest.js", "node-main.js", "core.js", "loader.js", "startup.js",
                                 "tex-chtml.js", "tex-chtml-full.js", "tex-svg*.js", "tex-mml-*.js", "mml-*.js")
# The speech rule engine's built-in default addresses: its locale files (which MathJax loads from the
# copy's sre/mathmaps instead) and a fallback for old Internet Explorer.  They are strings in its code,
# never requested here: the browser tests see every request a page makes (tests/test_math_speech.py).
SRE_DEFAULT_ADDRESSES = ("https://cdn.jsdelivr.net/npm/sre-mathmaps-ie@",
                         "https://cdn.jsdelivr.net/npm/speech-rule-engine@",
                         "https://cdn.jsdelivr.net/npm/wicked-good-xpath@")

SETTINGS = {
    # The delimiters Sphinx writes; a literal $ in the book's prose stays a dollar.
    "tex": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]], "processEscapes": True},
    "options": {
        "ignoreHtmlClass": "tex2jax_ignore|highlight|pre",   # code is never typeset
        # ...except math inside those; the classes myst-parser sets (it warns if they differ).
        "processHtmlClass": "tex2jax_process|mathjax_process|math|output_area",
        "enableAssistiveMml": True,     # hidden MathML beside each formula: what screen readers read
        "enableEnrichment": True,
        "enrichSpeech": "shallow",      # each formula's speech text, as its aria-label
        "sre": {"locale": "en", "domain": "clearspeak"},   # 3.2.2 has no Japanese locale
        "menuOptions": {"settings": {"assistiveMml": True, "explorer": True, "inTabOrder": True}},
        "a11y": {"speech": True, "subtitles": False, "keyMagnifier": False},
    },
    # CommonHTML's fonts are left at their default, output/chtml/fonts/woff-v2 beside the component.
    # It scales formulas to the text's x-height (about 127% in the book's font); 95% of that keeps the
    # widest display formula (chapter 7's) inside the text column at 1280 px (tests/test_browser.py).
    "chtml": {"scale": 0.95},
}


# The speech rule engine of 3.2.2 reads some of the book's notation wrongly (tests/test_math_speech.py
# lists it).  A formula's speech text, its accessible name, which a screen reader reads, is corrected
# after typesetting: (JavaScript regular expression, replacement).  The keyboard explorer still says
# the engine's own words.
SPEECH_CORRECTIONS = [
    (r"(?:raised )?to the (?:down tack power|exponent down tack end exponent)", "transpose"),   # K^\top
    (r"normal infinity", "infinity"),                                   # -\infty: "negative normal infinity"
    (r" divides ", " given "),                                          # p(y \mid x): the book's \mid
    (r"a member of r-", "a member of the real numbers to the power "),  # x \in \mathbb{R}^m: "r-m"
    (r"^1 lines Line 1: Line 1: ", ""),                                  # a one-line \begin{split}
    # \operatorname{softmax}(x)_i and the like: a function applied, not a product
    (r"\b(softmax|Softmax|LN|LayerNorm|Var|sigma|O|Theta|L|row|col) times open paren", "$1 of open paren"),
]
# MathJax's component is deferred: it has run when the document is parsed, and its promise, which
# a reader's tools wait for too, is then given this correction first.
SPEECH_CORRECTIONS_SCRIPT = """document.addEventListener("DOMContentLoaded", () => {
  if (!window.MathJax || !MathJax.startup) return;
  const corrections = %s.map(([find, replace]) => [new RegExp(find, "g"), replace]);
  MathJax.startup.promise.then(() => document.querySelectorAll("mjx-container[aria-label]").forEach(formula => {
    const spoken = corrections.reduce((text, [find, replace]) => text.replace(find, replace),
                                      formula.getAttribute("aria-label"));
    formula.setAttribute("aria-label", spoken);
  }));
});
""" % json.dumps(SPEECH_CORRECTIONS)


def notebook_settings():
    """SETTINGS for a rendered notebook, whose markdown keeps Jupyter's $...$ and $$...$$."""
    settings = copy.deepcopy(SETTINGS)
    settings["tex"]["inlineMath"].insert(0, ["$", "$"])
    settings["tex"]["displayMath"].insert(0, ["$$", "$$"])
    return settings


def settings_script(settings):
    """The script that gives MathJax ``settings``; it must run before the component loads."""
    return f"window.MathJax = {json.dumps(settings, indent=1)};\n" + SPEECH_CORRECTIONS_SCRIPT


def copy_mathjax(target):
    """Copy MathJax, with the notebook settings as ``settings.js``, into the folder ``target``
    (created if needed).
    """
    shutil.copytree(MATHJAX_DIR, target, ignore=_IGNORE, dirs_exist_ok=True)
    (Path(target) / SETTINGS_FILE).write_text(settings_script(notebook_settings()))
