"""Checks of a gettext catalog of the book's Japanese edition, one message at a time.

Used by tests/test_japanese_edition.py and by translators on their own work:

    python tests/translation.py locales/ja/LC_MESSAGES/book/01_softmax.po ...

prints one line per problem and exits non-zero when there is any.  A message
is in order when:

* it is translated and not fuzzy (an English edit makes its entry fuzzy);
* every piece of maths, role (citation, cross-reference, term), inline code
  and link target of the English is in the translation, character for
  character (they are not prose: they must not be lost or retyped);
* it is Japanese: an English message with prose gets a translation with
  Japanese in it, unless a translator comment says ``English on purpose``;
* it is in the book's style, である調 (no です/ます sentence ends);
* it does not begin with ``1. `` (Markdown would read a numbered list; write
  ``1\\. ``);
* its cross-references to a page or a section ({doc}, {ref}) stand in 「」, the
  Japanese way of quoting a title, unless the message is the reference alone (a
  table cell);
* its bold renders: Markdown closes ``**`` after punctuation such as 。 only when
  a space or punctuation follows, and opens it before punctuation only after a
  space or punctuation (write ``**マスク**。`` rather than ``**マスク。**``).
"""
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

ON_PURPOSE = "English on purpose"

# Not prose: kept character for character.  Order matters (display maths first).
TOKENS = re.compile(
    r"\$\$.+?\$\$"                       # display maths
    r"|(?<![\\$])\$[^$\n]+?\$"           # inline maths
    r"|\{[a-z:]+\}`[^`]+`"               # a role: {cite:p}`key`, {ref}`label`, {doc}`page`
    r"|``[^`]+``|`[^`\n]+`"              # inline code
    r"|\]\([^)\s]+\)"                    # a link's target
    r"|<https?://[^>]+>",                # an autolink
    re.S)
KANA_KANJI = "\u3040-\u30ff\u3400-\u9fff"
KANA_OR_KANJI = re.compile(f"[{KANA_KANJI}]")                  # Japanese words
JAPANESE = re.compile(f"[{KANA_KANJI}\uff01-\uff5e]")         # ... or full-width punctuation
PROSE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z][a-z]{2,}\b")   # not a LaTeX command such as \frac
LATEX_TEXT = re.compile(r"\\(?:text|mathrm|operatorname|textrm)\{[^{}]*\}")
POLITE = re.compile(r"(です|ます|でした|ました|ません|でしょう)(?=[。、．！？」）)（(\s]|$)")
LIST_TRAP = re.compile(r"^\d+\.\s")
CROSS_REFERENCE = re.compile(r"\{(?:ref|doc)\}`[^`]+`")
BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)


def _punctuation(character):
    """CommonMark's Unicode punctuation: categories P and S."""
    return unicodedata.category(character)[0] in "PS"


def unquoted_references(japanese):
    """The {doc} and {ref} roles of a translation that do not stand in 「」."""
    if CROSS_REFERENCE.fullmatch(japanese.strip()):
        return []
    return [m.group(0) for m in CROSS_REFERENCE.finditer(japanese)
            if japanese[max(0, m.start() - 1):m.start()] != "「"
            or japanese[m.end():m.end() + 1] != "」"]


def bold_that_does_not_render(japanese):
    """The **...** spans whose delimiters Markdown does not read as bold: a closing
    ** after punctuation with a letter next, an opening ** before punctuation with a
    letter before (CommonMark's flanking rules)."""
    found = []
    for match in BOLD.finditer(japanese):
        inner = match.group(1)
        before = japanese[match.start() - 1] if match.start() else " "
        after = japanese[match.end()] if match.end() < len(japanese) else " "
        opens = not (_punctuation(inner[0]) and not (before.isspace() or _punctuation(before)))
        closes = not (_punctuation(inner[-1]) and not (after.isspace() or _punctuation(after)))
        if not (opens and closes):
            found.append(match.group(0))
    return found


def tokens(text):
    """The maths, roles, code and link targets of a message, as a multiset."""
    return Counter(TOKENS.findall(text))


def prose_words(text):
    """English words of a message outside its maths, roles and code (the body of a display
    formula, a message of its own without its $$, is maths too)."""
    return PROSE_WORD.findall(LATEX_TEXT.sub(" ", TOKENS.sub(" ", text)))


def message_problems(message):
    """What is wrong with one babel Message (empty list: nothing)."""
    english, japanese = message.id, message.string
    if "fuzzy" in message.flags:
        return ["fuzzy (the English changed: update the translation, then drop the flag)"]
    if not japanese:
        return ["not translated"]
    problems = []
    missing = tokens(english) - tokens(japanese)
    if missing:
        problems.append("lost or changed: " + ", ".join(sorted(missing)))
    on_purpose = any(ON_PURPOSE in comment for comment in message.user_comments)
    if len(prose_words(english)) >= 2 and not JAPANESE.search(japanese) and not on_purpose:
        problems.append(f"still English (or add the translator comment '# {ON_PURPOSE}: why')")
    if POLITE.search(TOKENS.sub(" ", japanese)):
        problems.append("です/ます: the book writes である調")
    if LIST_TRAP.match(japanese) and not LIST_TRAP.match(english):
        problems.append(r"begins with 'N. ', which Markdown reads as a list: write 'N\. '")
    if not on_purpose:
        for reference in unquoted_references(japanese):
            problems.append(f"cross-reference without 「」: write 「{reference}」")
    for span in bold_that_does_not_render(japanese):
        problems.append(f"bold that does not render: {span} (move the punctuation outside the **)")
    return problems


def catalog_problems(path):
    """(msgid excerpt, problem) for every message of a .po file that is not in order."""
    from babel.messages.pofile import read_po
    with open(path, "rb") as handle:
        catalog = read_po(handle)
    found = []
    for message in catalog:
        if not message.id:       # the header
            continue
        for problem in message_problems(message):
            found.append((message.id[:60].replace("\n", " "), problem))
    return found


def main(paths):
    total = 0
    for path in paths:
        for excerpt, problem in catalog_problems(path):
            print(f"{Path(path).name}: {excerpt!r}: {problem}")
            total += 1
    print(f"{total} problem(s) in {len(paths)} catalog(s)", file=sys.stderr)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
