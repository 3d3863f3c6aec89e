"""The grader's languages: every message a learner reads, in English or in Japanese.

The grader is written in English; its Japanese is a gettext catalog, domain
``autograder``: ``autograder/locale/ja/LC_MESSAGES/autograder.po`` (what
translators edit) and the compiled ``autograder.mo`` next to it (what runs;
committed and shipped in the wheel, so a learner needs nothing but Python's
own ``gettext``).

Which language a grading speaks
-------------------------------
The self-check (``python -m autograder check NOTEBOOK``, and the notebook's
last cell, ``check_this_notebook()``) takes the first of:

1. ``--lang CODE`` on the command line (``check_this_notebook(language=CODE)``
   in a notebook); an unsupported code is a one-line error;
2. the notebook's metadata, ``metadata["attention_book"]["language"]``
   (``"ja"`` or ``"en"``), read from the saved file;
3. the locale environment, in gettext's order: the first of ``LANGUAGE``,
   ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set and not empty
   (``LANGUAGE`` may list several, ``ja:en``; ``C`` and ``POSIX`` mean English);
4. English.

A source that names a language the grader does not speak (``"fr"``,
``LANG=de_DE.UTF-8``) gives English.  Codes are read as gettext reads them:
``ja``, ``ja_JP``, ``ja-JP`` and ``ja_JP.UTF-8`` are all Japanese.

The instructor's class run (``python -m autograder grade``, ``nbgrader
autograde``) grades with the same scores in every language; each notebook's
feedback follows that notebook's metadata, else English (never the
instructor's environment).  ``python -m autograder report --lang ja`` writes
the misconception report's headings in Japanese (default: the environment,
else English); it counts a mistake whichever language its feedback was in.

How the language travels
------------------------
The language of a grading is a context variable (``language(code)``, read by
``current()``), set by the entry points around the whole grading: one process
can grade one notebook in English and the next in Japanese.  Messages are
translated when they are produced (``_("... {name} ...").format(name=...)``,
never formatted first); the misconception catalogues' messages, defined when
their module is imported, stay English in ``Mistake.message`` and are
translated when a report is written (``Mistake.translated``).  Machine-read
words stay English in every language: mistake ids, test kinds, the JSON
output's keys, error names.

For a maintainer
----------------
``_`` marks a message and translates it now; ``N_`` only marks a message that
is translated later; ``ngettext`` and ``pgettext`` as in ``gettext``; the
message of every ``Mistake(id, message, detect)`` and ``nan_where_finite(id,
message)`` is marked by its position (``KEYWORDS``); a mistake's ``hints`` are plain strings, collected
from the imported catalogues (``extract``).  After changing an
English message, ``python -m autograder.i18n`` (needs babel, in the
repository's environment) extracts the messages, merges them into the ``.po``
(a changed message becomes fuzzy, a new one empty), and compiles the ``.mo``;
translate, then run it again.  ``tests/test_grader_language.py`` fails while
a message lacks its translation or the ``.mo`` is stale.
"""
import contextlib
import contextvars
import functools
import gettext
import os
import re
from pathlib import Path

DOMAIN = "autograder"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
ENGLISH = "en"
LANGUAGES = (ENGLISH, "ja")                       # English is the source; one catalog per other language
METADATA_KEY = ("attention_book", "language")     # notebook metadata: {"attention_book": {"language": "ja"}}
ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")   # gettext's order

# What babel extracts (``python -m autograder.i18n``; the test compares): the gettext
# functions, and the message argument of the catalogue's constructors.
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2),
            "Mistake": (2,), "nan_where_finite": (2,)}
COMMENT_TAGS = ("Translators:",)
HEADER_COMMENT = ("# The grader's messages in Japanese (gettext domain autograder, see autograder/i18n.py).\n"
                  "# Translate msgstr only, である調, with the terms of locales/ja/README.md; keep every\n"
                  "# {field}, `code`, shape and number as it is.  `python -m autograder.i18n` merges the\n"
                  "# English messages in and compiles autograder.mo.")

_LANGUAGE = contextvars.ContextVar("autograder_language", default=ENGLISH)


class UnsupportedLanguage(ValueError):
    """A language the grader does not speak, asked for explicitly (``--lang``)."""


def normalise(code):
    """The supported language that ``code`` names (``ja_JP.UTF-8`` -> ``ja``), or None."""
    if not isinstance(code, str):
        return None
    base = re.split(r"[.@]", code.strip(), maxsplit=1)[0]
    base = re.split(r"[_-]", base, maxsplit=1)[0].lower()
    return base if base in LANGUAGES else None


def require(code):
    """The supported language ``code`` names; UnsupportedLanguage with a one-line reason otherwise."""
    found = normalise(code)
    if found is None:
        raise UnsupportedLanguage(f"unsupported language {code!r} (the grader speaks {', '.join(LANGUAGES)})")
    return found


def from_environment(environ=None):
    """The language of the locale environment, read as gettext reads it, or None.

    The first of LANGUAGE, LC_ALL, LC_MESSAGES and LANG that is set and not empty decides;
    its entries (``ja:en``) are tried in order; ``C`` and ``POSIX`` end the list (English).
    """
    environ = os.environ if environ is None else environ
    for variable in ENVIRONMENT:
        value = environ.get(variable)
        if value:
            for entry in value.split(":"):
                if entry in ("C", "POSIX") or entry.startswith(("C.", "POSIX.")):
                    return None
                found = normalise(entry)
                if found:
                    return found
            return None
    return None


def from_notebook(notebook):
    """The language a notebook's metadata names (``metadata.attention_book.language``), as given,
    or None when it names none.  The notebook is the learner's: anything else than a string there
    counts as nothing."""
    value = notebook.get("metadata") if isinstance(notebook, dict) else None
    for key in METADATA_KEY:
        value = value.get(key) if isinstance(value, dict) else None
    return value.strip() if isinstance(value, str) and value.strip() else None


def choose(requested=None, notebook=None, environ=None):
    """The language of a self-check: ``requested`` (``--lang``; must be supported), else the
    notebook's metadata, else the environment, else English.  A named but unsupported
    language in the metadata gives English."""
    return chosen(requested, notebook, environ)[0]


def chosen(requested=None, notebook=None, environ=None):
    """(language, what chose it) as ``choose`` decides: "asked", "notebook", "environment" or "default"."""
    if requested is not None:
        return require(requested), "asked"
    named = from_notebook(notebook) if notebook is not None else None
    if named is not None:
        return normalise(named) or ENGLISH, "notebook"
    found = from_environment(environ)
    return (found, "environment") if found else (ENGLISH, "default")


def language_line(code, reason):
    """The report's last word on its language: which, what chose it, and how to choose another."""
    with language(code):
        names = {ENGLISH: _("English"), "ja": _("Japanese")}
        reasons = {"asked": _("as asked"), "notebook": _("the notebook's metadata"),
                   "environment": _("the system's locale"), "default": _("the default")}
        other = next(c for c in LANGUAGES if c != code)
        return _("Language: {language} ({reason}). For {other}: check_this_notebook(language=\"{code}\") in the "
                 "notebook, or --lang {code} on the command line.").format(
            language=names[code], reason=reasons[reason], other=names[other], code=other)


def for_class_run(notebook):
    """The language of a submission's feedback in the class run: its metadata's, else English."""
    return normalise(from_notebook(notebook)) or ENGLISH


@contextlib.contextmanager
def language(code):
    """While the block runs, messages are translated into ``code`` (a supported language)."""
    token = _LANGUAGE.set(require(code))
    try:
        yield
    finally:
        _LANGUAGE.reset(token)


def current():
    """The language messages are translated into now."""
    return _LANGUAGE.get()


@functools.lru_cache(maxsize=None)
def translations(code):
    """The compiled catalog of ``code`` (English: none, the messages are English)."""
    if code == ENGLISH:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[code], fallback=True)


def _(message):
    """``message`` (an English msgid) in the current language."""
    return translations(current()).gettext(message)


def N_(message):
    """Mark ``message`` for translation without translating it (it is translated where it is used)."""
    return message


def ngettext(singular, plural, count):
    return translations(current()).ngettext(singular, plural, count)


def pgettext(context, message):
    return translations(current()).pgettext(context, message)


def in_each_language(produce):
    """``produce()`` in every supported language: the texts a message can have (for matching
    feedback written in any of them)."""
    texts = []
    for code in LANGUAGES:
        with language(code):
            texts.append(produce())
    return texts


_KANA_KANJI = "\u3040-\u30ff\u3400-\u9fff"
_LOOSE_SPACE = re.compile(f"(?<=[）」』]) (?=[{_KANA_KANJI}])|(?<=[{_KANA_KANJI}]) (?=[（「『])")


def tidy(text):
    """``text`` with the half-width spaces that assembling a Japanese message leaves next to
    full-width brackets removed (「softmax(x)（x の形状は (7,)） が」 -> 「...）が」); other
    languages unchanged."""
    return _LOOSE_SPACE.sub("", text) if current() == "ja" else text


_JAPANESE = re.compile(f"[{_KANA_KANJI}]")
_HALVES = re.compile(r"\s+/\s+")


def one_language(text):
    """The half of a bilingual message in the grading's language: the visible tests of the
    exercise notebooks write their assertion messages ``"English ... / 日本語 ..."`` (the
    learner running them in the notebook reads both); any other text is returned unchanged.

    The halves meet at the last " / " with no Japanese before it, so a formula's own slash
    (``softmax(Q K^T / sqrt(d))``) stays inside its half."""
    halves = None
    for match in _HALVES.finditer(text):
        english, japanese = text[:match.start()], text[match.end():]
        if _JAPANESE.search(english):
            break
        if _JAPANESE.search(japanese):
            halves = english, japanese
    if halves is None:
        return text
    return halves[1] if current() == "ja" else halves[0]


def display_width(text):
    """Columns ``text`` takes in a terminal (East Asian wide characters take two)."""
    import unicodedata
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def ljust(text, width):
    """``text`` padded with spaces to ``width`` terminal columns."""
    return text + " " * max(0, width - display_width(text))


# --------------------------------------------------------------------------- for maintainers
def _source_root():
    return Path(__file__).resolve().parent


def extract():
    """The catalog of every marked message in ``autograder/`` (babel, for maintainers and tests)."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir
    catalog = Catalog(project="attention-book autograder", domain=DOMAIN, version="0.1.0")
    root = _source_root()
    for filename, lineno, message, comments, context in extract_from_dir(
            str(root), method_map=[("course_data/**", "ignore"), ("**.py", "python")], keywords=KEYWORDS,
            comment_tags=COMMENT_TAGS, strip_comment_tags=True):
        catalog.add(message, None, [(f"autograder/{filename}", lineno)], auto_comments=comments, context=context)
    for mistake in _hinted_mistakes():
        for number, hint in enumerate(mistake.hints, 1):
            catalog.add(hint, None, [_where(hint)],
                        auto_comments=[f"hint {number} of {len(mistake.hints)} of the mistake {mistake.id}"])
    return catalog


def _hinted_mistakes():
    """Every catalogued mistake, the shared ones first.  Their hints are plain strings in the call,
    which babel does not extract (strings nested in a call's arguments): they are collected from
    the catalogues themselves."""
    import importlib
    import pkgutil

    from .catalogue import __path__ as catalogues
    from .checks import SHARED_MISTAKES
    yield from SHARED_MISTAKES
    for module in pkgutil.iter_modules(catalogues):
        yield from importlib.import_module(f"{__package__}.catalogue.{module.name}").MISTAKES


def _where(hint):
    """(file, line) of the source that holds ``hint`` (its first words), for the catalog's location."""
    words = hint[:40]
    for path in sorted(_source_root().glob("c*/*.py")):   # checks/ and catalogue/
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if words in line:
                return f"autograder/{path.relative_to(_source_root()).as_posix()}", number
    return "autograder/catalogue", None


def po_path(code):
    return LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.po"


def compiled(code):
    """The bytes of the .mo that the .po of ``code`` compiles to (babel)."""
    import io
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po
    with open(po_path(code), "rb") as handle:
        catalog = read_po(handle, locale=code, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def update():
    """Extract, merge into each language's .po, compile its .mo; print what needs a translator."""
    from babel.messages.pofile import read_po, write_po
    template = extract()
    for code in LANGUAGES[1:]:
        path = po_path(code)
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            with open(path, "rb") as handle:
                catalog = read_po(handle, locale=code, domain=DOMAIN)
        else:
            from babel.messages.catalog import Catalog
            catalog = Catalog(locale=code, domain=DOMAIN, project=template.project, fuzzy=False,
                              header_comment=HEADER_COMMENT)
        created = catalog.creation_date
        catalog.update(template, update_header_comment=False)
        catalog.creation_date = created     # the same messages give the same files
        with open(path, "wb") as handle:
            write_po(handle, catalog, width=100, omit_header=False, ignore_obsolete=True, sort_output=False)
        path.with_suffix(".mo").write_bytes(compiled(code))
        with open(path, "rb") as handle:
            catalog = read_po(handle, locale=code, domain=DOMAIN)
        todo = [m for m in catalog if m.id and (not m.string or m.fuzzy)]
        print(f"{path}: {len([m for m in catalog if m.id])} messages, {len(todo)} to translate")


if __name__ == "__main__":
    update()
