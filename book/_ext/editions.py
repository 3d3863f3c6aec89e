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
* every page gets a link to the same page in the other edition;
* the Japanese edition gets its title, search language, CJK fonts, and
  citations in Japanese form (「Bahdanau ら [2015]」, 「Luong と Manning」).

As a command it builds the Japanese edition with Jupyter Book's own
configuration (``_config.yml``, ``_toc.yml``) plus ``language = "ja"``:
Jupyter Book's CLI has no ``-D`` option (its issue #1791), so the command calls
the function the CLI calls, ``jupyter_book.sphinx.build_sphinx``::

    python book/_ext/editions.py ja [--path-output DIR]   # -> DIR/_build/html/ja
"""
import html
import sys
from pathlib import Path

from docutils import nodes
from sphinx.transforms import SphinxTransform

ROOT = Path(__file__).resolve().parents[2]
STATIC = Path(__file__).with_name("static")
TEMPLATES = Path(__file__).with_name("templates")

# What changes between editions besides the translated text.
EDITIONS = {
    "en": {"label": "English", "subdir": "",
           "footer": "Text and figures: {cc_by}; code: MIT ({license})."},
    "ja": {"label": "日本語", "subdir": "ja",
           "config": {"language": "ja",
                      "html_title": "アテンション：ソフトマックスから Transformer まで",
                      "html_search_language": "ja",
                      "bibtex_reference_style": "author_year_ja"},
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


# --- the switch between editions ------------------------------------------

def switch_target(pagename, language, other):
    """The relative address of `pagename` in edition `other`, seen from edition `language`."""
    up = pagename.count("/") + (1 if EDITIONS[language]["subdir"] else 0)
    sub = EDITIONS[other]["subdir"]
    return "../" * up + (f"{sub}/" if sub else "") + f"{pagename}.html"


def _add_switch(app, pagename, templatename, context, doctree):
    language = language_of(app.config)
    context["edition_links"] = [
        {"lang": other, "label": EDITIONS[other]["label"],
         "href": switch_target(pagename, language, other)}
        for other in EDITIONS if other != language]


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
    return {"parallel_read_safe": True, "parallel_write_safe": True}


# --- the command ------------------------------------------------------------

def build(language, path_output=ROOT):
    """Build edition `language` into `path_output`/_build/html/<subdir>; 0 on success."""
    from jupyter_book.sphinx import build_sphinx
    build_dir = Path(path_output) / "_build"
    overrides = {"external_toc_path": str(ROOT / "_toc.yml"), "nitpicky": True,
                 "latex_individualpages": False,
                 **EDITIONS[language]["config"]}
    return build_sphinx(ROOT, build_dir / "html" / EDITIONS[language]["subdir"],
                        doctreedir=build_dir / f".doctrees-{language}", noconfig=True,
                        path_config=ROOT / "_config.yml", confoverrides=overrides,
                        warningiserror=True, keep_going=True)


def main(argv):
    import argparse
    parser = argparse.ArgumentParser(prog="python book/_ext/editions.py",
                                     description="Build a translated edition of the book.")
    parser.add_argument("language", choices=TRANSLATED)
    parser.add_argument("--path-output", default=str(ROOT),
                        help="the edition goes to PATH_OUTPUT/_build/html/<language>")
    args = parser.parse_args(argv)
    result = build(args.language, args.path_output)
    if result != 0:
        print(f"error: the {EDITIONS[args.language]['label']} edition did not build "
              f"(see the warnings above)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
