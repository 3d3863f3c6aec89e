"""Text from a submission, made safe before a person reads it.

Everything a learner's code or notebook can put into a message (exception
text, printed output, cell sources, file names, student folder names) may hold
terminal escape sequences that repaint the screen, control characters, lone
surrogates that crash an encoder, or newlines that forge extra lines of a
report.  Two functions cover every place where such text reaches a person:

* ``terminal(text)``: one line for a terminal: escape sequences and control
  characters removed, line breaks turned into spaces, characters the output
  cannot encode replaced;
* ``quoted(name)``: a name (file, student id) that cannot pass for anything
  else: plain names unchanged, any other one as a Python string literal, with
  its newlines and escapes written out as ``\\n`` and ``\\x1b``.

And one for the instructor's own secrets: ``url_without_password(url)``, a
gradebook URL as it may be shown.

HTML pages (feedback, formgrader) are made safe by nbconvert's sanitiser and a
Content-Security-Policy, see ``nbgrader_config.py``.
"""
import re
import sys
import unicodedata

# ESC-introduced sequences: CSI (ESC [ ... final), OSC / DCS / SOS / PM / APC strings
# (ESC ] ... BEL or ESC \), and two-character escapes; and their 8-bit C1 forms.
_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"            # CSI: colours, cursor moves, clear screen
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|$)"  # OSC, DCS ... strings
    r"|\x1b[ -/]*[0-~]?",                           # any other escape
    re.DOTALL)
_PLAIN_NAME = re.compile(r"[A-Za-z0-9._@+-]+")


def _visible(char):
    category = unicodedata.category(char)
    # Cc control, Cf format (bidi overrides, zero-width), Cs surrogates, Co private, Cn unassigned,
    # Zl/Zp line and paragraph separators
    return category[0] != "C" and category not in ("Zl", "Zp")


def terminal(text, encoding=None, limit=2000):
    """``text`` as one printable line: no escapes, no control characters, encodable."""
    text = text if isinstance(text, str) else str(text)
    text = _ESCAPES.sub("", text[:limit * 4])
    text = "".join(char if _visible(char) else (" " if char in "\t\n\r\v\f\x85\u2028\u2029" else "\ufffd")
                   for char in text)
    if len(text) > limit:
        text = text[:limit - 3] + "..."
    encoding = encoding or getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        return text.encode(encoding, errors="replace").decode(encoding, errors="replace")
    except LookupError:
        return text.encode("ascii", errors="replace").decode("ascii")


def clean(text, limit=None):
    """Text from the learner's process as the grader keeps it: escape sequences and control
    characters removed (line breaks and tabs kept), lone surrogates replaced."""
    text = text if isinstance(text, str) else str(text)
    if limit is not None:
        text = text[:limit * 4]
    text = _ESCAPES.sub("", text)
    return "".join(char if _visible(char) or char in "\n\t" else "\n" if char == "\r" else "\ufffd"
                   for char in text)


def quoted(name):
    """A file name or student id that cannot forge a line or hide itself: a repr unless plain."""
    name = name if isinstance(name, str) else str(name)
    if _PLAIN_NAME.fullmatch(name):
        return name
    return ascii(name) if not name.isprintable() or any(not _visible(c) for c in name) else repr(name)


def url_without_password(url):
    """The gradebook URL without a password, in each form libpq takes one: ``user:pw@``, ``:pw@``
    (no user), a raw ``@`` inside it, and a ``password`` query parameter.  A URL with nothing to
    hide is returned as written (rendering would percent-encode a non-ASCII course path)."""
    from urllib.parse import quote_plus

    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    def redacted(text):   # what make_url cannot parse, or parses ambiguously: hide too much, never too little
        text = re.sub(r"([?&;]password=)[^&;#]*", r"\1***", text, flags=re.IGNORECASE)
        return re.sub(r"(//[^:/@]*):.*@", r"\1:***@", text)   # greedy: up to the last "@"

    url = str(url)
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError, TypeError):
        return redacted(url)
    if parsed.password is not None and "@" in f"{parsed.host or ''}{parsed.database or ''}":
        return redacted(url)   # a raw "@" in the password: make_url ends the password at the first one
    hidden = {key for key in parsed.query if key.lower() == "password"}
    if parsed.password is None and not hidden:
        return url
    rendered = parsed.set(query={}).render_as_string(hide_password=True)
    query = [f"{quote_plus(key)}={'***' if key in hidden else quote_plus(value)}"
             for key in sorted(parsed.query)
             for value in ([parsed.query[key]] if isinstance(parsed.query[key], str) else parsed.query[key])]
    return rendered + ("?" + "&".join(query) if query else "")


# A spreadsheet reads a cell starting with one of these as a formula (OWASP's CSV injection guidance).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(text):
    """A text cell a spreadsheet shows as text: ``'`` before a first character that starts a formula."""
    text = "" if text is None else str(text)
    return "'" + text if text.startswith(FORMULA_STARTS) else text
