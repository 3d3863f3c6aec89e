"""Issue 26: what a learner sees around the report: the language it chose, the progress across the
exercises (kept beside the notebooks), what comes after full marks, and work run but not saved."""
import json

import pytest

import helpers
from autograder import progress, selfcheck
from autograder.__main__ import main

WRONG = (helpers.SUBMISSIONS / "01_softmax" / "wrong" / "axis_ignored.py").read_text()
CORRECT = (helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py").read_text()
DOT_PRODUCT = (helpers.SUBMISSIONS / "04_dot_product" / "correct" / "loops.py").read_text()


def notebook(folder, assignment, code=None, name=None):
    """The exercise as a learner downloads it (filled in with ``code``), in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    exercise = helpers.exercise(assignment)
    path = folder / (name or exercise.notebook)
    if code is None:
        path.write_bytes(exercise.release_path.read_bytes())
        return path
    return helpers.write(helpers.submission(assignment, code), path)


def check(capsys, *argv):
    """(exit status, stdout lines, stderr) of `python -m autograder ...`."""
    said = ""
    try:
        status = main(list(map(str, argv)))
    except SystemExit as stop:   # sys.exit("one line"): the interpreter prints it on stderr, status 1
        status, said = (1, stop.code) if isinstance(stop.code, str) else (stop.code, "")
    out, err = capsys.readouterr()
    return status, out.splitlines(), err + said


@pytest.fixture(autouse=True)
def english(monkeypatch):
    from autograder import i18n
    for variable in i18n.ENVIRONMENT:
        monkeypatch.delenv(variable, raising=False)


# ------------------------------------------------------------------ the language, one visible choice
def test_the_report_says_its_language_what_chose_it_and_how_to_change_it(tmp_path, capsys, monkeypatch):
    path = notebook(tmp_path, "01_softmax", WRONG)
    language = [line for line in check(capsys, "check", path)[1] if line.startswith("Language:")]
    assert language == ['Language: English (the default). For Japanese: check_this_notebook(language="ja") in the '
                        'notebook, or --lang ja on the command line.']
    assert any(line.startswith("表示言語: 日本語（指定どおり）。英語にするには、ノートブックでは "
                               'check_this_notebook(language="en")') for line in check(capsys, "check", path, "--lang", "ja")[1])
    data = json.loads(path.read_text())
    data["metadata"]["attention_book"] = {"language": "ja"}
    path.write_text(json.dumps(data))
    assert any(line.startswith("表示言語: 日本語（ノートブックのメタデータによる）") for line in check(capsys, "check", path)[1])
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")
    assert any(line.startswith("Language: English (as asked).")
               for line in check(capsys, "check", path, "--lang", "en")[1])


# ------------------------------------------------------------------ progress
def test_each_self_check_is_recorded_beside_its_notebook_and_progress_lists_every_exercise(tmp_path, capsys):
    wrong = notebook(tmp_path / "01", "01_softmax", WRONG)
    solved = notebook(tmp_path / "04", "04_dot_product", DOT_PRODUCT, name="my copy.ipynb")
    notebook(tmp_path / "05", "05_general")            # downloaded, never checked
    notebook(tmp_path / "06", "06_scaled", name="renamed.ipynb")   # found by its graded cells
    status, lines, _ = check(capsys, "check", wrong)
    assert status == 0
    assert lines[-1] == ("Progress: 0 of 12 exercises at full marks here; next: 01_softmax. "
                         "(python -m autograder progress lists them.)"), lines
    record = json.loads((wrong.parent / progress.FILE).read_text())["notebooks"]["softmax.ipynb"]
    assert record["assignment"] == "01_softmax" and record["score"] < record["max_score"]
    assert "axis_ignored" in record["mistakes"] and record["full_marks"] is False
    status, lines, _ = check(capsys, "check", solved)
    # full marks on 04: the next one after it not done, as the report's "Next:" says
    assert "Next: exercise 05_general, general.ipynb, at the end of chapter 5." in lines, lines
    assert lines[-1].startswith("Progress: 1 of 12 exercises at full marks here; next: 05_general."), lines

    status, lines, _ = check(capsys, "progress", tmp_path)
    assert status == 0
    rows = {line.split()[0]: line for line in lines[1:]}
    assert list(rows) == [e.assignment for e in helpers.EXERCISES]
    assert "mistakes still named: axis_ignored" in rows["01_softmax"] and "01/softmax.ipynb" in rows["01_softmax"]
    assert "full marks (04/my copy.ipynb)" in rows["04_dot_product"]
    assert "not checked yet: python -m autograder check 05/general.ipynb" in rows["05_general"]
    assert "not checked yet: python -m autograder check 06/renamed.ipynb" in rows["06_scaled"]
    assert "missing: download seq2seq.ipynb from the end of chapter 2" in rows["02_seq2seq"]

    notebook(tmp_path / "01", "01_softmax", CORRECT)   # changed since its check
    rows = {line.split()[0]: line for line in check(capsys, "progress", tmp_path)[1][1:]}
    assert "changed since its last check (01/softmax.ipynb): run its self-check again" in rows["01_softmax"]


@pytest.mark.parametrize("content", [b"not json", b'{"notebooks": {"x.ipynb": {"assignment": 1}}}',
                                     b'{"notebooks": []}', b"[" * 100_000, b" " * (progress.MAX_BYTES + 1)],
                         ids=["not-json", "wrong-types", "wrong-shape", "deep", "too-large"])
def test_a_progress_file_that_is_not_ours_is_ignored_and_replaced(tmp_path, capsys, content):
    path = notebook(tmp_path, "01_softmax", WRONG)
    (tmp_path / progress.FILE).write_bytes(content)
    status, lines, _ = check(capsys, "progress", tmp_path)
    assert status == 0 and "not checked yet" in lines[1], lines
    status, lines, _ = check(capsys, "check", path)
    assert status == 0 and lines[-1].startswith("Progress: 0 of 12"), lines
    assert set(json.loads((tmp_path / progress.FILE).read_text())["notebooks"]) == {"softmax.ipynb"}


def test_progress_of_a_folder_that_is_not_there_is_one_line(tmp_path, capsys):
    status, lines, err = check(capsys, "progress", tmp_path / "nowhere")
    assert status != 0 and lines == [] and err.strip().endswith("no such folder, or it cannot be read") and "\n" not in err.strip()


def test_a_record_that_cannot_be_written_leaves_nothing_and_the_check_still_reports(tmp_path, capsys):
    path = notebook(tmp_path, "01_softmax", WRONG)
    (tmp_path / progress.FILE).mkdir()   # in the way, even for root
    status, lines, _ = check(capsys, "check", path)
    assert status == 0 and "4 / 7 points" in lines[0] and lines[-1].startswith("Progress: 0 of 12"), lines
    assert sorted(p.name for p in tmp_path.iterdir()) == [progress.FILE, "softmax.ipynb"]


# ------------------------------------------------------------------ after full marks
def test_full_marks_congratulate_point_to_the_next_exercise_and_offer_the_books_implementation(tmp_path, capsys):
    path = notebook(tmp_path, "01_softmax", CORRECT)
    status, lines, _ = check(capsys, "check", path)
    assert status == 0
    assert lines[-6:-1] == [
        'Language: English (the default). For Japanese: check_this_notebook(language="ja") in the notebook, or '
        '--lang ja on the command line.',
        "Every test passes: well done.",
        "Next: exercise 02_seq2seq, seq2seq.ipynb, at the end of chapter 2.",
        "To go further: section 9.2 of the book.",
        "To compare yours with the book's implementation: check_this_notebook(reference=True) in the notebook, "
        f"or python -m autograder check {path} --reference."], lines
    status, lines, _ = check(capsys, "check", path, "--reference")
    code = "\n".join(lines)
    assert status == 0 and "# attention/softmax.py\ndef softmax(x, axis=-1):" in code
    status, lines, _ = check(capsys, "check", path, "--reference", "--json")
    assert status == 0 and json.loads(lines[0])["reference"].startswith("# attention/softmax.py\ndef softmax(")


def test_the_next_exercise_is_the_first_not_done_and_the_last_one_says_so(tmp_path, capsys):
    code = next((helpers.SUBMISSIONS / "12_kv_cache" / "correct").glob("*.py")).read_text()
    path = notebook(tmp_path, "12_kv_cache", code)
    lines = check(capsys, "check", path)[1]
    assert "Next: exercise 01_softmax, softmax.ipynb, at the end of chapter 1." in lines, lines
    assert lines[-1].startswith("Progress: 1 of 12 exercises at full marks here; next: 01_softmax."), lines
    # the learner's own records of the eleven others at full marks (the file is theirs: it only informs them)
    records = json.loads((tmp_path / progress.FILE).read_text())
    for exercise in helpers.EXERCISES[:-1]:
        other = notebook(tmp_path, exercise.assignment)
        records["notebooks"][other.name] = {**records["notebooks"]["kv_cache.ipynb"], "assignment": exercise.assignment,
                                            "sha256": progress.digest(other)}
    (tmp_path / progress.FILE).write_text(json.dumps(records))
    lines = check(capsys, "check", path)[1]
    assert "That was the course's last exercise to do." in lines, lines
    assert lines[-1].startswith("Progress: all 12 exercises at full marks."), lines


def test_a_test_not_measured_is_not_full_marks():
    """Exercise 09's memory test without a memory cgroup (a laptop): every measured test passes, and
    still neither "well done" nor the book's implementation is given."""
    from autograder.results import Kind, Report, TestResult
    measured = [TestResult("test_a", 2.0, 2.0, ""), TestResult("test_b", 1.0, 1.0, "")]
    unmeasured = TestResult("test_memory", 0.0, 1.0, "not measured on this machine", Kind.NOT_MEASURED)
    assert selfcheck.full_marks(Report("09_online_softmax", "online_softmax", measured, []))
    assert not selfcheck.full_marks(Report("09_online_softmax", "online_softmax", [*measured, unmeasured], []))


def test_the_books_implementation_is_not_shown_before_full_marks(tmp_path, capsys):
    path = notebook(tmp_path, "01_softmax", WRONG)
    status, lines, err = check(capsys, "check", path, "--reference")
    assert status != 0 and "def softmax" not in "\n".join(lines)
    assert "the book's implementation is shown once every test passes (" in err
    assert not [line for line in lines if "well done" in line]


def test_a_course_that_turns_the_reference_off_offers_nothing(tmp_path, capsys):
    root = helpers.course(tmp_path)
    registry = root / "solutions" / "exercises.toml"
    registry.write_text(registry.read_text().replace('reference_code = "after-full-marks"', 'reference_code = "never"'))
    path = notebook(tmp_path / "learner", "01_softmax", CORRECT)
    status, lines, _ = check(capsys, "check", path, "--course-root", root)
    assert status == 0 and "Every test passes: well done." in lines
    assert not [line for line in lines if "reference" in line], lines
    status, lines, err = check(capsys, "check", path, "--course-root", root, "--reference")
    assert status != 0 and "this course does not offer the book's implementation" in err
    assert "def softmax" not in "\n".join(lines)


# ------------------------------------------------------------------ work run but not saved
@pytest.fixture
def kernel():
    """An IPython shell with its history in memory, as a kernel's (get_ipython() returns it)."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config
    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    InteractiveShell.clear_instance()   # a shell another test left would ignore this config
    shell = InteractiveShell.instance(config=config)
    selfcheck._RAN_AT.clear()
    selfcheck._SAID_UNSAVED.clear()
    yield shell
    InteractiveShell.clear_instance()
    selfcheck._RAN_AT.clear()
    selfcheck._SAID_UNSAVED.clear()


def _solution(path):
    cells = json.loads(path.read_text())["cells"]
    return next("".join(c["source"]) for c in cells if "def softmax" in "".join(c["source"]))


def test_code_run_but_not_saved_is_told_and_code_saved_but_not_run_is_told_apart(tmp_path, kernel):
    path = notebook(tmp_path, "01_softmax")     # the stub, as downloaded
    stub = _solution(path)
    kernel.run_cell(stub, store_history=True)
    assert selfcheck.unsaved_work(path) == ([], False)
    kernel.run_cell(CORRECT, store_history=True)   # typed and run, not saved: the saved stub ran first
    assert selfcheck.unsaved_work(path) == (["softmax"], True)
    notebook(tmp_path, "01_softmax", CORRECT)      # saved
    assert selfcheck.unsaved_work(path) == ([], False)
    notebook(tmp_path, "01_softmax", WRONG)        # changed and saved, never run: not said to be unsaved
    assert selfcheck.unsaved_work(path) == (["softmax"], False)
    kernel.run_cell(WRONG, store_history=True)
    assert selfcheck.unsaved_work(path) == ([], False)


def test_code_changed_and_saved_after_it_ran_is_the_latest_work_once_runs_are_timed(tmp_path, kernel):
    """From the first check on, the kernel notes when each cell starts: a solution run, then changed
    and saved, is graded as saved (the file is the latest word), not refused."""
    import os
    import time
    path = notebook(tmp_path, "01_softmax")
    selfcheck._watch_runs()
    kernel.run_cell(CORRECT, store_history=True)
    ran = time.time()
    notebook(tmp_path, "01_softmax", WRONG)              # changed and saved after it ran
    os.utime(path, (ran, ran))
    assert selfcheck.unsaved_work(path) == ([], False)
    time.sleep(0.01)
    kernel.run_cell(CORRECT + "\n# edited again", store_history=True)   # run after the save, not saved
    assert selfcheck.unsaved_work(path) == (["softmax"], True)


def test_the_progress_record_follows_the_code_not_the_saved_outputs(tmp_path, capsys):
    """The check cell's own output, saved after a check, does not make the notebook "changed"."""
    path = notebook(tmp_path, "01_softmax", CORRECT)
    check(capsys, "check", path)
    data = json.loads(path.read_text())
    data["cells"][-1]["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "7 / 7 points\n"}]
    path.write_text(json.dumps(data))
    rows = {line.split()[0]: line for line in check(capsys, "progress", tmp_path)[1][1:]}
    assert "full marks (softmax.ipynb)" in rows["01_softmax"], rows["01_softmax"]


def test_a_progress_entry_naming_a_pipe_or_a_device_is_skipped(tmp_path, capsys):
    import os
    path = notebook(tmp_path, "01_softmax", WRONG)
    check(capsys, "check", path)
    os.mkfifo(tmp_path / "pipe.ipynb")
    (tmp_path / "zero.ipynb").symlink_to("/dev/zero")
    records = json.loads((tmp_path / progress.FILE).read_text())
    for name in ("pipe.ipynb", "zero.ipynb"):
        records["notebooks"][name] = {**records["notebooks"]["softmax.ipynb"], "checked": "9999"}
    (tmp_path / progress.FILE).write_text(json.dumps(records))
    status, lines, _ = check(capsys, "progress", tmp_path)   # would hang reading the pipe
    assert status == 0 and "(softmax.ipynb)" in lines[1], lines


def test_a_cell_that_only_calls_the_self_check_never_runs_while_grading(tmp_path):
    """A learner asks for Japanese in a cell of their own: graded, it raises no NameError note; a cell
    that does anything else as well still runs."""
    from autograder import notebooks
    submission = helpers.submission("01_softmax", CORRECT)
    import nbformat
    asks = nbformat.v4.new_code_cell('check_this_notebook(language="ja")  # in Japanese')
    imports = nbformat.v4.new_code_cell('from autograder.selfcheck import check_this_notebook\n'
                                        'check_this_notebook(reference=True)')
    mixed = nbformat.v4.new_code_cell('check_this_notebook(language="ja")\nraise ValueError("ran")')
    submission.cells[-1:-1] = [asks, imports, mixed]
    sources = [source for _index, source in notebooks.learner_cells(submission)]
    assert asks.source not in sources and imports.source not in sources and mixed.source in sources


def test_on_windows_the_self_check_says_in_one_line_where_it_runs(tmp_path, capsys, monkeypatch):
    """The worker's limits are POSIX ones: on Windows the command says so, and where to check instead."""
    import os
    path = notebook(tmp_path, "01_softmax", CORRECT)
    monkeypatch.setattr(os, "name", "nt")
    status, lines, err = check(capsys, "check", path)
    assert status != 0 and lines == [] and "only Linux and macOS give; on Windows, use WSL" in err
    assert "\n" not in err.strip()


def test_progress_reads_renamed_notebooks_within_a_total_budget(tmp_path, monkeypatch):
    """Renamed copies are recognised by their cells, reading at most MAX_READ_BYTES in all."""
    from autograder import course
    first = notebook(tmp_path, "01_softmax", name="a-mine.ipynb")
    notebook(tmp_path, "04_dot_product", name="b-mine.ipynb")
    found = progress._found_notebooks(course.default_course(), [tmp_path])
    assert found == {"01_softmax": first, "04_dot_product": tmp_path / "b-mine.ipynb"}
    monkeypatch.setattr(progress, "MAX_READ_BYTES", first.stat().st_size + 1)
    assert progress._found_notebooks(course.default_course(), [tmp_path]) == {"01_softmax": first}


def test_when_no_front_end_names_the_notebook_the_call_to_make_keeps_the_options(tmp_path, kernel, capsys,
                                                                                 monkeypatch):
    """The call suggested keeps hint=True and the language, and names the notebook of the exercise
    whose functions this kernel defines when the folder holds several."""
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.chdir(tmp_path)
    notebook(tmp_path, "01_softmax", name="mine.ipynb")
    selfcheck.check_this_notebook(hint=True)
    assert 'In a new cell: check_this_notebook("mine.ipynb", hint=True)' in capsys.readouterr().out
    notebook(tmp_path, "04_dot_product")
    notebook(tmp_path, "01_softmax", name="copy.ipynb")
    selfcheck.check_this_notebook(language="ja", hint=True)
    out = capsys.readouterr().out
    assert "In a new cell" not in out and "新しいセル" not in out   # nothing defined: no file can be told
    kernel.run_cell(DOT_PRODUCT)
    selfcheck.check_this_notebook(hint=True, language="en")
    out = capsys.readouterr().out
    assert 'In a new cell: check_this_notebook("dot_product.ipynb", language="en", hint=True)' in out, out
    kernel.run_cell(CORRECT)   # both exercises defined: each of their notebooks is a choice
    selfcheck.check_this_notebook()
    assert ('In a new cell: check_this_notebook("copy.ipynb") or check_this_notebook("dot_product.ipynb") or '
            'check_this_notebook("mine.ipynb")' in capsys.readouterr().out)
