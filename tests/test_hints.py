"""Issue 26, graded hints: `python -m autograder check NB --hint` and `check_this_notebook(hint=True)`.

Every catalogued mistake has two or three hints, never code, in both languages; each shows, in turn,
for its mistake (``tests/test_catalogue.py`` grades every wrong implementation and asks for its
hints); the command line shows them one at a time instead of the report, for the first mistake that
a failing test names."""
import json
import re

import pytest

import helpers
from autograder import hints, i18n
from autograder.checks import SHARED_MISTAKES
from test_learner_progress import check, english, notebook  # noqa: F401  (english: an autouse fixture)

CORRECT = (helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py").read_text()
MISTAKES = [(exercise.assignment, mistake) for exercise in helpers.EXERCISES
            for mistake in exercise.catalogue.MISTAKES] + [("shared", mistake) for mistake in SHARED_MISTAKES]


def code_in(hint):
    """What in ``hint`` reads as code (a hint says where to look and what to compare, never the fix)."""
    found = [f"`{span}`" for span in re.findall(r"`([^`]*)`", hint) if not re.fullmatch(r"[A-Za-z_][\w.]*", span)]
    found += re.findall(r"[=@;{}]", hint) + re.findall(r"[A-Za-z_]\w*\.\w+\(", hint)
    return found


@pytest.mark.parametrize("where, mistake", MISTAKES, ids=[f"{w}/{m.id}" for w, m in MISTAKES])
def test_every_mistake_has_two_or_three_hints_without_code_in_both_languages(where, mistake):
    assert 2 <= len(mistake.hints) <= 3, f"{mistake.id}: {len(mistake.hints)} hints"
    assert len(set(mistake.hints)) == len(mistake.hints) and mistake.message not in mistake.hints
    for hint in mistake.hints:
        assert not code_in(hint), f"{mistake.id}: code in a hint: {code_in(hint)}: {hint!r}"
        assert "\n" not in hint and len(hint) <= 320, hint
        with i18n.language("ja"):
            japanese = i18n._(hint)
        assert japanese != hint, f"{mistake.id}: not translated: {hint!r}"
        assert re.findall(r"`[^`]*`", japanese) == re.findall(r"`[^`]*`", hint), japanese
        # an order, not a condition (引けば is one)
        assert not re.search(r"あなた|[せしろ]よ。|(引け|使え|割れ|返せ|開け)(?!ば)", japanese), f"an order: {japanese}"


def test_a_hint_at_a_time_instead_of_the_report_then_the_report_names_the_mistake(tmp_path, capsys):
    wrong = (helpers.SUBMISSIONS / "01_softmax" / "wrong" / "fixed_axis.py").read_text()
    path = notebook(tmp_path, "01_softmax", wrong)
    mistake = hints.catalogued(helpers.exercise("01_softmax"))["fixed_axis"]
    count = len(mistake.hints)
    for number in range(1, count + 2):
        status, out, err = check(capsys, "check", path, "--hint")
        assert status == 0 and not err, err
        # the visible test fails first, asserting only: the hint is for the first hidden test naming the mistake
        assert out[0] == "01_softmax: 0 / 7 points; a hint for the failing test test_softmax_random.", out
        shown = min(number, count)   # each run adds the next hint to those before it
        assert out[1:1 + shown] == [f"Hint {k} of {count}: {mistake.hints[k - 1]}" for k in range(1, shown + 1)]
        assert out[1 + shown] == ("Ask again for the next hint: run the same cell or command again." if number < count
                                  else "That was the last hint for this mistake: the self-check without the hint "
                                       "option names it.")
        assert mistake.message not in "\n".join(out)   # the hint stands in for the message
    # The report itself still names the mistake, and keeps the count: the next hint is still the last one.
    assert any(mistake.message in line for line in check(capsys, "check", path)[1])
    status, out, _err = check(capsys, "check", path, "--hint", "--json")
    assert json.loads("\n".join(out))["hint"] == {"test": "test_softmax_random", "text": mistake.hints[-1],
                                                   "mistake": "fixed_axis", "number": count, "count": count,
                                                   "earlier": list(mistake.hints[:-1]), "others": 0, "kept": True}
    # In Japanese, the translated hints.
    status, out, _err = check(capsys, "check", path, "--hint", "--lang", "ja")
    with i18n.language("ja"):
        assert any(i18n._(mistake.hints[-1]) in line for line in out), out
    # Fixed, the mistake's count goes; made again, its hints start from the first.
    check(capsys, "check", notebook(tmp_path, "01_softmax", CORRECT))
    notebook(tmp_path, "01_softmax", wrong)
    assert check(capsys, "check", path, "--hint")[1][1] == f"Hint 1 of {count}: {mistake.hints[0]}"


def test_a_syntax_error_is_said_first_and_other_mistakes_are_counted(tmp_path, capsys):
    path = notebook(tmp_path, "01_softmax")
    cells = json.loads(path.read_text())
    solution = next(c for c in cells["cells"] if "def softmax" in "".join(c["source"]))
    solution["source"] = "def softmax(x, axis=-1)\n    return x\n"
    path.write_text(json.dumps(cells))
    out = check(capsys, "check", path, "--hint")[1]
    assert out[1].startswith("Hint: FIRST FIX THIS: the cell starting `def softmax(x, axis=-1)` raised SyntaxError"), out
    two = ("def softmax(x, axis=-1):\n    x -= np.max(x, axis=axis, keepdims=True)\n"
           "    return np.exp(x) / np.sum(np.exp(x))\n")
    out = check(capsys, "check", notebook(tmp_path / "b", "01_softmax", two), "--hint")[1]
    assert out[-2].startswith("The failing tests name 1 other mistake(s) as well"), out


def test_a_failure_without_a_catalogued_mistake_says_there_is_no_graded_hint(tmp_path, capsys):
    status, out, _err = check(capsys, "check", notebook(tmp_path, "01_softmax"), "--hint")
    assert status == 0 and out[1] == ("Hint: this test calls a function that still raises NotImplementedError: "
                                      "write that function first."), out
    strange = ("def softmax(x, axis=-1):\n    e = np.exp(x - np.max(x, axis=axis, keepdims=True))\n"
               "    return e / (np.sum(e, axis=axis, keepdims=True) + 0.1)\n")
    out = check(capsys, "check", notebook(tmp_path / "b", "01_softmax", strange), "--hint")[1]
    assert out[1].startswith("Hint: the grader recognises no known mistake in this failure"), out


def test_full_marks_need_no_hint(tmp_path, capsys):
    out = check(capsys, "check", notebook(tmp_path, "01_softmax", CORRECT), "--hint")[1]
    assert "Every test passes: there is nothing to hint." in out and "Every test passes: well done." in out
    assert not any(line.startswith("Hint") for line in out)


def test_the_count_of_hints_shown_is_bounded_and_only_ours_is_kept(tmp_path):
    from autograder import progress
    assert progress.hints_seen({"hints": {"a": 2, "b": True, "c": 99, 3: 1, "d" * 81: 1, "e": "1"}}) == {"a": 2}
    assert progress.hints_seen({"hints": {f"m{i}": 1 for i in range(1000)}}).keys() == {
        f"m{i}" for i in range(progress.MAX_HINT_RECORDS)}
    assert progress.hints_seen(None) == {} and progress.hints_seen({"hints": []}) == {}


def test_the_check_cell_gives_the_hint_too(tmp_path, capsys):
    from autograder import selfcheck
    wrong = (helpers.SUBMISSIONS / "01_softmax" / "wrong" / "fixed_axis.py").read_text()
    path = notebook(tmp_path, "01_softmax", wrong)
    mistake = hints.catalogued(helpers.exercise("01_softmax"))["fixed_axis"]
    selfcheck.check_this_notebook(path, hint=True)
    selfcheck.check_this_notebook(path, hint=True, language="ja")
    out = capsys.readouterr().out
    with i18n.language("ja"):
        second = i18n._(mistake.hints[1])
    assert f"Hint 1 of {len(mistake.hints)}: {mistake.hints[0]}" in out and f"ヒント 2/{len(mistake.hints)}: {second}" in out
    assert "同じセルかコマンドをもう一度実行すると、次のヒントが出る。" in out
    assert mistake.message not in out


def test_a_test_not_measured_is_not_a_failing_test_to_hint():
    from autograder.results import Kind, Report, TestResult
    exercise = helpers.exercise("09_online_softmax")
    report = Report("09_online_softmax", "x.ipynb", [
        TestResult("test_a", 2, 2, ""), TestResult("test_b", 0, 1, "not measured here", Kind.NOT_MEASURED)], [])
    assert hints.next_hint(exercise, report, "/nonexistent/x.ipynb") is None


def test_a_count_that_cannot_be_saved_says_so(tmp_path, capsys):
    wrong = (helpers.SUBMISSIONS / "01_softmax" / "wrong" / "fixed_axis.py").read_text()
    path = notebook(tmp_path, "01_softmax", wrong)
    (tmp_path / "attention-progress.json").mkdir()   # not a file the check can replace
    for _ask in range(2):
        out = check(capsys, "check", path, "--hint")[1]
        assert out[1].startswith("Hint 1 of") and out[2].startswith("The count of hints shown could not be saved")


def test_a_mistake_hidden_by_a_syntax_error_keeps_its_count(tmp_path, capsys):
    wrong = (helpers.SUBMISSIONS / "01_softmax" / "wrong" / "fixed_axis.py").read_text()
    path = notebook(tmp_path, "01_softmax", wrong)
    check(capsys, "check", path, "--hint")
    check(capsys, "check", path, "--hint")
    saved = path.read_text()
    cells = json.loads(saved)
    next(c for c in cells["cells"] if "def softmax" in "".join(c["source"]))["source"] = "def softmax(x\n"
    path.write_text(json.dumps(cells))
    assert "FIRST FIX THIS" in check(capsys, "check", path, "--hint")[1][1]
    path.write_text(saved)
    assert check(capsys, "check", path, "--hint")[1][3].startswith("Hint 3 of 3")


def test_checks_at_once_in_one_folder_keep_every_count(tmp_path):
    """Six notebooks checked in parallel, three times: each record keeps its three hints (the folder is
    locked while its progress file is read and written; without the lock, records are lost)."""
    import subprocess
    import sys
    wrong = (helpers.SUBMISSIONS / "01_softmax" / "wrong" / "fixed_axis.py").read_text()
    names = [f"copy{i}.ipynb" for i in range(6)]
    for name in names:
        notebook(tmp_path, "01_softmax", wrong, name=name)
    for _round in range(3):
        running = [subprocess.Popen([sys.executable, "-m", "autograder", "check", name, "--hint"], cwd=tmp_path,
                                    stdout=subprocess.DEVNULL) for name in names]
        assert [process.wait(timeout=300) for process in running] == [0] * len(names)
    records = json.loads((tmp_path / "attention-progress.json").read_text())["notebooks"]
    assert {name: records[name]["hints"] for name in names} == {name: {"fixed_axis": 3} for name in names}
