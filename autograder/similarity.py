"""Pairs of submissions whose code is alike: ``python -m autograder similarity ASSIGNMENT``.

A pointer for the instructor's judgement, never a grade and never a proof: nothing here reads or writes
the gradebook.  For every pair of an assignment's submissions
(``autograder/submitted/<student>/<assignment>/<notebook>``), the code the learners wrote is compared
with copydetect (a Python package, MIT licence), MOSS's winnowing: each program is tokenized by Pygments,
names become ``V``/``F``, strings ``S``, comments and whitespace go, and the pair shares the k-grams (runs
of ``NOISE`` characters of that filtered text) both hold.  Renaming variables, reformatting and rewriting
comments therefore change nothing; what is left is the shape of the code.  A pair's score is the larger
of the two shares (how much of one learner's code is in the other's), so copying someone's code and
adding to it is still found; the report shows both.

What is compared: every code cell nbgrader runs as the learner wrote it, not only the ``solution``
cells, since nbgrader runs them all: a learner who left the solution cell as released and wrote the code
in the "try it here" cell, or in a code cell of their own, is graded on that code, and compared on it.
Left out are the cells the release locks, whose code nbgrader puts back before it runs them (the
release's cell of the same ``grade_id`` is ``locked``, or a ``grade`` cell and not a ``solution`` one:
the test cells); the release decides, not the submission's metadata, which a learner can edit.  An id
that two cells hold counts for the last of them only, and a cell whose id the release does not have is
the learner's, as nbgrader (``DeduplicateIds``, ``OverwriteCells``) sees them.

The code the release gives is left out, twice: in each cell, the lines of the release's cell (the one
of the same id; for any other, every code cell the release does not lock: "try it here" and the stubs)
that the learner kept (the ``def`` line, the docstring, ``raise NotImplementedError()``) are blanked
before the comparison (space for space, so the report still shows them, greyed); and every k-gram of
any code cell of the release notebook (``exercises/<assignment>/<notebook>``) is boilerplate, never
counted (a learner who pasted a visible test into a cell shares nothing by it).  Two learners who
handed in the release untouched share nothing.  ``pass`` statements are blanked too: they do nothing,
so a copy padded with them is the same program (Pygments' ``pass`` keyword, so ``x.pass_`` stays).

The settings, and why (``tests/test_similarity.py`` holds the class they were chosen on):

* ``NOISE = 25`` filtered characters: one NumPy statement of an exercise this small is about 20 of
  them (``V=V-V.V(V,V=V,V=True)`` is 21), so a match must run over more than one statement before it
  counts; at 20, independent solutions already share single statements (the book's and one
  learner's ``peak = np.max(values, axis=ax, keepdims=True)``: 34%).
* ``WINDOW = 1``: every k-gram is kept (copydetect's ``guarantee_t`` equal to ``noise_t``).  The
  solutions are a few hundred characters, so winnowing would save nothing; and Python salts ``hash()``
  per process, so a larger window would keep other k-grams on every run and change the scores.
* ``THRESHOLD = 0.8`` of the code: an exact copy and a renamed, reformatted one share 100%; on the test
  class of softmax, independent correct solutions that look alike because there are few ways to write
  three lines of NumPy (the book's own and a learner's ``e = np.exp(x - x.max(...)); return e /
  e.sum(...)``) share up to 64%.  ``--threshold`` lowers it to see more.
* ``MIN_SHARED = 2 * NOISE`` filtered characters shared (on the side that shares fewer), two
  statements' worth, besides the threshold: a learner who wrote little shares most of it with anyone who
  wrote the same line (an instructor's trial flagged a pair at 82% that shared one line, 27 tokenized
  characters), so one shared line never flags a pair.  The report counts the pairs this keeps out.

What the numbers cannot say.  A short canonical solution can reach 100% without any copying: softmax
has few ways to be written, and ``z = x - np.max(...); numerator = np.exp(z); denominator =
np.sum(numerator, ...); return numerator / denominator`` and ``x = x - np.max(...); e = np.exp(x); s =
np.sum(e, ...); return e / s``, written independently, are the same tokens (100%, 57 characters).  And a
copy can hide: ``pass`` lines are blanked, but other dead code (an unused assignment, an ``if False:``
block) or the code split into helper functions breaks the runs of shared tokens and lowers the share
(41% to 69% for such copies in a trial); no tool removes dead code soundly.  The report is a pointer for
the instructor's judgement, not a finding: it shows the shared code side by side, and the judgement, and
any talk with the students, are the instructor's.

Bounds: each notebook (``MAX_NOTEBOOK_BYTES``, as the class run), the number of submissions
(``MAX_SUBMISSIONS``), one submission's code (``MAX_CODE_CHARS``; a larger one is left out and named)
and all of them (``MAX_TOTAL_CODE_CHARS``).  The output too: the terminal prints at most
``MAX_LISTED_PAIRS`` pairs, the report lists as many and shows the ``MAX_SHOWN_PAIRS`` most alike side
by side, each side at most ``MAX_SHOWN_LINES`` lines and ``MAX_SHOWN_CHARS`` characters (saying how many
more there were, and what was cut); the page is written as it is built.  Everything a learner wrote
(code, cell ids, folder names) is escaped in the HTML, which runs no script and loads nothing (a
Content-Security-Policy says so too); student ids are quoted in the terminal (``safe.quoted``).
"""
import dataclasses
import difflib
import html
import io
import itertools
from pathlib import Path

from . import notebooks, safe
from .notebooks import NotebookError

COMMANDS = ("similarity",)   # the subcommands add_parsers adds; __main__ sends them to main
REPORTS = "autograder/similarity"   # <course root>/autograder/similarity/<assignment>/index.html (git-ignored)
NOISE = 25                   # k: filtered characters a shared run must have (see the module docstring)
WINDOW = 1                   # winnowing window: every k-gram
THRESHOLD = 0.8              # the larger share of a pair at or above which it is reported
MIN_SHARED = 2 * NOISE       # and the filtered characters it must share (the side sharing fewer): two statements
MAX_NOTEBOOK_BYTES = 32 << 20           # a notebook larger than this is not read (the class run's limit)
MAX_SUBMISSIONS = 1000                  # ~500,000 pairs: about ten seconds
MAX_CODE_CHARS = 64 << 10               # one submission's compared cells together
MAX_TOTAL_CODE_CHARS = 16 << 20         # every submission's together
MAX_LISTED_PAIRS = 200                  # pairs printed, and listed in the report's table
MAX_SHOWN_PAIRS = 20                    # pairs shown side by side in the report, the most alike
MAX_SHOWN_LINES = 400                   # of each side of a pair shown
MAX_SHOWN_CHARS = 40_000
CONTEXT_LINES = 3                       # shown above the first shared line of a side that is cut
LANGUAGE = "python"


@dataclasses.dataclass
class Submission:
    """One learner's compared cells, as compared and as shown."""
    student: str
    code: str                 # the cells' code, one after the other
    compared: str             # the same, the release's lines and ``pass`` blanked (same length: offsets agree)
    given: set                # indexes of the lines of the release blanked
    cells: dict               # first line index -> the cell's label ("3 softmax_solution": position, grade id)
    fingerprint: object = None

    @property
    def own_code(self):
        """Has the learner written anything the release did not give?"""
        return bool(self.compared.strip())


@dataclasses.dataclass
class Pair:
    first: Submission
    second: Submission
    shares: tuple             # (share of first's code found in second's, and the other way)
    tokens: int               # filtered characters shared, on the side that shares fewer

    @property
    def score(self):
        return max(self.shares)

    def slices(self):
        """(2 x n array of [start, end) offsets of the shared code in first.code, the same for second);
        computed again when shown, so that a run keeps them for the pairs it shows only."""
        _, compare_files, _ = _copydetect()
        return compare_files(self.first.fingerprint, self.second.fingerprint)[2]


@dataclasses.dataclass
class Release:
    """What the release notebook gives."""
    cells: dict               # grade id -> (cell type, locked: nbgrader puts its code back, code)
    free: str                 # the code of its code cells it does not lock, one after the other
    code: list                # the code of every code cell (boilerplate)


class TooLarge(NotebookError):
    pass


def _copydetect():
    """copydetect's (CodeFingerprint, compare_files, get_token_coverage); imported here, so that the
    learner's commands never need it."""
    try:
        from copydetect import CodeFingerprint, compare_files
        from copydetect.utils import get_token_coverage
    except ImportError as error:
        raise NotebookError(f"similarity needs the copydetect package, which is not installed ({error}): "
                            "pip install -r requirements.txt") from None
    return CodeFingerprint, compare_files, get_token_coverage


def _cell_text(source):
    """A cell's code as compared: cleaned, bounded, without blank lines before or after (Pygments drops
    leading line breaks, which would move every offset copydetect gives)."""
    source = source if isinstance(source, str) else ""
    return safe.clean(source.replace("\r\n", "\n"), limit=MAX_CODE_CHARS + 1).strip("\n")


def _locked(nbgrader):
    """Does nbgrader put the release's code back into a cell of this metadata (``nbgrader.utils.is_locked``)?"""
    return not nbgrader.get("solution") and bool(nbgrader.get("grade") or nbgrader.get("locked"))


def _grade_id(nbgrader):
    grade_id = nbgrader.get("grade_id")
    return grade_id if isinstance(grade_id, str) else ""


def written_cells(notebook, release):
    """[(position, grade id or "", cell)] of the code cells nbgrader runs as the learner wrote them.

    As nbgrader's autograde sees them: ``DeduplicateIds`` takes the id of a graded, solution or locked
    cell away from every cell but the last that holds it; ``OverwriteCells`` drops an id the release does
    not have, gives a cell of a release id that cell's type, and puts the release's code back into a
    cell the release locks.  So the release, not the submission's metadata, says what is locked."""
    ids, seen = [], set()
    for cell in reversed(notebook.cells):
        nbgrader = notebooks.meta(cell)
        grade_id = _grade_id(nbgrader)
        if grade_id and (nbgrader.get("grade") or nbgrader.get("solution") or nbgrader.get("locked")):
            grade_id = "" if grade_id in seen else grade_id
            seen.add(grade_id)
        ids.append(grade_id)
    written = []
    for position, (cell, grade_id) in enumerate(zip(notebook.cells, reversed(ids))):
        given = release.cells.get(grade_id) if grade_id else None
        if given is None:
            grade_id, kind = "", cell.get("cell_type")
        elif given[1]:
            continue
        else:
            kind = given[0]
        if kind == "code":
            written.append((position, grade_id, cell))
    return written


def _blank_given(code, stub):
    """(code with every line kept from ``stub`` turned into spaces, indexes of those lines).  Blank lines
    are left out of the matching: they are the most common line, and would make it slow for nothing."""
    lines = code.split("\n")
    mine = [i for i, line in enumerate(lines) if line.strip()]
    given_lines = [line.strip() for line in stub.split("\n") if line.strip()]
    matcher = difflib.SequenceMatcher(None, given_lines, [lines[i].strip() for i in mine], autojunk=False)
    blanked = {mine[i] for block in matcher.get_matching_blocks() for i in range(block.b, block.b + block.size)}
    return "\n".join(" " * len(line) if i in blanked else line for i, line in enumerate(lines)), blanked


def _blank_pass(code):
    """``code`` with every ``pass`` statement turned into spaces: a statement that does nothing, so
    padding a copy with it changes nothing compared (Pygments' tokens, as copydetect's)."""
    if "pass" not in code:
        return code
    from pygments import lexers, token
    blanked = list(code)
    for start, kind, text in lexers.get_lexer_by_name(LANGUAGE).get_tokens_unprocessed(code):
        if kind in token.Keyword and text == "pass":
            blanked[start:start + 4] = "    "
    return "".join(blanked)


def read_submission(student, path, release):
    """The Submission in the notebook at ``path``; TooLarge when its cells hold more than MAX_CODE_CHARS."""
    notebook = notebooks.read_notebook(path)
    parts, given, cells, line, size = [], set(), {}, 0, 0
    for position, grade_id, cell in written_cells(notebook, release):
        code = _cell_text(cell.get("source", ""))
        if not code.strip():
            continue
        size += len(code) + bool(parts)
        if size > MAX_CODE_CHARS:
            raise TooLarge(f"more than {MAX_CODE_CHARS} characters of code in the cells nbgrader runs, more "
                           "than one submission may have compared (compare it by hand)")
        stub = release.cells[grade_id][2] if grade_id else release.free
        compared, blanked = _blank_given(code, stub) if stub.strip() else (code, set())
        cells[line] = f"{position + 1} {grade_id}".strip()
        given.update(line + i for i in blanked)
        parts.append((code, compared))
        line += code.count("\n") + 1
    return Submission(student, "\n".join(p[0] for p in parts), _blank_pass("\n".join(p[1] for p in parts)),
                      given, cells)


def release_code(exercise):
    """The Release of the exercise."""
    path = exercise.release_path
    if not path.is_file():
        raise NotebookError(f"{exercise.assignment}: no release {path} to leave its code out of the comparison "
                            f"(run nbgrader generate_assignment {exercise.assignment} first)")
    release = notebooks.read_notebook(path)
    cells = {}
    for cell in release.cells:
        nbgrader = notebooks.meta(cell)
        if _grade_id(nbgrader):
            cells[_grade_id(nbgrader)] = (cell.get("cell_type"), _locked(nbgrader), _cell_text(cell.get("source")))
    code = [c for c in release.cells if c.get("cell_type") == "code"]
    free = "\n".join(_cell_text(c.get("source")) for c in code if not _locked(notebooks.meta(c)))
    return Release(cells, free, [_cell_text(c.get("source")) for c in code])


def read_class(course, exercise):
    """(submissions, [(student, why it was left out)]) of the assignment, by student id."""
    folders = sorted(p for p in course.submitted.glob(f"*/{exercise.assignment}") if p.is_dir())
    if len(folders) > MAX_SUBMISSIONS:
        raise NotebookError(f"{exercise.assignment}: {len(folders)} submissions in {course.submitted}, more than "
                            f"the {MAX_SUBMISSIONS} one run compares")
    release = release_code(exercise)
    submissions, left_out, total = [], [], 0
    for folder in folders:
        student, path = folder.parent.name, folder / exercise.notebook
        try:
            if not path.is_file():
                left_out.append((student, f"no {exercise.notebook}"))
                continue
            size = path.stat().st_size
            if size > MAX_NOTEBOOK_BYTES:
                left_out.append((student, f"{exercise.notebook}: {size} bytes, more than the "
                                          f"{MAX_NOTEBOOK_BYTES} a notebook may have"))
                continue
            submission = read_submission(student, path, release)
        except NotebookError as error:
            left_out.append((student, str(error).replace(str(path), exercise.notebook)))
            continue
        except (OSError, RecursionError, MemoryError) as error:
            left_out.append((student, f"{exercise.notebook}: could not be read ({type(error).__name__})"))
            continue
        total += len(submission.code)
        if total > MAX_TOTAL_CODE_CHARS:
            raise NotebookError(f"{exercise.assignment}: the submissions hold more than "
                                f"{MAX_TOTAL_CODE_CHARS} characters of code in all, more than one run compares")
        submissions.append(submission)
    return submissions, left_out


def _fingerprint(name, code, boilerplate=frozenset(), blanked=False):
    """copydetect's CodeFingerprint of ``code`` (its ``pass`` blanked, unless it is already: ``blanked``),
    without the k-grams of ``boilerplate``.

    The boilerplate is taken out here rather than by copydetect's ``boilerplate`` argument, which
    (0.5.0) also drops all but one occurrence of a k-gram the learner's own code repeats: it calls
    numpy's ``intersect1d(..., assume_unique=True)`` on hashes that are not unique."""
    code_fingerprint, _, get_token_coverage = _copydetect()
    fingerprint = code_fingerprint(name, NOISE, WINDOW, fp=io.StringIO(code if blanked else _blank_pass(code)),
                                   language=LANGUAGE)
    for given in fingerprint.hashes & boilerplate:
        del fingerprint.hash_idx[given]
    fingerprint.hashes -= boilerplate
    fingerprint.token_coverage = get_token_coverage(fingerprint.hash_idx, NOISE, len(fingerprint.filtered_code))
    return fingerprint


def compare(submissions, given_code):
    """Every Pair of ``submissions`` that shares code, the most alike first; ``given_code``: the code of
    each code cell of the release (boilerplate: cell by cell, so no k-gram runs across two cells)."""
    _, compare_files, _ = _copydetect()
    boilerplate = frozenset().union(*(_fingerprint("release.py", code).hashes for code in given_code))
    for submission in submissions:
        submission.fingerprint = _fingerprint(f"{submission.student}.py", submission.compared, boilerplate,
                                              blanked=True)
    pairs = []
    for first, second in itertools.combinations(submissions, 2):
        if first.fingerprint.hashes.isdisjoint(second.fingerprint.hashes):
            continue
        tokens, shares, _ = compare_files(first.fingerprint, second.fingerprint)
        if tokens:
            shares = float(shares[0]), float(shares[1])
            fewer = min(int(tokens), round(shares[1] * second.fingerprint.token_coverage))
            pairs.append(Pair(first, second, shares, fewer))
    pairs.sort(key=lambda p: (-p.score, -p.tokens, p.first.student, p.second.student))
    return pairs


def flags(pair, threshold):
    """Is the pair reported: a share at or above ``threshold``, and more than one statement shared?"""
    return pair.score >= threshold and pair.tokens >= MIN_SHARED


def labels(course, students):
    """{student: how to show them}: the roster's "Name (id)" where there is a roster, else the id,
    quoted unless plain (``safe.quoted``: an id cannot forge a line or pass for another)."""
    try:
        from . import roster
        label = roster.label
    except (ImportError, AttributeError):   # an older checkout without the roster
        return {student: safe.quoted(student) for student in students}
    try:
        people = roster.by_student(course)
    except (NotebookError, AttributeError):   # a damaged roster (or an older one): by id
        people = {}
    return {student: label(course, student, people) if student in people else safe.quoted(student)
            for student in students}


def report_path(course, assignment):
    return Path(course.root) / REPORTS / assignment / "index.html"


def check_threshold(threshold):
    if not 0 < threshold <= 1:
        raise NotebookError(f"--threshold {threshold:g}: give a share between 0 and 1 (default {THRESHOLD:g})")
    return threshold


def similarity(course, assignment, threshold=THRESHOLD):
    """Compare the assignment's submissions and write the report: (path, pairs reported (``flags``),
    every pair that shares code, submissions compared, left out, labels)."""
    check_threshold(threshold)
    exercise = course.exercise(assignment)   # one line for an unknown assignment, before any path is made
    submissions, left_out = read_class(course, exercise)
    if len(submissions) < 2:
        skipped = f" ({len(left_out)} left out: {', '.join(safe.quoted(s) for s, _ in left_out[:3])})" \
            if left_out else ""
        raise NotebookError(f"{assignment}: {len(submissions)} submission(s) to compare in "
                            f"{course.submitted / '<student>' / assignment}{skipped}; similarity needs two or more")
    pairs = compare(submissions, release_code(exercise).code)
    flagged = [p for p in pairs if flags(p, threshold)]
    listed = flagged[:MAX_LISTED_PAIRS]
    shown = labels(course, sorted({s.student for p in listed for s in (p.first, p.second)}
                                  | {s for s, _ in left_out}))
    path = report_path(course, assignment)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        write_report(out, assignment, flagged, pairs, submissions, left_out, threshold, shown)
    return path, flagged, pairs, submissions, left_out, shown


# The report ------------------------------------------------------------------------------------------------

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #1a1a1a; }
.note { background: #fff7d6; border-left: 4px solid #d4a400; padding: .6rem 1rem; }
table.pairs { border-collapse: collapse; } table.pairs td, table.pairs th { padding: .2rem .7rem; text-align: left; }
table.pairs tr:nth-child(even) { background: #f3f3f3; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; margin-bottom: 2.5rem; }
.side { min-width: 0; } .side h3 { font-size: 1rem; margin: .3rem 0; }
pre { background: #fafafa; border: 1px solid #ddd; padding: .4rem 0; overflow-x: auto; font-size: .85rem; }
.line { display: block; padding-right: .5rem; line-height: 1.4; }
.no { display: inline-block; width: 3.5em; color: #888;
  text-align: right; padding-right: .8em; user-select: none; }
.line.shared .no { background: #ffd24d; color: #000; } mark { background: #ffe58a; }
.line.given { color: #999; } .cell { display: block; color: #555; font-style: italic; border-top: 1px dashed #bbb; }
.cut { display: block; color: #a33; font-style: italic; }
"""


def _e(text):
    return html.escape(str(text), quote=True)


def _marked(submission, slices):
    """A flag per character of the submission's code: is it inside a shared slice?  Not the blanks at
    either end of a slice (copydetect's offsets carry a slice's end over the blanks after it, the
    release's blanked lines too), nor a line the release gave."""
    code, compared = submission.code, submission.compared
    flags = bytearray(len(code))
    if getattr(slices, "ndim", 0) == 2:   # copydetect's 2 x n [start, end) offsets
        for start, end in zip(slices[0].tolist(), slices[1].tolist()):
            start, end = max(0, int(start)), min(len(code), int(end))
            end = start + len(compared[start:end].rstrip())
            start = end - len(compared[start:end].lstrip())
            flags[start:end] = b"\x01" * max(0, end - start)
    return flags


def _side(submission, slices, label):
    """One learner's cells, numbered, the shared code marked and the release's lines greyed; at most
    MAX_SHOWN_LINES lines and MAX_SHOWN_CHARS characters of them, from a little above the first shared
    line when they are more, saying what is not shown."""
    flags = _marked(submission, slices)
    lines = submission.code.split("\n")
    starts = list(itertools.accumulate((len(line) + 1 for line in lines[:-1]), initial=0))
    for number in submission.given:
        flags[starts[number]:starts[number] + len(lines[number])] = bytes(len(lines[number]))
    begin = 0
    if len(lines) > MAX_SHOWN_LINES or len(submission.code) > MAX_SHOWN_CHARS:
        first = next((n for n, start in enumerate(starts) if any(flags[start:start + len(lines[n])])), 0)
        begin = max(0, first - CONTEXT_LINES)
    rows, room, number = [], MAX_SHOWN_CHARS, begin
    if begin:
        rows.append(f'<span class="cut">lines 1-{begin} not shown</span>')
        above = max((n for n in submission.cells if n <= begin), default=None)
        if above is not None and above != begin:
            rows.append(f'<span class="cell">cell {_e(safe.terminal(submission.cells[above], limit=80))}</span>')
    while number < len(lines) and number - begin < MAX_SHOWN_LINES and room > 0:
        line, offset = lines[number], starts[number]
        if number in submission.cells:
            rows.append(f'<span class="cell">cell {_e(safe.terminal(submission.cells[number], limit=80))}</span>')
        cut = len(line) > room
        line = line[:room]
        room -= len(line) + 1
        pieces = []
        for shared, run in itertools.groupby(range(len(line)), key=lambda i: flags[offset + i]):
            run = list(run)
            text = _e(line[run[0]:run[-1] + 1])
            pieces.append(f"<mark>{text}</mark>" if shared else text)
        classes = ["line"] + (["given"] if number in submission.given else []) \
            + (["shared"] if any(flags[offset:offset + len(line)]) else [])
        rows.append(f'<span class="{" ".join(classes)}"><span class="no">{number + 1}</span>{"".join(pieces)}'
                    + (" [line cut]" if cut else "") + "</span>")
        number += 1
    if number < len(lines):
        rows.append(f'<span class="cut">lines {number + 1}-{len(lines)} not shown (at most {MAX_SHOWN_LINES} lines '
                    f"and {MAX_SHOWN_CHARS} characters of each side are)</span>")
    return f'<div class="side"><h3>{_e(label)}</h3><pre>{"".join(rows)}</pre></div>'


def write_report(out, assignment, flagged, pairs, submissions, left_out, threshold, shown):
    """The HTML report, written to ``out`` as it is built: every learner string escaped; no script,
    nothing loaded from anywhere; at most MAX_LISTED_PAIRS pairs listed, MAX_SHOWN_PAIRS side by side."""
    below = [p for p in pairs if not flags(p, threshold)]
    few = sum(p.score >= threshold for p in below)
    untouched = sum(not s.own_code for s in submissions)
    out.write('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
              "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
              f"<title>Similarity of {_e(assignment)}</title><style>{STYLE}</style></head><body>"
              f"<h1>Similar code: {_e(assignment)}</h1>"
              '<p class="note"><strong>For the instructor\'s judgement, never a grade.</strong> A high share says two '
              "submissions have code of the same shape; it does not say who wrote it, or that anyone copied: a small "
              "exercise has few ways to be solved (a short correct solution can share 100% with another written "
              "independently), and learners who worked together or used the same source look alike. A copy padded "
              "with dead code or split into helpers shares less. Read the code side by side, then talk to the "
              "students. Nothing here enters the gradebook.</p>"
              f"<p>{len(submissions)} submissions compared ({len(submissions) * (len(submissions) - 1) // 2} pairs), "
              "by every code cell nbgrader runs as the learner wrote it (not the locked cells, such as the tests). "
              "Left out: the code the release gives (greyed below) and <code>pass</code> statements; names, "
              "comments, strings and layout do not count. A pair is listed when the larger of its two shares (how "
              "much of one's code is also in the other's, in runs of at least "
              f"{NOISE} characters of tokenized code) is at least {threshold:.0%}, and both share at least "
              f"{MIN_SHARED} such characters.")
    if below:
        out.write(f" The most alike pair not listed shares {below[0].score:.0%}.")
    if few:
        out.write(f" {few} pair(s) at or above {threshold:.0%} share fewer than {MIN_SHARED} characters "
                  "(one line or so) and are not listed.")
    if untouched:
        out.write(f" {untouched} submission(s) hold no code of their own.")
    out.write("</p>")
    if left_out:
        out.write("<h2>Left out</h2><ul>" + "".join(f"<li>{_e(shown.get(s, safe.quoted(s)))}: {_e(why)}</li>"
                                                    for s, why in left_out) + "</ul>")
    if not flagged:
        out.write(f"<p><strong>No pair at or above {threshold:.0%}.</strong></p></body></html>\n")
        return
    listed, side_by_side = flagged[:MAX_LISTED_PAIRS], flagged[:MAX_SHOWN_PAIRS]
    out.write(f"<h2>{len(flagged)} pair(s) at or above {threshold:.0%}</h2>")
    if len(flagged) > len(side_by_side):
        out.write(f"<p>The {len(listed)} most alike are listed, the {len(side_by_side)} most alike shown side by "
                  f"side below; {len(flagged) - len(side_by_side)} more are not shown "
                  f"({len(flagged) - len(listed)} not listed either).</p>")
    out.write('<table class="pairs"><tr><th></th><th>student</th><th>share of their code</th><th>student</th>'
              "<th>share of their code</th><th>shared (tokenized characters)</th></tr>")
    for number, pair in enumerate(listed, 1):
        link = f'<a href="#pair-{number}">{number}</a>' if number <= len(side_by_side) else str(number)
        out.write(f"<tr><td>{link}</td><td>{_e(shown[pair.first.student])}</td><td>{pair.shares[0]:.0%}</td>"
                  f"<td>{_e(shown[pair.second.student])}</td><td>{pair.shares[1]:.0%}</td><td>{pair.tokens}</td></tr>")
    out.write("</table><p>Marked: the code both share (line numbers in yellow: the lines that hold it). "
              "Greyed: lines the release gave.</p>")
    for number, pair in enumerate(side_by_side, 1):
        first, second = pair.slices()
        out.write(f'<h2 id="pair-{number}">{number}. {_e(shown[pair.first.student])} and '
                  f"{_e(shown[pair.second.student])}: {pair.shares[0]:.0%} / {pair.shares[1]:.0%}</h2>"
                  '<div class="pair">' + _side(pair.first, first, shown[pair.first.student])
                  + _side(pair.second, second, shown[pair.second.student]) + "</div>")
    out.write("</body></html>\n")


# The command --------------------------------------------------------------------------------------------------

def add_parsers(commands):
    parser = commands.add_parser("similarity", help="pairs of submissions whose code is alike "
                                                    "(an HTML report for your judgement, never a grade)")
    parser.add_argument("assignment", help="e.g. 01_softmax")
    parser.add_argument("--threshold", type=float, default=THRESHOLD,
                        help=f"list the pairs whose larger share of shared code is at least this (0 to 1, "
                             f"default {THRESHOLD:g}; a pair must also share {MIN_SHARED} tokenized characters)")
    parser.add_argument("--course-root", help="course folder (default: the repository)")


def main(args):
    from . import course
    check_threshold(args.threshold)   # before the course is loaded: a typo costs nothing
    graded_course = course.from_config(course.load_config(args.course_root))
    path, flagged, pairs, submissions, left_out, shown = similarity(graded_course, args.assignment, args.threshold)
    count = len(submissions) * (len(submissions) - 1) // 2
    print(f"{args.assignment}: {len(flagged)} pair(s) of {len(submissions)} submissions at or above "
          f"{args.threshold:.0%} ({count} pairs compared)")
    for pair in flagged[:MAX_LISTED_PAIRS]:
        print(safe.terminal(f"  {pair.score:4.0%}  {shown[pair.first.student]} ~ {shown[pair.second.student]}: "
                            f"{pair.shares[0]:.0%} / {pair.shares[1]:.0%} of their code shared "
                            f"({pair.tokens} tokenized characters)"))
    if len(flagged) > MAX_LISTED_PAIRS:
        print(f"  ... and {len(flagged) - MAX_LISTED_PAIRS} more pair(s) at or above {args.threshold:.0%}, not "
              f"printed (the {MAX_LISTED_PAIRS} most alike are; the report shows {MAX_SHOWN_PAIRS} side by side)")
    few = sum(p.score >= args.threshold and not flags(p, args.threshold) for p in pairs)
    if few:
        print(f"  {few} pair(s) at or above {args.threshold:.0%} share fewer than {MIN_SHARED} tokenized characters "
              "(one line or so): not listed")
    for student, why in left_out:
        print(safe.terminal(f"  left out: {shown.get(student, safe.quoted(student))}: {why}"))
    print(safe.terminal(f"report: {path} (for your judgement, never a grade; nothing was written to the gradebook)"))
    return 0
