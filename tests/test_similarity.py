"""``python -m autograder similarity``: a class of softmax with two planted copies.

The class is eleven learners of 01_softmax.  Each keeps the release's ``def`` line and docstring and
writes a body below it, as a learner does; "book" hands in the source's own solution, the others
correct solutions written as different learners would.  Two are planted copies: "copier" hands in
"careful"'s cell as it is, "renamer" hands in "swapper"'s with every name changed, the layout and the
comments rewritten.  "short", "short_two" and "book" are alike only because softmax is three lines of
NumPy: they must stay below the threshold.
"""
import copy
import html
import itertools
import json
import re
import shutil
import subprocess
import sys

import nbformat
import pytest

from autograder import similarity
from autograder.__main__ import main as cli
from autograder.notebooks import meta
from helpers import REPO, course, exercise

ASSIGNMENT = "01_softmax"
STUB_BODY = "    # YOUR CODE HERE\n    raise NotImplementedError()"

BODIES = {
    "short": """\
    z = x - x.max(axis=axis, keepdims=True)  # stability
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)
""",
    "short_two": """\
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)
""",
    "amax": """\
    # subtract the largest score first so exp never overflows
    e = np.exp(x - np.amax(x, axis=axis, keepdims=True))
    s = np.sum(e, axis=axis, keepdims=True)
    return e / s
""",
    "rows": """\
    arr = np.array(x, dtype=float)
    moved = np.moveaxis(arr, axis, -1)
    flat = moved.reshape(-1, moved.shape[-1])
    out = np.zeros_like(flat)
    for i in range(flat.shape[0]):
        row = flat[i]
        biggest = row.max()
        ex = np.exp(row - biggest)
        out[i] = ex / ex.sum()
    return np.moveaxis(out.reshape(moved.shape), -1, axis)
""",
    "logsumexp": """\
    x = np.asarray(x, dtype=np.float64)
    c = x.max(axis=axis, keepdims=True)
    log_norm = c + np.log(np.exp(x - c).sum(axis=axis, keepdims=True))
    return np.exp(x - log_norm)
""",
    "expand": """\
    m = np.max(x, axis=axis)
    e = np.exp(x - np.expand_dims(m, axis))
    total = np.expand_dims(np.sum(e, axis=axis), axis)
    return e / total
""",
    "careful": """\
    values = np.asarray(x, dtype=float)
    if values.ndim == 0:
        return np.ones_like(values)
    ax = axis % values.ndim
    peak = np.max(values, axis=ax, keepdims=True)
    peak = np.where(np.isfinite(peak), peak, 0.0)
    powers = np.exp(values - peak)
    denominator = powers.sum(axis=ax, keepdims=True)
    result = powers / denominator
    assert result.shape == values.shape
    return result
""",
    "swapper": """\
    a = np.swapaxes(np.asarray(x, dtype=float), axis, -1)
    shift = a - a.max(axis=-1)[..., np.newaxis]
    num = np.exp(shift)
    den = num.sum(axis=-1)[..., np.newaxis]
    return np.swapaxes(num / den, -1, axis)
""",
    "renamer": """\
    # move the axis we normalise over to the end

    arr = np.swapaxes( np.asarray(x,dtype=float) ,
                       axis , -1 )
    centred = arr - arr.max(axis = -1)[..., np.newaxis]   # for stability

    top = np.exp( centred )
    bottom = top.sum(axis = -1)[..., np.newaxis]
    return np.swapaxes(top / bottom,
                       -1, axis)   # back where it was
""",
}
BODIES["copier"] = BODIES["careful"]
PLANTED = {frozenset({"careful", "copier"}), frozenset({"swapper", "renamer"})}


def book_body():
    """The source's solution, between its markers: the book's own correct code."""
    cell = next(c for c in exercise(ASSIGNMENT).source.notebook.cells if meta(c).get("solution")
                and c.cell_type == "code")
    lines = cell.source.splitlines()
    return "\n".join(lines[lines.index("    ### BEGIN SOLUTION") + 1:lines.index("    ### END SOLUTION")]) + "\n"


def release():
    return nbformat.read(exercise(ASSIGNMENT).release_path, as_version=4)


def hand_in(root, student, body=None, notebook=None):
    """The release notebook with ``body`` written under the solution cell's docstring (None: untouched)."""
    notebook = notebook or copy.deepcopy(release())
    cell = next(c for c in notebook.cells if meta(c).get("solution") and c.cell_type == "code")
    assert STUB_BODY in cell.source
    if body is not None:
        cell.source = cell.source.replace(STUB_BODY, body.rstrip("\n"))
    path = root / "autograder" / "submitted" / student / ASSIGNMENT / "softmax.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)
    return path


def scratch(tmp_path):
    root = course(tmp_path)
    shutil.copytree(REPO / "exercises" / ASSIGNMENT, root / "exercises" / ASSIGNMENT)
    return root


@pytest.fixture(scope="module")
def softmax_class(tmp_path_factory):
    root = scratch(tmp_path_factory.mktemp("similarity"))
    hand_in(root, "book", book_body())
    for student, body in BODIES.items():
        hand_in(root, student, body)
    return root


@pytest.fixture(scope="module")
def compared(softmax_class):
    """The default run, and its report as written then (a later test writes it again)."""
    from autograder.course import course_at
    result = similarity.similarity(course_at(softmax_class), ASSIGNMENT)
    return result, result[0].read_text(encoding="utf-8")


def pair_names(pair):
    return frozenset({pair.first.student, pair.second.student})


def test_the_planted_copies_are_found_and_nothing_else(compared):
    (path, flagged, pairs, submissions, left_out, _), _ = compared
    assert len(submissions) == 11 and not left_out
    assert {pair_names(p) for p in flagged} == PLANTED
    assert all(p.shares[0] > 0.99 and p.shares[1] > 0.99 for p in flagged)   # renamed, reformatted: all of it
    scores = {pair_names(p): p.score for p in pairs}
    # alike because the exercise is small: they share code (a statement or so), and stay well below the threshold
    for alike in ({"book", "short"}, {"book", "short_two"}, {"amax", "short_two"}):
        assert 0.3 < scores[frozenset(alike)] < similarity.THRESHOLD - 0.1, alike
        assert next(p for p in pairs if pair_names(p) == alike).tokens < similarity.MIN_SHARED
    assert max(p.score for p in pairs if pair_names(p) not in PLANTED) < similarity.THRESHOLD - 0.1


def test_the_threshold_lowered_shows_more_but_never_one_shared_statement(tmp_path):
    """A copy of half of someone's code shares 60% or so: listed at 0.5, not at the default.  The pairs
    alike by the exercise share one statement's worth (book and short: 64% of short's code, 32 tokenized
    characters) and stay out even at 0.3, and the report says how many such pairs there were."""
    root = scratch(tmp_path)
    for student in ("book", "short", "careful"):
        hand_in(root, student, book_body() if student == "book" else BODIES[student])
    half = BODIES["careful"].splitlines()[:6] \
        + ["    return np.exp(values) / np.exp(values).sum(axis=ax, keepdims=True)"]
    hand_in(root, "half", "\n".join(half) + "\n")
    from autograder.course import course_at
    graded = course_at(root)
    _, flagged, pairs, *_ = similarity.similarity(graded, ASSIGNMENT)
    assert not flagged
    copied = next(p for p in pairs if pair_names(p) == {"careful", "half"})
    assert 0.5 <= copied.score < similarity.THRESHOLD and copied.tokens >= similarity.MIN_SHARED
    path, flagged, pairs, *_ = similarity.similarity(graded, ASSIGNMENT, threshold=0.3)
    assert [pair_names(p) for p in flagged] == [{"careful", "half"}]
    alike = next(p for p in pairs if pair_names(p) == {"book", "short"})
    assert alike.score > 0.6 and alike.tokens < similarity.MIN_SHARED
    few = sum(p.score >= 0.3 and p.tokens < similarity.MIN_SHARED for p in pairs)
    assert few >= 1 and f"{few} pair(s) at or above 30% share fewer than {similarity.MIN_SHARED} characters" \
        in path.read_text(encoding="utf-8")


def test_one_shared_line_never_flags_a_pair(tmp_path, capsys):
    """A learner whose code is one line shares all of it with anyone who wrote that line (the instructor's
    trial: 82%, 27 tokenized characters); at 100% of one side it is still not reported."""
    line = "    return np.exp(x) / np.sum(np.exp(x), axis=axis, keepdims=True)\n"
    root = scratch(tmp_path)
    hand_in(root, "one_line", line)
    hand_in(root, "more", "    x = np.asarray(x, dtype=float)\n    assert x.ndim > 0, 'no scalars'\n" + line)
    hand_in(root, "other", BODIES["rows"])
    assert cli(["similarity", ASSIGNMENT, "--course-root", str(root), "--threshold", "0.1"]) == 0
    out = capsys.readouterr().out
    assert "0 pair(s) of 3 submissions" in out
    assert "pair(s) at or above 10% share fewer than 50 tokenized characters (one line or so): not listed" in out
    from autograder.course import course_at
    _, flagged, pairs, *_ = similarity.similarity(course_at(root), ASSIGNMENT)
    shared = next(p for p in pairs if pair_names(p) == {"one_line", "more"})
    assert shared.score == 1.0 and 0 < shared.tokens < similarity.MIN_SHARED and not flagged


def test_the_release_code_makes_no_one_alike(tmp_path):
    """Two learners who handed in the release untouched, and two who wrote different bodies under the
    docstring: the stub and the docstring every one of them kept count for nothing."""
    root = scratch(tmp_path)
    hand_in(root, "untouched_one")
    hand_in(root, "untouched_two")
    hand_in(root, "rows", BODIES["rows"])
    hand_in(root, "careful", BODIES["careful"])
    from autograder.course import course_at
    graded = course_at(root)
    path, flagged, pairs, submissions, *_ = similarity.similarity(graded, ASSIGNMENT)
    assert not flagged and not pairs   # not one k-gram shared
    untouched = next(s for s in submissions if s.student == "untouched_one")
    assert not untouched.own_code and untouched.code.strip()   # the stub is there, and blanked
    # The same code compared with nothing left out: the stub alone would make the two identical,
    # and the kept docstring would pair the two who wrote code.
    for submission in submissions:
        submission.compared = submission.code
    raw = {pair_names(p): p.score for p in similarity.compare(submissions, given_code=[])}
    assert raw[frozenset({"untouched_one", "untouched_two"})] == 1.0
    assert raw[frozenset({"rows", "careful"})] > 0.1
    assert "hold no code of their own" in path.read_text(encoding="utf-8")


def test_a_pasted_release_cell_counts_for_nothing(tmp_path):
    """Code of a non-solution cell of the release pasted into the solution cell is boilerplate."""
    root = scratch(tmp_path)
    test_cell = next(c.source for c in release().cells if meta(c).get("grade_id") == "test_softmax_visible")
    for student in ("one", "two"):
        hand_in(root, student, BODIES["rows"] if student == "one" else BODIES["careful"])
        path = root / "autograder" / "submitted" / student / ASSIGNMENT / "softmax.ipynb"
        notebook = nbformat.read(path, as_version=4)
        cell = next(c for c in notebook.cells if meta(c).get("solution") and c.cell_type == "code")
        cell.source += "\n\n" + test_cell
        nbformat.write(notebook, path)
    from autograder.course import course_at
    _, flagged, pairs, *_ = similarity.similarity(course_at(root), ASSIGNMENT)
    assert not pairs


def test_the_report_shows_the_pairs_side_by_side_offline(compared):
    (path, *_), page = compared
    assert path.parent.name == ASSIGNMENT and path.parent.parent.name == "similarity"
    assert "never a grade" in page and "gradebook" in page
    assert page.count('<div class="pair">') == 2
    assert "<mark>" in page and 'class="line given"' in page
    # the renamed copy's own names are shown, marked as shared
    assert "centred" in page and "denominator" in page
    assert "book" not in page.split("<h2")[1]   # only the flagged pairs are shown
    lowered = page.lower()
    assert "<script" not in lowered and "http://" not in lowered and "https://" not in lowered
    assert "<link" not in lowered and "src=" not in lowered
    assert "Content-Security-Policy" in page and "default-src 'none'" in page


def test_every_learner_string_is_escaped(tmp_path):
    root = scratch(tmp_path)
    evil = """\
    # </script><script>alert(1)</script>
    label = "<img src=x onerror=alert(2)>"
""" + BODIES["careful"]
    evil_id = "x<img src=y onerror=alert(3)>"
    hand_in(root, evil_id, evil)
    hand_in(root, "friend", evil)
    hand_in(root, "other", BODIES["rows"])
    from autograder.course import course_at
    path, flagged, *_ = similarity.similarity(course_at(root), ASSIGNMENT)
    assert [pair_names(p) for p in flagged] == [frozenset({evil_id, "friend"})]
    page = path.read_text(encoding="utf-8")
    for raw in ("</script>", "<script>", "<img", "onerror=alert(3)>"):
        assert raw not in page
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=alert(2)&gt;" in page
    assert "x&lt;img src=y onerror=alert(3)&gt;" in page


def test_the_roster_names_the_students(tmp_path, capsys):
    root = scratch(tmp_path)
    hand_in(root, "canvas-1", BODIES["swapper"])
    hand_in(root, "canvas-2", BODIES["renamer"])
    hand_in(root, "canvas-3", BODIES["rows"])
    (root / "autograder" / "roster.json").write_text(json.dumps({
        "lms": "canvas", "imported_from": "x.csv", "students": [
        {"student": "canvas-1", "name": "Zoë <b>Martin</b>"}, {"student": "canvas-2", "name": "Kenji Sato"}]}),
        encoding="utf-8")
    assert cli(["similarity", ASSIGNMENT, "--course-root", str(root)]) == 0
    out = capsys.readouterr().out
    assert "Zoë <b>Martin</b> (canvas-1) ~ Kenji Sato (canvas-2)" in out
    page = (root / "autograder" / "similarity" / ASSIGNMENT / "index.html").read_text(encoding="utf-8")
    assert "Zoë &lt;b&gt;Martin&lt;/b&gt; (canvas-1)" in page and "Kenji Sato (canvas-2)" in page


def test_the_command_prints_a_line_per_pair_and_the_report(softmax_class):
    run = subprocess.run([sys.executable, "-m", "autograder", "similarity", ASSIGNMENT,
                          "--course-root", str(softmax_class)], cwd=REPO, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == f"{ASSIGNMENT}: 2 pair(s) of 11 submissions at or above 80% (55 pairs compared)"
    pairs = [line for line in lines if " ~ " in line]
    assert len(pairs) == 2 and all(line.lstrip().startswith("100%") for line in pairs)
    assert any("careful ~ copier" in line or "copier ~ careful" in line for line in pairs)
    assert any("renamer" in line and "swapper" in line for line in pairs)
    report = softmax_class / "autograder" / "similarity" / ASSIGNMENT / "index.html"
    assert lines[-1].startswith(f"report: {report} ") and "never a grade" in lines[-1]
    assert not (softmax_class / "gradebook.db").exists()   # nothing enters a gradebook


def test_an_unknown_assignment_is_one_line(softmax_class):
    run = subprocess.run([sys.executable, "-m", "autograder", "similarity", "99_nothing",
                          "--course-root", str(softmax_class)], cwd=REPO, capture_output=True, text=True)
    assert run.returncode != 0 and run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1 and "no exercise named '99_nothing'" in run.stderr
    assert not (softmax_class / "autograder" / "similarity" / "99_nothing").exists()


def one_line_exit(args):
    with pytest.raises(SystemExit) as stop:
        cli(args)
    message = str(stop.value.code)
    assert stop.value.code not in (0, None) and len(message.splitlines()) == 1
    return message


def test_fewer_than_two_submissions_is_one_line(tmp_path):
    root = scratch(tmp_path)
    assert "0 submission(s) to compare" in one_line_exit(["similarity", ASSIGNMENT, "--course-root", str(root)])
    hand_in(root, "alone", BODIES["rows"])
    broken = root / "autograder" / "submitted" / "broken" / ASSIGNMENT / "softmax.ipynb"
    broken.parent.mkdir(parents=True)
    broken.write_text("{not json")
    message = one_line_exit(["similarity", ASSIGNMENT, "--course-root", str(root)])
    assert "1 submission(s) to compare" in message and "1 left out: broken" in message
    assert not (root / "autograder" / "similarity" / ASSIGNMENT).exists()


def test_a_bad_threshold_is_one_line(tmp_path):
    assert "--threshold 80" in one_line_exit(["similarity", ASSIGNMENT, "--threshold", "80"])


def test_without_copydetect_it_says_what_to_install(softmax_class, monkeypatch):
    monkeypatch.setitem(sys.modules, "copydetect", None)   # import copydetect raises ImportError
    message = one_line_exit(["similarity", ASSIGNMENT, "--course-root", str(softmax_class)])
    assert "needs the copydetect package" in message and "requirements.txt" in message


def test_inputs_are_bounded(tmp_path, monkeypatch, capsys):
    root = scratch(tmp_path)
    big = hand_in(root, "big", BODIES["careful"] + "    # padding\n" * 200)
    long = hand_in(root, "long", BODIES["rows"] + "    # padding\n" * 20)
    hand_in(root, "one", BODIES["swapper"])
    hand_in(root, "two", BODIES["renamer"])
    (root / "autograder" / "submitted" / "renamed" / ASSIGNMENT).mkdir(parents=True)
    (root / "autograder" / "submitted" / "renamed" / ASSIGNMENT / "mine.ipynb").write_text("{}")
    release_code = similarity.release_code(exercise(ASSIGNMENT))
    monkeypatch.setattr(similarity, "MAX_NOTEBOOK_BYTES", big.stat().st_size - 1)
    assert cli(["similarity", ASSIGNMENT, "--course-root", str(root)]) == 0
    out = capsys.readouterr().out
    assert f"left out: big: softmax.ipynb: {big.stat().st_size} bytes, more than the" in out
    assert "left out: renamed: no softmax.ipynb" in out
    assert "one ~ two" in out and "of 3 submissions" in out
    monkeypatch.setattr(similarity, "MAX_CODE_CHARS",
                        len(similarity.read_submission("long", long, release_code).code) - 1)
    assert cli(["similarity", ASSIGNMENT, "--course-root", str(root)]) == 0
    out = capsys.readouterr().out
    assert "left out: long:" in out and "compare it by hand" in out and "of 2 submissions" in out
    monkeypatch.setattr(similarity, "MAX_SUBMISSIONS", 4)
    assert "5 submissions" in one_line_exit(["similarity", ASSIGNMENT, "--course-root", str(root)])
    monkeypatch.setattr(similarity, "MAX_SUBMISSIONS", 1000)
    monkeypatch.setattr(similarity, "MAX_TOTAL_CODE_CHARS", 1000)
    assert "characters of code in all" in one_line_exit(["similarity", ASSIGNMENT, "--course-root", str(root)])


def with_cells(edit):
    """A copy of the release notebook, ``edit`` applied to its list of cells."""
    notebook = copy.deepcopy(release())
    edit(notebook.cells)
    return notebook


def test_code_in_any_cell_nbgrader_runs_is_compared(tmp_path):
    """nbgrader runs every code cell, so a learner who leaves the solution cell as released and writes the
    code in the "try it here" cell, in a cell of their own, or in a cell whose test id nbgrader takes away
    (an id held twice counts for the last cell only) is graded on it, and compared on it.  Code in a cell
    the release locks is not: nbgrader puts the release's code back.  The release decides what is locked,
    not the learner's metadata."""
    root = scratch(tmp_path)
    copied = "def softmax(x, axis=-1):\n" + BODIES["careful"]
    nbgrader = {"grade": True, "grade_id": "test_softmax_visible", "locked": True, "points": 1, "solution": False,
                "schema_version": 3}
    position = {c.get("metadata", {}).get("nbgrader", {}).get("grade_id"): n for n, c in enumerate(release().cells)}
    scratch_cell = next(n for n, c in enumerate(release().cells) if c.cell_type == "code" and not meta(c))

    def in_scratch(cells):
        cells[scratch_cell].source = copied

    def in_added(cells):
        cells.insert(position["softmax_solution"] + 1, nbformat.v4.new_code_cell(copied))

    def in_a_test_id(cells):   # before the real test cell: nbgrader takes the id away from this one
        cells.insert(position["test_softmax_visible"],
                     nbformat.v4.new_code_cell(copied, metadata={"nbgrader": nbgrader}))

    def in_locked(cells):
        cells[position["imports"]].source = "import numpy as np\n" + copied

    def forged_lock(cells):
        cells.append(nbformat.v4.new_code_cell("def softmax(x, axis=-1):\n" + BODIES["rows"], metadata={
            "nbgrader": {"grade": False, "grade_id": "mine", "locked": True, "solution": False}}))

    hand_in(root, "author", BODIES["careful"])
    hand_in(root, "rows", BODIES["rows"])
    for student, edit in (("scratch", in_scratch), ("added", in_added), ("test_id", in_a_test_id),
                          ("locked", in_locked), ("forged", forged_lock)):
        hand_in(root, student, notebook=with_cells(edit))
    from autograder.course import course_at
    path, flagged, pairs, submissions, *_ = similarity.similarity(course_at(root), ASSIGNMENT)
    copies = {"author", "scratch", "added", "test_id"}
    expected = {frozenset(p) for p in itertools.combinations(copies, 2)} | {frozenset({"forged", "rows"})}
    assert {pair_names(p) for p in flagged} == expected
    assert all(p.shares == (1.0, 1.0) for p in flagged)   # the def line they pasted is the release's: greyed
    assert not any("locked" in pair_names(p) for p in pairs)
    by_name = {s.student: s for s in submissions}
    assert not by_name["locked"].own_code and by_name["scratch"].own_code
    scratch_label = f"{scratch_cell + 1}"
    assert scratch_label in by_name["scratch"].cells.values()
    assert "softmax_solution" in by_name["author"].cells[0]
    page = path.read_text(encoding="utf-8")
    assert f'<span class="cell">cell {scratch_label}</span>' in page
    # the release's "try it here" line that "added" kept is greyed, and not marked as shared
    assert 'class="line given"><span class="no">' in page and "given shared" not in page
    assert "hold no code of their own" in page


def padded(body):
    """``body`` with a ``pass`` statement before each of its top-level statements."""
    return "".join(("    pass\n" + line) if line.startswith("    ") and not line.startswith("     ") else line
                   for line in body.splitlines(keepends=True))


def test_pass_statements_change_nothing(tmp_path, monkeypatch):
    root = scratch(tmp_path)
    hand_in(root, "careful", BODIES["careful"])
    hand_in(root, "padded", padded(BODIES["careful"]))
    hand_in(root, "rows", BODIES["rows"])
    assert padded(BODIES["careful"]).count("pass\n") == 10
    from autograder.course import course_at
    graded = course_at(root)
    path, flagged, *_ = similarity.similarity(graded, ASSIGNMENT)
    assert [(pair_names(p), p.shares) for p in flagged] == [({"careful", "padded"}, (1.0, 1.0))]
    assert "    pass" in path.read_text(encoding="utf-8")   # shown as written
    # without the blanking, the padding breaks the runs of shared tokens: that is what it is for
    monkeypatch.setattr(similarity, "_blank_pass", lambda code: code)
    _, flagged, pairs, *_ = similarity.similarity(graded, ASSIGNMENT)
    assert not flagged and max((p.score for p in pairs if pair_names(p) == {"careful", "padded"}), default=0) < 0.5


def test_only_pass_statements_are_blanked():
    code = "x.pass_ = 'pass'  # pass\nif x:\n    pass\nelse: pass; y = password\n"
    blanked = similarity._blank_pass(code)
    assert blanked == "x.pass_ = 'pass'  # pass\nif x:\n        \nelse:     ; y = password\n"
    assert len(blanked) == len(code)


def test_the_output_is_bounded(tmp_path, monkeypatch, capsys):
    """Four copies (six pairs): the terminal prints the first MAX_LISTED_PAIRS and says how many more, the
    report lists as many and shows MAX_SHOWN_PAIRS side by side, each side cut to its first shared lines."""
    root = scratch(tmp_path)
    for student in ("a", "b", "c", "d"):
        hand_in(root, student, BODIES["careful"])
    hand_in(root, "rows", BODIES["rows"])
    monkeypatch.setattr(similarity, "MAX_LISTED_PAIRS", 3)
    monkeypatch.setattr(similarity, "MAX_SHOWN_PAIRS", 2)
    monkeypatch.setattr(similarity, "MAX_SHOWN_LINES", 8)
    assert cli(["similarity", ASSIGNMENT, "--course-root", str(root)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{ASSIGNMENT}: 6 pair(s) of 5 submissions")
    assert sum(" ~ " in line for line in out) == 3
    assert ("  ... and 3 more pair(s) at or above 80%, not printed (the 3 most alike are; "
            "the report shows 2 side by side)") in out
    page = (root / "autograder" / "similarity" / ASSIGNMENT / "index.html").read_text(encoding="utf-8")
    assert page.count('<div class="pair">') == 2 and page.count("<tr><td>") == 3
    assert "the 2 most alike shown side by side below; 4 more are not shown (3 not listed either)" in page
    lines = len(hand_in_code(root, "a").split("\n"))
    first_shared = next(n for n, line in enumerate(hand_in_code(root, "a").split("\n")) if "asarray" in line)
    begin = first_shared - similarity.CONTEXT_LINES
    assert page.count(f'<span class="cut">lines 1-{begin} not shown</span>') == 4
    assert page.count(f"lines {begin + 9}-{lines} not shown (at most 8 lines") == 4
    side = page.split('<div class="side">')[1]
    assert side.count('class="line') == 8 and "<mark>" in side and "softmax_solution" in side
    monkeypatch.setattr(similarity, "MAX_SHOWN_CHARS", 100)
    assert cli(["similarity", ASSIGNMENT, "--course-root", str(root)]) == 0
    page = (root / "autograder" / "similarity" / ASSIGNMENT / "index.html").read_text(encoding="utf-8")
    side = page.split('<div class="side">')[1]
    shown = "".join(re.findall(r'<span class="no">\d+</span>(.*?)(?: \[line cut\])?</span>',
                               re.sub(r"</?mark>", "", side)))
    assert "[line cut]" in side and len(html.unescape(shown)) <= 100


def hand_in_code(root, student):
    return similarity.read_submission(student, root / "autograder" / "submitted" / student / ASSIGNMENT /
                                      "softmax.ipynb", similarity.release_code(exercise(ASSIGNMENT))).code


def test_student_ids_are_quoted_in_the_terminal(tmp_path, capsys):
    """An id with an escape sequence cannot pass for another: "copy<ESC>[2Kcat" is not "copycat"."""
    root = scratch(tmp_path)
    for student in ("copycat", "copy\x1b[2Kcat", "careful"):
        hand_in(root, student, BODIES["careful"])
    assert cli(["similarity", ASSIGNMENT, "--course-root", str(root)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out
    pairs = [line.split(": ")[0].split("  ")[-1] for line in out.splitlines() if " ~ " in line]
    assert sorted(pairs) == sorted(["careful ~ copycat", "careful ~ 'copy\\x1b[2Kcat'",
                                    "'copy\\x1b[2Kcat' ~ copycat"])
