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
  space or punctuation (write ``**マスク**。`` rather than ``**マスク。**``);
* it calls a vector's dimension 次元, never 長さ, 大きさ or 幅 (which read as its
  norm): 「次元 $d_k$」, not 「長さ $d_k$」 or 「キーの長さの平方根」;
* it uses none of the words the terms table of ``locales/ja/README.md`` rules out
  (its section "Words not to use"), unless a translator comment says ``Term on
  purpose`` (the glossary's column of alternatives), and counts 一つ … 九つ in kanji;
* a diagram's label keeps its Graphviz tags and has no bare & or <.

The grader's messages (``autograder/locale/ja/LC_MESSAGES/autograder.po``) also
explain rather than order: no 命令形 (引け, 使え, 返せ, 〜せよ, 〜すること) and no
「あなた」.  The Japanese cells of the exercise notebooks (``solutions/**/*.ipynb``)
are held to the terms and the dimension rule.  The paths given on the command
line may be any of these three kinds of file.
"""
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

ON_PURPOSE = "English on purpose"
TERM_ON_PURPOSE = "Term on purpose"
README = Path(__file__).resolve().parents[1] / "locales" / "ja" / "README.md"

# Not prose: kept character for character.  Order matters (display maths first).
# A tag of a diagram's label (Graphviz's HTML-like labels).  Such a label is XML to
# Graphviz: a bare & or < in its translation breaks it.
GRAPHVIZ_TAG = re.compile(r"</?(?i:SUB|SUP|I|B|U|O|S|BR|FONT)\b[^<>]*>")
BARE_MARKUP = re.compile(r"&(?!\w+;|#\d+;)|<")
TOKENS = re.compile(
    r"\$\$.+?\$\$"                       # display maths
    r"|(?<![\\$])\$[^$\n]+?\$"           # inline maths
    r"|\{[a-z:]+\}`[^`]+`"               # a role: {cite:p}`key`, {ref}`label`, {doc}`page`
    r"|``[^`]+``|`[^`\n]+`"              # inline code
    r"|\]\([^)\s]+\)"                    # a link's target
    r"|<https?://[^>]+>"                 # an autolink
    rf"|{GRAPHVIZ_TAG.pattern}",         # a diagram label's tag
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
# A vector's dimension called 長さ/大きさ/幅 (its norm, to a Japanese reader): the word
# next to a dimension symbol (d, d_k, d_\text{model}, sqrt(d_model)), or said of a
# query, key, value, head or embedding.  大幅 (much) is not 幅.
_SIZE = r"(?:長さ|大きさ|(?<!大)幅)(?!\s*[（(]ノルム)"          # 長さ（ノルム） is the norm: fine
_ROLE = r"(?<![ァ-ヶー])(?:クエリ|キー|バリュー|ヘッド|埋め込み|ベクトル)"   # not オーバーヘッド
_D = r"[$`{]?d(?:_[A-Za-z{}\\]+)?(?![A-Za-z])"   # d, $d_k$, `d_k`, {d_model}
DIMENSION_AS_LENGTH = re.compile(
    rf"{_SIZE}[\s$（(=＝]*(?:[はがを]\s*)?{_D}"                                # 長さ $d_k$, 長さ（$d_k$）
    rf"|{_SIZE}[^。、]{{0,16}}?(?:sqrt\(|\\sqrt\{{)d(?![A-Za-z])"               # 長さの平方根 sqrt(d_k)
    rf"|(?<![A-Za-z\\])d(?:_[A-Za-z{{}}\\]+)?[$`}}]?\s*は[^。、$]{{0,12}}?{_SIZE}"
    r"(?=である|であり|で[、。]|[。、）)]|$)"                                      # $d_k$ は…の長さである
    rf"|{_ROLE}の{_SIZE}"                                                      # キーの長さ
    rf"|{_ROLE}長"                                                              # キー長, ベクトル長
    rf"|{_SIZE}\s*\d+\s*の\s*{_ROLE}"                                           # 幅 2 のヘッド
    rf"|{_D}[$`}}]?\s*の{_SIZE}をもつ")                                         # d_v の長さをもつ
# The grader explains; it does not order.  A 命令形 is an e-row kana ending a verb after
# its object (を引け, で割れ), or よ after one or after a kanji (〜せよ, 見よ, 数えよ), or
# しろ/見ろ, 〜な after a verb (書き換えるな), べし, 下さい, at the end of a sentence or
# clause: before 。 ！ ? a colon, a bracket or a line break; 〜すること。 is an order too.
# Nouns that end the same way (正しい答え, 丸め, 全て) have no particle before them.
ORDER = re.compile(
    r"(?:(?<=[をにでへ][\u4e00-\u9fff])[えけげせてねべめれ]"
    r"|(?<=[\u4e00-\u9fffえけげせてねべめれ])よ|しろ|見ろ|来い|べし"
    r"|なさい|ください|下さい|てくれ)(?=[。！!？?:：）)（(」;；\n]|\s*$)"
    r"|(?<=[うくぐすつぬぶむる])(?<!よう)(?<!そう)な(?=[。！!」\n]|\s*$)"
    r"|(?<!同じ)こと(?=[。]|\s*$)")
# Counting: 一つ … 九つ in kanji (the style guide), never a digit before つ.
DIGIT_TSU = re.compile(r"(?<![0-9０-９])[1-9１-９]\s?つ(?![ぁ-ん])")
# Words of the terms table that are parts of other, correct words.
NOT_THE_BANNED_WORD = ("気持ち", "スペア")


def words_not_to_use(readme=README):
    """{word: what to write instead} from the section "Words not to use" of the
    translators' README: a table whose first column lists words separated by 、."""
    text = readme.read_text(encoding="utf-8")
    section = text.split("## Words not to use", 1)[1].split("\n## ", 1)[0]
    table = {}
    for row in re.findall(r"^\|(.+?)\|(.+?)\|", section, re.M):
        banned, instead = (cell.strip() for cell in row)
        if banned.startswith("---") or banned == "使わない":
            continue
        for word in banned.split("、"):
            table[word.strip()] = instead
    return table


WORDS_NOT_TO_USE = words_not_to_use()


def style_problems(japanese):
    """What the dimension rule and the terms table find in Japanese text (maths, roles and
    code left out for the terms, kept for the dimension symbols)."""
    problems = [f"dimension called length: {m.group(0)!r} (write 次元)"
                for m in DIMENSION_AS_LENGTH.finditer(japanese)]
    prose = TOKENS.sub(" ", japanese)
    for word in NOT_THE_BANNED_WORD:
        prose = prose.replace(word, " ")
    problems += [f"a word the terms table rules out: {word!r} (write {instead})"
                 for word, instead in WORDS_NOT_TO_USE.items() if word in prose]
    problems += [f"a digit before つ: {m.group(0)!r} (write 一つ, 二つ … 九つ)"
                 for m in DIGIT_TSU.finditer(prose)]
    return problems


def orders(japanese):
    """The 命令形 and 〜すること of a grader message (it should explain; 「あなた」 is in the
    terms table's words not to use)."""
    prose = TOKENS.sub(" ", japanese)
    return [prose[max(0, m.start() - 4):m.end()] for m in ORDER.finditer(prose)]


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
    """The **...** spans whose delimiters Markdown does not read as bold: a space just
    inside a delimiter, a closing ** after punctuation with a letter next, an opening **
    before punctuation with a letter before (CommonMark's flanking rules)."""
    found = []
    for match in BOLD.finditer(japanese):
        inner = match.group(1)
        before = japanese[match.start() - 1] if match.start() else " "
        after = japanese[match.end()] if match.end() < len(japanese) else " "
        opens = not inner[0].isspace() and not (
            _punctuation(inner[0]) and not (before.isspace() or _punctuation(before)))
        closes = not inner[-1].isspace() and not (
            _punctuation(inner[-1]) and not (after.isspace() or _punctuation(after)))
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
    if not any(TERM_ON_PURPOSE in comment for comment in message.user_comments):
        problems += style_problems(japanese)
    if GRAPHVIZ_TAG.search(english) and BARE_MARKUP.search(GRAPHVIZ_TAG.sub("", japanese)):
        problems.append("a bare & or < in a diagram's label (Graphviz reads it as markup: write &amp; or &lt;)")
    return problems


def grader_message_problems(japanese):
    """The rules a grader message is held to beyond a book message's."""
    return style_problems(japanese) + [f"an order, not an explanation: {o!r} (say what is wrong"
                                       " and why, in である調)" for o in orders(japanese)]


def catalog_problems(path):
    """(msgid excerpt, problem) for every message of a .po file that is not in order: a
    page's catalog, or the grader's (``autograder.po``, held to grader_message_problems)."""
    from babel.messages.pofile import read_po
    with open(path, "rb") as handle:
        catalog = read_po(handle)
    grader = Path(path).name == "autograder.po"
    found = []
    for message in catalog:
        if not message.id:       # the header
            continue
        english = message.id[0] if isinstance(message.id, tuple) else message.id
        if grader:
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            problems = [p for japanese in strings if japanese for p in grader_message_problems(japanese)]
        else:
            problems = message_problems(message)
        found += [(english[:60].replace("\n", " "), problem) for problem in problems]
    return found


def notebook_problems(path):
    """(excerpt, problem) for the Japanese markdown cells of an exercise notebook."""
    import json
    cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    found = []
    for cell in cells:
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and KANA_OR_KANJI.search(text):
            found += [(text[:60].replace("\n", " "), p) for p in style_problems(text)]
    return found


def main(paths):
    total = 0
    for path in paths:
        check = notebook_problems if str(path).endswith(".ipynb") else catalog_problems
        for excerpt, problem in check(path):
            print(f"{Path(path).name}: {excerpt!r}: {problem}")
            total += 1
    print(f"{total} problem(s) in {len(paths)} catalog(s)", file=sys.stderr)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
