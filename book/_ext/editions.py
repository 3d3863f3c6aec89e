"""The book's editions: English in ``_build/html``, Japanese in ``_build/html/ja``.

One source, the chapters' notebooks and pages; the Japanese text lives in
gettext catalogs, ``locales/ja/LC_MESSAGES/book/<page>.po`` (one per page,
kept with sphinx-intl, see CONTRIBUTING.md).  Sphinx's own i18n transform
translates every paragraph, heading, caption, table cell and admonition.
MyST-NB parses a translated message of a notebook as Markdown (it checks for
Sphinx's ``<translated>`` source suffix, the fix of its issue #587), so no
copy of a notebook is ever written.

As a Sphinx extension this module adds what Sphinx's i18n does not do:

* the alt text of figures (notebook outputs and diagrams), an attribute and
  not a text node, is extracted into the catalogs and translated, and so are
  the table of contents' part captions (sphinx-external-toc adds them after
  Sphinx has translated the page);
* the words inside figures: a notebook's plot is drawn in both languages when
  it runs (``book/attention/plotting.py`` stores the English strings and the
  Japanese PNG in the output's metadata); its strings become messages of the
  page and the Japanese edition shows the Japanese PNG, a warning (an error
  under ``-W``) when the PNG was drawn with other translations than the
  catalog's (run the chapter again).  A diagram's labels (Graphviz) are
  messages too, translated in its source before Graphviz lays it out;
* every page gets a link to the same page in the other edition;
* the Japanese edition gets its title, search language, CJK fonts, and
  citations in Japanese form (「Bahdanau ら [2015]」, 「Luong と Manning」).

As a command it builds the Japanese edition with Jupyter Book's own
configuration (``_config.yml``, ``_toc.yml``) plus ``language = "ja"``:
Jupyter Book's CLI has no ``-D`` option (its issue #1791), so the command calls
the function the CLI calls, ``jupyter_book.sphinx.build_sphinx``::

    python book/_ext/editions.py ja [--path-output DIR]   # -> DIR/_build/html/ja

``--builder singlehtml`` builds the edition as one page instead, into
``DIR/_build/singlehtml/ja``: the page ``book/_ext/pdf.py`` prints as a PDF.
"""
import base64
import hashlib
import html
import json
import re
import sys
from pathlib import Path

from docutils import nodes
from sphinx.transforms import SphinxTransform

ROOT = Path(__file__).resolve().parents[2]
STATIC = Path(__file__).with_name("static")
TEMPLATES = Path(__file__).with_name("templates")

# What changes between editions besides the translated text.
EDITIONS = {
    "en": {"label": "English", "subdir": "", "pdf_title": "This book as a PDF",
           "footer": "Text and figures: {cc_by}; code: MIT ({license})."},
    "ja": {"label": "日本語", "subdir": "ja", "pdf_title": "この本の PDF 版",
           "config": {"language": "ja",
                      "html_title": "アテンション：ソフトマックスから Transformer まで",
                      "html_search_language": "ja",
                      "bibtex_reference_style": "author_year_ja",
                      # myst-nb's toggle of a hidden cell (the book hides inputs only)
                      "nb_code_prompt_show": "コードを表示",
                      "nb_code_prompt_hide": "コードを隠す"},
           "search_bar_text": "この本を検索…",
           "footer": "本文と図：{cc_by}、コード：MIT（{license}）。"},
}
TRANSLATED = [code for code in EDITIONS if EDITIONS[code]["subdir"]]


def language_of(config):
    return config.language if config.language in EDITIONS else "en"


# --- alt text -----------------------------------------------------------

def _has_alt(node):
    return isinstance(node, nodes.Element) and bool(node.get("alt"))


def _extract_alt_texts(app, doctree, docname):
    """gettext builder: the alt text of each figure becomes a message of its page."""
    if app.builder.name != "gettext":
        return
    from sphinx.builders.gettext import MsgOrigin
    from sphinx.util.i18n import docname_to_domain
    catalog = app.builder.catalogs[docname_to_domain(docname, app.config.gettext_compact)]
    for node in doctree.findall(_has_alt):
        catalog.add(node["alt"], MsgOrigin(node.source or docname, node.line or 0))
    for message in figure_messages(app.env, docname, doctree):
        catalog.add(message, MsgOrigin(docname, 0))


# --- the words inside figures ---------------------------------------------

FIGURE_WORD = re.compile(r"[A-Za-z]{2,}")        # a string worth translating has one
# A Graphviz label: a quoted string (lines split at \n, \l, \r), or the text runs
# between the block tags of an HTML-like label <...> (see html_label).
DOT_QUOTED_LABEL = re.compile(r'((?:x|head|tail)?label\s*=\s*")((?:[^"\\]|\\.)*)(")')
DOT_LINE_BREAK = re.compile(r"(\\[nlr])")
DOT_HTML_LABEL = re.compile(r"(?:x|head|tail)?label\s*=\s*<")
HTML_TAG = re.compile(r"(<[^<>]*>)")
HTML_BLOCK_TAG = re.compile(r"(<\s*/?\s*(?:BR|TD|TR|TABLE)\b[^<>]*>)", re.I)
ITALIC = re.compile(r"<I>.*?</I>", re.I | re.S)
DOT_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/|^\s*#[^\n]*", re.S | re.M)


def _worth_translating(text):
    """A string with a word to translate: outside maths ($...$), markup and entities."""
    plain = re.sub(r"&\w+;|<[^<>]*>", " ", re.sub(r"\$[^$]*\$", " ", text))
    return bool(FIGURE_WORD.search(plain))



def _without_comments(code):
    """`code` with its comments blanked out, every other character in place."""
    return DOT_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), code)


def _html_label_spans(code):
    """(start, end) of the inside of each HTML-like label <...> of a Graphviz source
    (comments blanked), in order and never overlapping."""
    position = 0
    while match := DOT_HTML_LABEL.search(code, position):
        depth, i = 1, match.end()
        while i < len(code) and depth:
            depth += {"<": 1, ">": -1}.get(code[i], 0)
            i += 1
        yield match.end(), i - 1
        position = i


def _label_lines(code, translate):
    """Pass every label line of `code` through `translate`; return the new code and the
    lines seen (the ones worth translating)."""
    seen = []

    def line(text):
        core = text.strip()
        if not _worth_translating(core):
            return text
        seen.append(core)
        start = text.index(core)
        return text[:start] + translate(core) + text[start + len(core):]

    def quoted(match):
        parts = DOT_LINE_BREAK.split(match.group(2))
        inner = "".join(p if DOT_LINE_BREAK.fullmatch(p) else
                        line(p.replace('\\"', '"')).replace('"', '\\"') for p in parts)
        return match.group(1) + inner + match.group(3)

    def html_label(inner):
        # A line of an HTML-like label runs between block tags (<BR/>, table cells); its
        # inline tags (<SUB>, <I>, <FONT> ...) stay inside the message.  Text in <I> quotes
        # an example's words, as in the prose: a line that is only that stays.
        return "".join(part if HTML_BLOCK_TAG.fullmatch(part)
                       or not _worth_translating(ITALIC.sub(" ", part))
                       else line(part) for part in HTML_BLOCK_TAG.split(inner))

    # Labels are found in the source with its comments blanked and rewritten in the
    # source itself, so a comment is never read as a label and stays as it was.
    blank = _without_comments(code)
    spans = [(start, end, html_label) for start, end in _html_label_spans(blank)]
    spans += [(m.start(), m.end(), lambda text: quoted(DOT_QUOTED_LABEL.fullmatch(text)))
              for m in DOT_QUOTED_LABEL.finditer(blank)
              if not any(start <= m.start() < end for start, end, _ in spans)]
    edits = [(start, end, rewrite(code[start:end])) for start, end, rewrite in sorted(spans, key=lambda e: e[0])]
    for start, end, new in reversed(edits):
        code = code[:start] + new + code[end:]
    return code, seen


def dot_label_lines(code):
    """The label lines of a Graphviz source that hold words, in order."""
    return _label_lines(code, lambda text: text)[1]


def translate_dot(code, translate):
    """The Graphviz source `code` with every label line passed through `translate`."""
    return _label_lines(code, translate)[0]


def notebook_figures(path):
    """[(sha256 of the English PNG, the figure's metadata from plotting.py)] of a notebook."""
    if Path(path).suffix != ".ipynb":
        return []
    notebook = json.loads(Path(path).read_text(encoding="utf-8"))
    found = []
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            book = output.get("metadata", {}).get("image/png", {}).get("attention_book")
            png = output.get("data", {}).get("image/png")
            if book and png:
                digest = hashlib.sha256(base64.b64decode(png)).hexdigest()
                found.append((digest, book))
    return found


def figure_messages(env, docname, doctree):
    """The strings inside a page's figures: its plots' and its diagrams'."""
    from sphinx.ext.graphviz import graphviz
    # a plot's strings are the ones plotting.reader_texts kept: each holds a word
    messages = [text for _, book in notebook_figures(env.doc2path(docname)) for text in book["text"]]
    for node in doctree.findall(graphviz):
        messages += dot_label_lines(node["code"])
    return messages


class TranslateAttributes(SphinxTransform):
    """Translate what Sphinx's Locale transform (priority 20) does not reach: each figure's
    alt text, and the part captions of the table of contents, which sphinx-external-toc
    inserts at priority 100.  Both are looked up in the page's own catalog."""

    default_priority = 101

    def apply(self, **kwargs):
        if language_of(self.config) == "en":
            return
        from sphinx import addnodes
        from sphinx.locale import init as init_locale
        from sphinx.util.i18n import docname_to_domain
        dirs = [str(Path(self.env.srcdir, d)) for d in self.config.locale_dirs]
        domain = docname_to_domain(self.env.docname, self.config.gettext_compact)
        catalog, found = init_locale(dirs, self.config.language, domain)
        if not found:
            return
        for node in self.document.findall(_has_alt):
            node["alt"] = catalog.gettext(node["alt"])
        for toctree in self.document.findall(addnodes.toctree):
            if toctree.get("caption"):
                toctree["caption"] = toctree["rawcaption"] = catalog.gettext(toctree["caption"])
        self.translate_figures(catalog)

    def translate_figures(self, catalog):
        """Japanese PNGs for the page's plots; translated labels for its diagrams."""
        from sphinx.ext.graphviz import graphviz
        from sphinx.util import logging
        logger = logging.getLogger(__name__)
        figures = dict(notebook_figures(self.env.doc2path(self.env.docname)))
        for node in self.document.findall(nodes.image):
            uri = node.get("uri", "")
            book = figures.get(Path(uri).stem)
            if book is None or not book["text"]:     # not a plot, or no words in it
                continue
            wanted = [catalog.gettext(text) for text in book["text"]]
            drawn = book.get("ja", {})
            if drawn.get("text") != wanted:
                why = book.get("ja_error") or [w for w, d in zip(wanted, drawn.get("text") or book["text"])
                                               if w != d][:3]
                logger.warning("a figure of %s was drawn with other Japanese than the catalog's "
                               "(run the chapter again): %s", self.env.docname, why, location=node)
                continue
            data = base64.b64decode(drawn["png"])
            folder = Path(self.env.srcdir, uri.lstrip("/")).parent
            name = hashlib.sha256(data).hexdigest() + ".png"
            (folder / name).write_bytes(data)
            node["uri"] = str(Path(uri).with_name(name))
        for node in self.document.findall(graphviz):
            node["code"] = translate_dot(node["code"], catalog.gettext)


# --- the switch between editions ------------------------------------------

def up_to_root(pagename, language):
    """How many folders up the site's root is from `pagename` of edition `language`."""
    return pagename.count("/") + (1 if EDITIONS[language]["subdir"] else 0)


def switch_target(pagename, language, other):
    """The relative address of `pagename` in edition `other`, seen from edition `language`."""
    up = up_to_root(pagename, language)
    sub = EDITIONS[other]["subdir"]
    return "../" * up + (f"{sub}/" if sub else "") + f"{pagename}.html"


def _add_switch(app, pagename, templatename, context, doctree):
    language = language_of(app.config)
    context["edition_links"] = [
        {"lang": other, "label": EDITIONS[other]["label"],
         "href": switch_target(pagename, language, other)}
        for other in EDITIONS if other != language]
    # this edition as a PDF (book/_ext/pdf.py copies it into the site's pdf/ folder)
    context["edition_pdf"] = {"href": "../" * up_to_root(pagename, language) + f"pdf/attention-{language}.pdf",
                              "title": EDITIONS[language]["pdf_title"]}


def _configure(app, config):
    language = language_of(config)
    options = dict(config.html_theme_options or {})
    options["article_header_end"] = ["edition-switch.html", "article-header-buttons.html"]
    if "search_bar_text" in EDITIONS[language]:
        options["search_bar_text"] = EDITIONS[language]["search_bar_text"]
    # after any footer of _config.yml's own
    options["extra_footer"] = options.get("extra_footer", "") + _licence_footer(
        language, options.get("repository_url") or "", options.get("repository_branch"))
    config.html_theme_options = options
    config.templates_path = [*config.templates_path, str(TEMPLATES)]
    config.html_static_path = [*config.html_static_path, str(STATIC)]


def _licence_footer(language, repository_url, branch="main"):
    """Every page's footer: the book's two licences (the repository's LICENSE)."""
    cc_by = '<a href="https://creativecommons.org/licenses/by/4.0/">CC BY 4.0</a>'
    address = f"{repository_url.rstrip('/')}/blob/{branch or 'main'}/LICENSE"
    license = (f'<a href="{html.escape(address)}">LICENSE</a>'
               if repository_url else "LICENSE")
    return f'<p class="licence">{EDITIONS[language]["footer"].format(cc_by=cc_by, license=license)}</p>'


def _register_japanese_citations():
    """sphinxcontrib-bibtex's author-year style with Japanese joints between the names."""
    from dataclasses import dataclass, field

    from sphinxcontrib.bibtex.plugin import register_plugin
    from sphinxcontrib.bibtex.style.referencing import PersonStyle
    from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle

    def japanese_names():
        return PersonStyle(sep="、", sep2=" と ", last_sep="、", other=" ら")

    @dataclass
    class JapaneseAuthorYear(AuthorYearReferenceStyle):
        person: PersonStyle = field(default_factory=japanese_names)

    register_plugin("sphinxcontrib.bibtex.style.referencing", "author_year_ja", JapaneseAuthorYear)


def setup(app):
    _register_japanese_citations()
    app.connect("config-inited", _configure)
    app.connect("doctree-resolved", _extract_alt_texts)
    # before the theme (500), which drops header templates that render empty
    app.connect("html-page-context", _add_switch, priority=400)
    app.add_transform(TranslateAttributes)
    app.add_css_file("editions.css")
    app.add_css_file("print.css", media="print")   # no navigation on paper (and in the PDF)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


# --- the command ------------------------------------------------------------

BUILDERS = ["html", "singlehtml"]


def build(language, path_output=ROOT, builder="html"):
    """Build edition `language` into `path_output`/_build/<builder>/<subdir>; 0 on success."""
    from jupyter_book.sphinx import build_sphinx
    build_dir = Path(path_output) / "_build"
    overrides = {"external_toc_path": str(ROOT / "_toc.yml"), "nitpicky": True,
                 "latex_individualpages": False,
                 **EDITIONS[language]["config"]}
    return build_sphinx(ROOT, build_dir / builder / EDITIONS[language]["subdir"],
                        doctreedir=build_dir / f".doctrees-{language}", noconfig=True, builder=builder,
                        path_config=ROOT / "_config.yml", confoverrides=overrides,
                        warningiserror=True, keep_going=True)


def main(argv):
    import argparse
    parser = argparse.ArgumentParser(prog="python book/_ext/editions.py",
                                     description="Build a translated edition of the book.")
    parser.add_argument("language", choices=TRANSLATED)
    parser.add_argument("--path-output", default=str(ROOT),
                        help="the edition goes to PATH_OUTPUT/_build/<builder>/<language>")
    parser.add_argument("--builder", choices=BUILDERS, default="html",
                        help="singlehtml: the whole edition as one page (for the PDF)")
    args = parser.parse_args(argv)
    result = build(args.language, args.path_output, args.builder)
    if result != 0:
        print(f"error: the {EDITIONS[args.language]['label']} edition did not build "
              f"(see the warnings above)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
