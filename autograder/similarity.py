"""Pairs of submissions whose solution code is alike: ``python -m autograder similarity ASSIGNMENT``.

For the instructor's judgement, never a grade: nothing here reads or writes the gradebook.  For every
pair of an assignment's submissions (``autograder/submitted/<student>/<assignment>/<notebook>``), the
code of the learner's solution cells (nbgrader's ``solution`` code cells) is compared with copydetect
(a Python package, MIT licence), MOSS's winnowing: each program is tokenized by Pygments, names become ``V``/``F``,
strings ``S``, comments and whitespace go, and the pair shares the k-grams (runs of ``NOISE``
characters of that filtered text) both hold.  Renaming variables, reformatting and rewriting comments
therefore change nothing; what is left is the shape of the code.  A pair's score is the larger of the
two shares (how much of one learner's code is in the other's), so copying someone's code and adding to
it is still found; the report shows both.

The code the release gives is left out, twice: in each solution cell, the lines of the release's stub
that the learner kept (the ``def`` line, the docstring, ``raise NotImplementedError()``) are blanked
before the comparison (space for space, so the report still shows them, greyed); and every k-gram of
any code cell of the release notebook (``exercises/<assignment>/<notebook>``) is boilerplate, never
counted (a learner who pasted a visible test into a cell shares nothing by it).
Cells that are not solution cells are not read.  Two learners who handed in the release untouched
share nothing.

The settings, and why (``tests/test_similarity.py`` holds the class they were chosen on):

* ``NOISE = 25`` filtered characters: one NumPy statement of an exercise this small is about 20 of
  them (``V=V-V.V(V,V=V,V=True)`` is 21), so a match must run over more than one statement before it
  counts; at 20, independent solutions already share single statements (the book's and one
  learner's ``peak = np.max(values, axis=ax, keepdims=True)``: 34%).
* ``WINDOW = 1``: every k-gram is kept (copydetect's ``guarantee_t`` equal to ``noise_t``).  The
  solutions are a few hundred characters, so winnowing would save nothing; and Python salts ``hash()``
  per process, so a larger window would keep other k-grams on every run and change the scores.
* ``THRESHOLD = 0.8``: on the test class of softmax, independent correct solutions that look alike
  because there are few ways to write three lines of NumPy (the book's own and a learner's
  ``e = np.exp(x - x.max(...)); return e / e.sum(...)``) share at most 64%; an exact copy and a
  renamed, reformatted one share 100%.  ``--threshold`` lowers it to see more.

Two learners who wrote the same two lines independently cannot be told apart from a copy by any tool:
the report shows the shared code, side by side, and the judgement is the instructor's.

Bounds: each notebook (``MAX_NOTEBOOK_BYTES``, as the class run), the number of submissions
(``MAX_SUBMISSIONS``), one submission's solution code (``MAX_CODE_CHARS``; a larger one is left out and
named) and all of them (``MAX_TOTAL_CODE_CHARS``).  Everything a learner wrote (code, cell ids, folder
names) is escaped in the HTML, which runs no script and loads nothing (a Content-Security-Policy says
so too), and made safe for the terminal (``safe``).
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
MAX_NOTEBOOK_BYTES = 32 << 20           # a notebook larger than this is not read (the class run's limit)
MAX_SUBMISSIONS = 1000                  # ~500,000 pairs: about ten seconds
MAX_CODE_CHARS = 64 << 10               # one submission's solution cells together
MAX_TOTAL_CODE_CHARS = 16 << 20         # every submission's together
LANGUAGE = "python"


@dataclasses.dataclass
class Submission:
    """One learner's solution cells, as compared and as shown."""
    student: str
    code: str                 # the solution cells' code, one after the other
    compared: str             # the same, the release's lines blanked (same length: offsets agree)
    given: set                # indexes of the lines blanked
    cells: dict               # first line index -> the cell's grade id
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
    tokens: int               # filtered characters shared
    slices: tuple             # (2 x n array of [start, end) offsets in first.code, the same for second)

    @property
    def score(self):
        return max(self.shares)


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
    return safe.clean(source.replace("\r\n", "\n"))


def _solution_cells(notebook):
    return [c for c in notebook.cells if c.get("cell_type") == "code" and notebooks.meta(c).get("solution")]


def _blank_given(code, stub):
    """(code with every line kept from ``stub`` turned into spaces, indexes of those lines)."""
    lines = code.split("\n")
    given_lines = [line.strip() for line in stub.split("\n")]
    matcher = difflib.SequenceMatcher(None, given_lines, [line.strip() for line in lines], autojunk=False)
    blanked = set()
    for block in matcher.get_matching_blocks():
        blanked.update(i for i in range(block.b, block.b + block.size) if lines[i].strip())
    return "\n".join(" " * len(line) if i in blanked else line for i, line in enumerate(lines)), blanked


def read_submission(student, path, stubs):
    """The Submission in the notebook at ``path``; ``stubs`` {grade id: the release's code of that cell}."""
    notebook = notebooks.read_notebook(path)
    parts, given, cells, line = [], set(), {}, 0
    for cell in _solution_cells(notebook):
        grade_id = notebooks.meta(cell).get("grade_id")
        grade_id = grade_id if isinstance(grade_id, str) else ""
        code = _cell_text(cell.source)
        stub = stubs.get(grade_id)
        compared, blanked = _blank_given(code, stub) if stub is not None else (code, set())
        cells[line] = grade_id
        given.update(line + i for i in blanked)
        parts.append((code, compared))
        line += code.count("\n") + 1
    return Submission(student, "\n".join(p[0] for p in parts), "\n".join(p[1] for p in parts), given, cells)


def release_code(exercise):
    """({grade id: code} of the release's solution cells, [code of every code cell of the release])."""
    path = exercise.release_path
    if not path.is_file():
        raise NotebookError(f"{exercise.assignment}: no release {path} to leave its code out of the comparison "
                            f"(run nbgrader generate_assignment {exercise.assignment} first)")
    release = notebooks.read_notebook(path)
    stubs = {notebooks.meta(c).get("grade_id"): _cell_text(c.source) for c in _solution_cells(release)}
    return stubs, [_cell_text(c.source) for c in release.cells if c.get("cell_type") == "code"]


def read_class(course, exercise):
    """(submissions, [(student, why it was left out)]) of the assignment, by student id."""
    folders = sorted(p for p in course.submitted.glob(f"*/{exercise.assignment}") if p.is_dir())
    if len(folders) > MAX_SUBMISSIONS:
        raise NotebookError(f"{exercise.assignment}: {len(folders)} submissions in {course.submitted}, more than "
                            f"the {MAX_SUBMISSIONS} one run compares")
    stubs, _ = release_code(exercise)
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
            submission = read_submission(student, path, stubs)
        except NotebookError as error:
            left_out.append((student, str(error).replace(str(path), exercise.notebook)))
            continue
        except (OSError, RecursionError, MemoryError) as error:
            left_out.append((student, f"{exercise.notebook}: could not be read ({type(error).__name__})"))
            continue
        if len(submission.code) > MAX_CODE_CHARS:
            left_out.append((student, f"{len(submission.code)} characters of solution code, more than the "
                                      f"{MAX_CODE_CHARS} compared (compare it by hand)"))
            continue
        total += len(submission.code)
        if total > MAX_TOTAL_CODE_CHARS:
            raise NotebookError(f"{exercise.assignment}: the solution cells hold more than "
                                f"{MAX_TOTAL_CODE_CHARS} characters of code in all, more than one run compares")
        submissions.append(submission)
    return submissions, left_out


def _fingerprint(name, code, boilerplate=frozenset()):
    """copydetect's CodeFingerprint of ``code``, without the k-grams of ``boilerplate``.

    The boilerplate is taken out here rather than by copydetect's ``boilerplate`` argument, which
    (0.5.0) also drops all but one occurrence of a k-gram the learner's own code repeats: it calls
    numpy's ``intersect1d(..., assume_unique=True)`` on hashes that are not unique."""
    code_fingerprint, _, get_token_coverage = _copydetect()
    fingerprint = code_fingerprint(name, NOISE, WINDOW, fp=io.StringIO(code), language=LANGUAGE)
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
        submission.fingerprint = _fingerprint(f"{submission.student}.py", submission.compared, boilerplate)
    pairs = []
    for first, second in itertools.combinations(submissions, 2):
        if not first.fingerprint.hashes & second.fingerprint.hashes:
            continue
        tokens, shares, slices = compare_files(first.fingerprint, second.fingerprint)
        if tokens:
            pairs.append(Pair(first, second, (float(shares[0]), float(shares[1])), int(tokens), slices))
    pairs.sort(key=lambda p: (-p.score, -p.tokens, p.first.student, p.second.student))
    return pairs


def labels(course, students):
    """{student: how to show them}: the roster's "Name (id)" where there is a roster, else the id."""
    try:
        from . import roster
        label = roster.label
    except (ImportError, AttributeError):   # an older checkout without the roster
        return {student: student for student in students}
    return {student: label(course, student) for student in students}


def report_path(course, assignment):
    return Path(course.root) / REPORTS / assignment / "index.html"


def check_threshold(threshold):
    if not 0 < threshold <= 1:
        raise NotebookError(f"--threshold {threshold:g}: give a share between 0 and 1 (default {THRESHOLD:g})")
    return threshold


def similarity(course, assignment, threshold=THRESHOLD):
    """Compare the assignment's submissions and write the report: (path, pairs at or above ``threshold``,
    every pair that shares code, submissions compared, left out, labels)."""
    check_threshold(threshold)
    exercise = course.exercise(assignment)   # one line for an unknown assignment, before any path is made
    submissions, left_out = read_class(course, exercise)
    if len(submissions) < 2:
        skipped = f" ({len(left_out)} left out: {', '.join(safe.quoted(s) for s, _ in left_out[:3])})" \
            if left_out else ""
        raise NotebookError(f"{assignment}: {len(submissions)} submission(s) to compare in "
                            f"{course.submitted / '<student>' / assignment}{skipped}; similarity needs two or more")
    _, given_code = release_code(exercise)
    pairs = compare(submissions, given_code)
    flagged = [p for p in pairs if p.score >= threshold]
    shown = labels(course, sorted({s.student for p in flagged for s in (p.first, p.second)}
                                  | {s for s, _ in left_out}))
    path = report_path(course, assignment)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render(assignment, flagged, pairs, submissions, left_out, threshold, shown), encoding="utf-8")
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
.line { display: block; padding-right: .5rem; line-height: 1.4; } .no { display: inline-block; width: 3.5em; color: #888;
  text-align: right; padding-right: .8em; user-select: none; }
.line.shared .no { background: #ffd24d; color: #000; } mark { background: #ffe58a; }
.line.given { color: #999; } .cell { display: block; color: #555; font-style: italic; border-top: 1px dashed #bbb; }
"""


def _e(text):
    return html.escape(str(text), quote=True)


def _marked(code, slices):
    """A flag per character of ``code``: is it inside a shared slice?"""
    flags = bytearray(len(code))
    if getattr(slices, "ndim", 0) == 2:   # copydetect's 2 x n [start, end) offsets
        for start, end in zip(slices[0].tolist(), slices[1].tolist()):
            start, end = max(0, int(start)), min(len(code), int(end))
            flags[start:end] = b"\x01" * max(0, end - start)
    return flags


def _side(submission, slices, label):
    """One learner's solution cells, numbered, the shared code marked and the release's lines greyed."""
    flags = _marked(submission.code, slices)
    rows, offset = [], 0
    for number, line in enumerate(submission.code.split("\n")):
        if number in submission.cells:
            rows.append(f'<span class="cell">cell {_e(safe.terminal(submission.cells[number], limit=80))}</span>')
        pieces = []
        for shared, run in itertools.groupby(range(len(line)), key=lambda i: flags[offset + i]):
            run = list(run)
            text = _e(line[run[0]:run[-1] + 1])
            pieces.append(f"<mark>{text}</mark>" if shared else text)
        classes = ["line"] + (["given"] if number in submission.given else []) \
            + (["shared"] if any(flags[offset:offset + len(line)]) else [])
        rows.append(f'<span class="{" ".join(classes)}"><span class="no">{number + 1}</span>{"".join(pieces)}</span>')
        offset += len(line) + 1
    return f'<div class="side"><h3>{_e(label)}</h3><pre>{"".join(rows)}</pre></div>'


def render(assignment, flagged, pairs, submissions, left_out, threshold, shown):
    """The HTML report: every learner string escaped; no script, nothing loaded from anywhere."""
    below = [p for p in pairs if p.score < threshold]
    untouched = sum(not s.own_code for s in submissions)
    out = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
           f"<title>Similarity of {_e(assignment)}</title><style>{STYLE}</style></head><body>",
           f"<h1>Similar solution code: {_e(assignment)}</h1>",
           '<p class="note"><strong>For the instructor\'s judgement, never a grade.</strong> A high share says two '
           "submissions' solution cells have code of the same shape; it does not say who wrote it, or that anyone "
           "copied: a small exercise has few ways to be solved, and learners who worked together or used the same "
           "source look alike. Read the code side by side, then talk to the students. Nothing here enters the "
           "gradebook.</p>",
           f"<p>{len(submissions)} submissions compared ({len(submissions) * (len(submissions) - 1) // 2} pairs), "
           f"by their solution cells only. Left out: the code the release gives (greyed below) and every cell that "
           f"is not a solution cell; names, comments, strings and layout do not count. A pair is listed when the "
           f"larger of its two shares (how much of one's code is also in the other's, in runs of at least {NOISE} "
           f"characters of tokenized code) is at least {threshold:.0%}.",
           f" The most alike pair below that shares {below[0].score:.0%}." if below else "",
           f" {untouched} submission(s) hold no code of their own in the solution cells." if untouched else "",
           "</p>"]
    if left_out:
        out.append("<h2>Left out</h2><ul>" + "".join(f"<li>{_e(shown.get(s, s))}: {_e(why)}</li>"
                                                      for s, why in left_out) + "</ul>")
    if not flagged:
        out.append(f"<p><strong>No pair at or above {threshold:.0%}.</strong></p>")
    else:
        out.append(f"<h2>{len(flagged)} pair(s) at or above {threshold:.0%}</h2>"
                   '<table class="pairs"><tr><th></th><th>student</th><th>share of their code</th><th>student</th>'
                   "<th>share of their code</th><th>shared (tokenized characters)</th></tr>")
        for number, pair in enumerate(flagged, 1):
            out.append(f'<tr><td><a href="#pair-{number}">{number}</a></td>'
                       f"<td>{_e(shown[pair.first.student])}</td><td>{pair.shares[0]:.0%}</td>"
                       f"<td>{_e(shown[pair.second.student])}</td><td>{pair.shares[1]:.0%}</td>"
                       f"<td>{pair.tokens}</td></tr>")
        out.append("</table><p>Marked: the code both share (line numbers in yellow: the lines that hold it). "
                   "Greyed: lines the release gave.</p>")
        for number, pair in enumerate(flagged, 1):
            out.append(f'<h2 id="pair-{number}">{number}. {_e(shown[pair.first.student])} and '
                       f"{_e(shown[pair.second.student])}: {pair.shares[0]:.0%} / {pair.shares[1]:.0%}</h2>"
                       '<div class="pair">'
                       + _side(pair.first, pair.slices[0], shown[pair.first.student])
                       + _side(pair.second, pair.slices[1], shown[pair.second.student]) + "</div>")
    out.append("</body></html>\n")
    return "".join(out)


# The command --------------------------------------------------------------------------------------------------

def add_parsers(commands):
    parser = commands.add_parser("similarity", help="pairs of submissions whose solution cells are alike "
                                                    "(an HTML report for your judgement, never a grade)")
    parser.add_argument("assignment", help="e.g. 01_softmax")
    parser.add_argument("--threshold", type=float, default=THRESHOLD,
                        help=f"list the pairs whose larger share of shared code is at least this (0 to 1, "
                             f"default {THRESHOLD:g})")
    parser.add_argument("--course-root", help="course folder (default: the repository)")


def main(args):
    from . import course
    check_threshold(args.threshold)   # before the course is loaded: a typo costs nothing
    graded_course = course.from_config(course.load_config(args.course_root))
    path, flagged, pairs, submissions, left_out, shown = similarity(graded_course, args.assignment, args.threshold)
    count = len(submissions) * (len(submissions) - 1) // 2
    print(f"{args.assignment}: {len(flagged)} pair(s) of {len(submissions)} submissions at or above "
          f"{args.threshold:.0%} ({count} pairs compared)")
    for pair in flagged:
        print(safe.terminal(f"  {pair.score:4.0%}  {shown[pair.first.student]} ~ {shown[pair.second.student]}: "
                            f"{pair.shares[0]:.0%} / {pair.shares[1]:.0%} of their solution code shared "
                            f"({pair.tokens} tokenized characters)"))
    for student, why in left_out:
        print(safe.terminal(f"  left out: {shown.get(student, student)}: {why}"))
    print(safe.terminal(f"report: {path} (for your judgement, never a grade; nothing was written to the gradebook)"))
    return 0
