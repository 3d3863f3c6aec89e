"""What the book's pages need for WCAG 2.2 AA beyond the theme (tests/test_accessibility.py).

* A diagram (sphinx.ext.graphviz, SVG) is an ``<object>``, which assistive technology
  names only from ARIA: it gets ``role="img"`` and its alt text as ``aria-label``, and
  leaves the tab order (it has nothing to operate).
* The language of parts (WCAG 3.1.2): after the build, every page is passed over once.
  In the English edition a run of Japanese text (the glossary's terms, 「用語集」 in the
  navigation) is wrapped in ``<span lang="ja">``; in the Japanese edition a run of three
  or more English words outside code and formulas (untranslated theme labels, the titles
  of cited papers, English quotations) in ``<span lang="en">``, so that a screen reader
  switches its voice.  Text already inside an element with the right ``lang`` is left.
  The same pass makes the entries of a bibliography list items (``role="listitem"``).
* ``accessibility.css`` (reflow at 320 px, visible focus) and ``accessibility.js`` (a box that
  scrolls sideways, which the theme makes a keyboard stop, is a named region).
"""
import html
import re
from pathlib import Path

STATIC = Path(__file__).with_name("static")

# Hiragana, Katakana (and its phonetic extensions), CJK ideographs, CJK punctuation and
# full-width forms: the characters that make a passage Japanese.
JAPANESE = r"\u3000-\u303f\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
JAPANESE_RUN = re.compile(rf"[{JAPANESE}](?:[{JAPANESE}\s]*[{JAPANESE}])?")
HAS_JAPANESE = re.compile(rf"[{JAPANESE}]")
# Three or more English words in a row (with the punctuation between them): shorter Latin
# runs in Japanese prose are names and loanwords ("Transformer の"), read in Japanese.
LATIN = "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f"
ENGLISH_WORD = rf"[0-9]*[{LATIN}][{LATIN}0-9'’\-]*"
ENGLISH_RUN = re.compile(rf"{ENGLISH_WORD}(?:(?:[ \u00a0\t\n,:;.!?()\-–—/'’\"“”0-9]|&\w+;|&#\d+;)+{ENGLISH_WORD}){{2,}}[.!?)]?")

# Elements whose text is never wrapped: not prose (scripts, TeX sources of formulas, code
# in the Japanese edition) or where a <span> cannot go.
NEVER = {"script", "style", "textarea", "title", "svg", "math", "option"}
NOT_PROSE = {"pre", "code", "kbd", "samp"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
TOKEN = re.compile(r"(<!--.*?-->|<script\b.*?</script\s*>|<style\b.*?</style\s*>|<[^>]*>)", re.S | re.I)
TAG = re.compile(r"<\s*(/?)\s*([A-Za-z][\w:-]*)([^>]*?)(/?)\s*>", re.S)
LANG_ATTRIBUTE = re.compile(r"""\blang\s*=\s*["']?([\w-]+)""", re.I)
CLASS_ATTRIBUTE = re.compile(r"""\bclass\s*=\s*["']([^"']*)""", re.I)


def mark_language_of_parts(page, language):
    """The HTML `page` of edition `language` with its passages in the other language
    wrapped in <span lang=...>."""
    other, pattern = ("ja", JAPANESE_RUN) if language == "en" else ("en", ENGLISH_RUN)
    body = re.search(r"<body\b", page, re.I)
    if body is None:
        return page
    out = [page[:body.start()]]
    stack = []   # (name, lang or None, skip?) of the open elements
    for token in TOKEN.split(page[body.start():]):
        if not token:
            continue
        tag = TAG.fullmatch(token)
        if token.startswith("<") and tag:
            closing, name, attributes, self_closing = tag.group(1), tag.group(2).lower(), tag.group(3), tag.group(4)
            if closing:
                while stack and stack.pop()[0] != name:
                    pass
            elif not self_closing and name not in VOID:
                lang = LANG_ATTRIBUTE.search(attributes)
                classes = (CLASS_ATTRIBUTE.search(attributes) or [None, ""])[1].split()
                skip = (name in NEVER or "math" in classes
                        or (language != "en" and (name in NOT_PROSE or "highlight" in classes)))
                stack.append((name, lang.group(1).lower() if lang else None, skip))
            out.append(token)
            continue
        if token.startswith("<") or any(skip for _, _, skip in stack):
            out.append(token)
            continue
        current = next((lang for _, lang, _ in reversed(stack) if lang), language)
        if current.split("-")[0] != language:   # marked already: the other edition's, or a third language
            out.append(token)
            continue
        text = html.unescape(token) if "&" in token else token
        if language == "en" and not HAS_JAPANESE.search(text):
            out.append(token)
            continue
        out.append(pattern.sub(lambda m: f'<span lang="{other}">{m.group(0)}</span>', token))
    return "".join(out)


# Sphinx writes a bibliography as role="list" of role="doc-biblioentry", a role DPUB-ARIA 1.1
# deprecates and that is no list item: assistive technology finds a list with no items.
BIBLIOGRAPHY_ENTRY = ('role="doc-biblioentry"', 'role="listitem"')


# The theme's and Sphinx's labels that their own catalogs leave in English, as the Japanese
# edition names them (a screen reader reads them; a tooltip shows them).  The copy and
# show-answer buttons, made by scripts, are named in accessibility.js.
INTERFACE = {"ja": {
    "Link to this heading": "この見出しへのリンク", "Link to this term": "この用語へのリンク",
    "Link to this image": "この画像へのリンク", "Link to this table": "この表へのリンク",
    "Link to this code": "このコードへのリンク", "Link to this equation": "この数式へのリンク",
    "Toggle primary sidebar": "ナビゲーションを開閉", "Toggle secondary sidebar": "ページ内の目次を開閉",
    "Color mode": "配色", "System Settings": "システムの設定", "Light": "ライト", "Dark": "ダーク",
    "Main": "メイン", "Page": "ページ", "Launch interactive content": "対話的に実行する",
    "Launch on Binder": "Binder で開く", "Launch on Colab": "Colab で開く",
    "Launch on JupyterHub": "JupyterHub で開く", "Fullscreen mode": "全画面表示",
    "Binder logo": "Binder のロゴ", "Colab logo": "Colab のロゴ", "JupyterHub logo": "JupyterHub のロゴ",
}}
LABEL_ATTRIBUTE = re.compile(r'\b(aria-label|title|data-bs-title|alt|placeholder)="([^"]*)"')


def translate_interface(page, language):
    """The page with the interface labels of INTERFACE[language] in that language."""
    labels = INTERFACE.get(language)
    if not labels:
        return page
    return LABEL_ATTRIBUTE.sub(lambda m: f'{m.group(1)}="{html.escape(labels[m.group(2)]) if m.group(2) in labels else m.group(2)}"',
                               page)


def _mark_pages(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    from editions import language_of
    language = language_of(app.config)
    outdir = Path(app.outdir)
    for docname in app.env.found_docs | {"genindex", "search"}:
        path = outdir / f"{docname}.html"
        if path.exists():
            page = path.read_text(encoding="utf-8")
            marked = translate_interface(mark_language_of_parts(page, language), language)
            marked = marked.replace(*BIBLIOGRAPHY_ENTRY)
            if marked != page:
                path.write_text(marked, encoding="utf-8")


# --- diagrams ---------------------------------------------------------------

def _visit_graphviz(self, node):
    """Sphinx's HTML visitor of a diagram, with the <object> named by its alt text."""
    from sphinx.ext.graphviz import html_visit_graphviz
    start = len(self.body)
    try:
        html_visit_graphviz(self, node)
    finally:
        alt = self.encode(node.get("alt", "")).strip()
        for i in range(start, len(self.body)):
            if self.body[i].startswith("<object ") and alt:
                # Chromium makes an <object> a tab stop; a diagram has nothing to operate.
                self.body[i] = self.body[i].replace("<object ", f'<object role="img" aria-label="{alt}" tabindex="-1" ', 1)


# --- a passage in a third language -------------------------------------------

def french(name, rawtext, text, lineno, inliner, options=None, content=None):
    """``{lang-fr}`la zone de contrôle international```: a French passage, marked so in both
    editions (the translation keeps it, as it keeps the quotation)."""
    from docutils import nodes
    return [nodes.raw(rawtext, f'<span lang="fr">{html.escape(text)}</span>', format="html")], []


def _add_static(app, config):
    if str(STATIC) not in config.html_static_path:
        config.html_static_path = [*config.html_static_path, str(STATIC)]


def setup(app):
    from sphinx.ext.graphviz import graphviz, latex_visit_graphviz, man_visit_graphviz, texinfo_visit_graphviz
    from sphinx.ext.graphviz import text_visit_graphviz
    app.setup_extension("sphinx.ext.graphviz")
    app.add_node(graphviz, override=True, html=(_visit_graphviz, None), latex=(latex_visit_graphviz, None),
                 texinfo=(texinfo_visit_graphviz, None), text=(text_visit_graphviz, None),
                 man=(man_visit_graphviz, None))
    app.add_role("lang-fr", french)
    app.connect("build-finished", _mark_pages)
    app.connect("config-inited", _add_static)
    app.add_css_file("accessibility.css")
    app.add_js_file("accessibility.js")
    return {"parallel_read_safe": True, "parallel_write_safe": True}

