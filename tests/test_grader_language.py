"""The grader speaks Japanese (issue 17, part 5): its gettext catalog, the same grades in both
languages, and the learner's choice of language (``autograder/i18n.py``).

* Every message marked in ``autograder/`` (``_``, ``N_``, the message of ``Mistake`` and
  ``nan_where_finite``) has a Japanese translation that keeps its ``{fields}`` and its code,
  and the committed ``.mo`` is the ``.po`` compiled.
* A wrong and a correct implementation of every exercise get the same scores in Japanese as
  in English, test by test; the Japanese diagnoses are Japanese and name the same mistake;
  the English ones are those the grader wrote before it spoke Japanese
  (``grader_english_messages.json``, graded with a fixed draw; after an intended change of an
  English message, regenerate it: ``UPDATE_ENGLISH_MESSAGES=1 pytest tests/test_grader_language.py``).
* ``--lang`` wins over the notebook's metadata, which wins over the environment.
"""
import ast
import json
import os
import re
import subprocess
import sys

import pytest
from babel.messages.pofile import read_po

import helpers
import translation
from autograder import checks, engine, i18n, report, selfcheck
from autograder.course import course_at
from autograder.results import NOT_IMPLEMENTED

JAPANESE = translation.KANA_OR_KANJI                                         # kana and kanji
JAPANESE_WRITING = re.compile(r"[\u3000-\u30ff\u3400-\u9fff\uff01-\uff5e]")   # and Japanese punctuation
FIELD = re.compile(r"\{\w+(?:[:!][^{}]*)?\}")
SNAPSHOT = helpers.REPO / "tests" / "grader_english_messages.json"
DRAW = "snapshot:fixed"     # the hidden inputs the English snapshot was graded with

# One wrong implementation per exercise, each through another path of the grader (a shared
# mistake with its own example, a rank probe with and without batch axes, a helper that raised,
# a detector's detail, a described call), none whose message holds a measured number.
WRONG = ["01_softmax/wrong/modifies_input.py", "02_seq2seq/wrong/written_for_batches.py",
         "03_additive/wrong/no_pair_broadcast.py", "04_dot_product/wrong/returns_wrong_count.py",
         "05_general/wrong/w_not_transposed.py", "06_scaled/wrong/fixed_rank__einsum_letters.py",
         "07_self_attention/wrong/additive_mask__minus_1e9.py",
         "08_multi_head/wrong/split_no_transpose__fixed_rank.py", "09_online_softmax/wrong/max_init_zero.py",
         "10_positions/wrong/modifies_input.py", "11_transformer/wrong/block_norm_not_layer_norm.py",
         "12_kv_cache/wrong/own_key_left_out.py"]
CORRECT = [f"{e.assignment}/correct/{sorted((helpers.SUBMISSIONS / e.assignment / 'correct').glob('*.py'))[0].name}"
           for e in helpers.EXERCISES]


def catalog():
    with open(i18n.po_path("ja"), "rb") as handle:
        return read_po(handle, locale="ja", domain=i18n.DOMAIN)


def key(message):
    return (message.context, message.id)


# --------------------------------------------------------------------------- the catalog
def test_every_marked_message_has_a_japanese_translation_with_its_fields_and_code():
    extracted = {key(m): m for m in i18n.extract() if m.id}
    translated = {key(m): m for m in catalog() if m.id}
    missing = sorted(str(k[1])[:80] for k in set(extracted) - set(translated))
    assert not missing, f"messages without a Japanese entry (run python -m autograder.i18n): {missing[:10]}"
    stale = sorted(str(k[1])[:80] for k in set(translated) - set(extracted))
    assert not stale, f"entries for messages the grader no longer has: {stale[:10]}"
    problems = []
    for k, message in translated.items():
        english = message.id[0] if isinstance(message.id, tuple) else message.id
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(strings):
            problems.append(f"not translated (or fuzzy): {english[:70]!r}")
            continue
        for japanese in strings:
            if sorted(FIELD.findall(japanese)) != sorted(FIELD.findall(english)):
                problems.append(f"fields differ: {english[:70]!r} -> {japanese[:70]!r}")
            if translation.tokens(english) - translation.tokens(japanese):
                problems.append(f"code lost: {dict(translation.tokens(english) - translation.tokens(japanese))}")
            if translation.prose_words(english) and not JAPANESE_WRITING.search(japanese):
                problems.append(f"not Japanese: {japanese[:70]!r}")
            if translation.POLITE.search(japanese):
                problems.append(f"です/ます, not である調: {japanese[:70]!r}")
            if "\n" in japanese and "\n" not in english:
                problems.append(f"two lines for one: {japanese[:70]!r}")
    assert not problems, problems[:10]


def test_every_catalogued_mistake_reads_in_japanese():
    """Messages made at run time from marked pieces: every mistake of every catalogue."""
    mistakes = [*checks.SHARED_MISTAKES, *(m for e in helpers.EXERCISES for m in e.catalogue.MISTAKES)]
    with i18n.language("ja"):
        untranslated = [m.id for m in mistakes if not JAPANESE.search(m.translated())
                        or re.search(r"\b(or|then|on the)\b", m.translated())]
    assert not untranslated, untranslated
    assert all(m.translated() == m.message for m in mistakes)     # English: the message itself


def test_the_compiled_catalog_is_the_po_compiled():
    committed = i18n.po_path("ja").with_suffix(".mo").read_bytes()
    assert i18n.compiled("ja") == committed, "autograder.mo is stale: run python -m autograder.i18n"


def test_no_function_that_translates_binds_the_name_underscore():
    """``_`` is the translation function: a function that also assigns ``_`` (``a, _ = ...``) would
    call its own variable instead."""
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
    found = []
    for path in sorted((helpers.REPO / "autograder").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, scopes))]:
            nodes, stack = [], list(ast.iter_child_nodes(scope))
            while stack:
                node = stack.pop()
                nodes.append(node)
                if not isinstance(node, scopes):
                    stack.extend(ast.iter_child_nodes(node))
            binds = any(isinstance(n, ast.Name) and n.id == "_" and isinstance(n.ctx, ast.Store) for n in nodes)
            calls = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "_" for n in nodes)
            if binds and (calls or scope is tree):
                found.append(f"{path.name}:{getattr(scope, 'name', '<module>')}")
    assert not found, found


# --------------------------------------------------------------------------- the same grades
def _grade(fixture, language):
    assignment = fixture.split("/")[0]
    code = (helpers.SUBMISSIONS / fixture).read_text()
    return engine.run_tests(helpers.exercise(assignment), helpers.submission(assignment, code), draw=DRAW,
                            language=language)


def _update_snapshot(fixture, english):
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8")) if SNAPSHOT.exists() else {}
    snapshot[fixture] = {t.grade_id: t.message for t in english.tests}
    SNAPSHOT.write_text(json.dumps(snapshot, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")


@pytest.mark.parametrize("fixture", WRONG + CORRECT)
def test_japanese_grading_gives_the_english_scores_and_japanese_diagnoses(fixture):
    if "/correct/" in fixture:   # full marks in English: test_catalogue.py; in Japanese too:
        japanese = _grade(fixture, "ja")
        assert japanese.score == japanese.max_score and not any(t.message for t in japanese.tests)
        return
    english, japanese = _grade(fixture, "en"), _grade(fixture, "ja")
    assert english.language == "en" and japanese.language == "ja"
    assert [(t.grade_id, t.score, t.max_score, t.kind) for t in japanese.tests] == \
        [(t.grade_id, t.score, t.max_score, t.kind) for t in english.tests]
    assert all(not JAPANESE.search(t.message) for t in english.tests), [t.message for t in english.tests]
    if os.environ.get("UPDATE_ENGLISH_MESSAGES"):
        _update_snapshot(fixture, english)
    expected = json.loads(SNAPSHOT.read_text(encoding="utf-8"))[fixture]
    assert {t.grade_id: t.message for t in english.tests} == expected, "the English messages changed"
    mistake_id = fixture.rsplit("/", 1)[1].removesuffix(".py").split("__")[0]
    assignment = fixture.split("/")[0]
    [mistake] = [m for m in (*helpers.catalogue(assignment).MISTAKES, *checks.SHARED_MISTAKES)
                 if m.id == mistake_id][:1]
    with i18n.language("ja"):
        named = mistake.translated()
    failed = [t for t in japanese.tests if not t.passed]
    assert failed and any(named in t.message for t in failed), [t.message for t in failed]
    english_texts = {m.message for m in (*helpers.catalogue(assignment).MISTAKES, *checks.SHARED_MISTAKES)}
    for test in failed:
        assert "\n" not in test.message and test.message
        assert JAPANESE.search(test.message), test.message   # visible tests' asserts too (bilingual)
        assert not any(text in test.message for text in english_texts), test.message


# --------------------------------------------------------------------------- choosing the language
def test_the_language_is_the_flag_then_the_metadata_then_the_environment():
    ja, en, fr = ({"metadata": {"attention_book": {"language": code}}} for code in ("ja", "en", "fr"))
    plain = {"metadata": {}}
    assert i18n.choose("ja", en, {"LANG": "en_US.UTF-8"}) == "ja"
    assert i18n.choose("en", ja, {"LANGUAGE": "ja"}) == "en"
    assert i18n.choose(None, ja, {"LANG": "en_US.UTF-8"}) == "ja"
    assert i18n.choose(None, en, {"LANG": "ja_JP.UTF-8"}) == "en"
    assert i18n.choose(None, plain, {"LANG": "ja_JP.UTF-8"}) == "ja"
    assert i18n.choose(None, fr, {"LANG": "ja_JP.UTF-8"}) == "en"            # unknown: English
    assert i18n.choose(None, plain, {}) == "en"
    assert i18n.choose("ja-JP") == i18n.choose("ja_JP.UTF-8") == "ja"
    with pytest.raises(i18n.UnsupportedLanguage):
        i18n.choose("xx")
    # gettext's order: the first of LANGUAGE, LC_ALL, LC_MESSAGES, LANG that is set decides
    assert i18n.from_environment({"LANGUAGE": "fr:ja", "LANG": "en_US.UTF-8"}) == "ja"
    assert i18n.from_environment({"LANGUAGE": "", "LC_ALL": "C.UTF-8", "LANG": "ja_JP.UTF-8"}) is None
    assert i18n.from_environment({"LC_MESSAGES": "ja_JP.UTF-8", "LANG": "en_US.UTF-8"}) == "ja"
    assert i18n.from_environment({"LANG": "de_DE.UTF-8"}) is None
    # the learner's metadata is data, not code: anything else than a string is nothing
    for odd in ({"attention_book": "ja"}, {"attention_book": {"language": ["ja"]}}, [], None):
        assert i18n.from_notebook({"metadata": odd}) is None
    # the class run's feedback: the notebook's language, never the instructor's environment
    assert i18n.for_class_run(plain) == "en" and i18n.for_class_run(ja) == "ja" and i18n.for_class_run(fr) == "en"


def _notebook(tmp_path, language=None, name="softmax.ipynb"):
    notebook = helpers.release_notebook("01_softmax")   # every test: not implemented yet
    if language:
        notebook.metadata["attention_book"] = {"language": language}
    return helpers.write(notebook, tmp_path / name)


def _environment(**variables):
    env = {k: v for k, v in os.environ.items() if k not in i18n.ENVIRONMENT}
    return {**env, **variables}


def _check(path, *args, env):
    return subprocess.run([sys.executable, "-m", "autograder", "check", str(path), "--json", *args],
                          cwd=helpers.REPO, capture_output=True, text=True, timeout=300, env=env)


def test_the_command_line_takes_the_flag_over_the_metadata_over_the_environment(tmp_path):
    japanese = f"NotImplementedError: {i18n.in_each_language(lambda: i18n._(NOT_IMPLEMENTED))[1]}"
    # --lang ja over a notebook that says English, in an English environment
    result = _check(_notebook(tmp_path, "en"), "--lang", "ja", env=_environment(LANG="en_US.UTF-8"))
    assert result.returncode == 0, result.stderr
    graded = json.loads(result.stdout)
    assert set(graded) == {"assignment", "notebook", "score", "max_score", "tests"}     # the JSON contract
    assert all(set(t) == {"grade_id", "score", "max_score", "passed", "message"} for t in graded["tests"])
    assert all(japanese in t["message"] for t in graded["tests"]), graded["tests"]
    # the metadata (English) over a Japanese environment
    result = _check(_notebook(tmp_path / "en", "en"), env=_environment(LANGUAGE="ja", LANG="ja_JP.UTF-8"))
    assert result.returncode == 0, result.stderr
    assert all("not implemented yet" in t["message"] for t in json.loads(result.stdout)["tests"])


def test_the_self_check_reads_the_environment_when_the_notebook_names_no_language(tmp_path, monkeypatch, capsys):
    from autograder.__main__ import main
    for variable in i18n.ENVIRONMENT:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("LC_ALL", "ja_JP.UTF-8")
    main(["check", str(_notebook(tmp_path))])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("01_softmax（") and "点" in lines[0], lines
    tests = [line for line in lines if line.startswith("  不合格")]
    assert len(tests) == 5 and lines[-3].startswith("  注: "), lines
    assert lines[-2].startswith("表示言語: 日本語（システムのロケールによる）。"), lines
    assert lines[-1].startswith("進み具合: "), lines


def test_an_unsupported_language_is_one_line_and_a_nonzero_exit(tmp_path):
    result = _check(_notebook(tmp_path), "--lang", "xx", env=_environment())
    assert result.returncode != 0 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert "'xx'" in result.stderr and "ja" in result.stderr


def test_the_notebook_self_check_speaks_the_saved_notebook_language(tmp_path, monkeypatch, capsys):
    for variable in i18n.ENVIRONMENT:
        monkeypatch.delenv(variable, raising=False)
    selfcheck.check_this_notebook(_notebook(tmp_path, "ja"))
    header, *report_lines = capsys.readouterr().out.splitlines()
    assert "に保存されたもの（softmax.ipynb）を採点した" in header, header
    assert report_lines[0].startswith("01_softmax（softmax.ipynb）: 0 / 7 点"), report_lines


# --------------------------------------------------------------------------- the instructor's report
def test_the_report_counts_feedback_in_either_language_under_japanese_headings(tmp_path):
    """The report counts the findings the grader recorded, which are the same whichever language the
    feedback was written in; its page speaks the language asked for."""
    from autograder.results import NOT_ATTEMPTED, Kind
    root = helpers.course(tmp_path)
    course = course_at(root)
    exercise = course.exercise("01_softmax")
    axis_ignored = next(m for m in exercise.catalogue.MISTAKES if m.id == "axis_ignored")
    wrong = helpers.submission("01_softmax", (helpers.SUBMISSIONS / "01_softmax" / "wrong" /
                                              "axis_ignored.py").read_text())
    for student, language in (("ana", "en"), ("ben", "ja")):   # graded in either language: the same findings
        graded = engine.run_tests(exercise, wrong, draw=helpers.TEST_DRAW, language=language)
        failed = {t.grade_id: (t.kind, t.findings) for t in graded.tests if not t.passed}
        assert failed["test_softmax_axis"] == (Kind.FAILED, ("axis_ignored",)), (language, failed)
        notebook = helpers.recorded(helpers.release_notebook("01_softmax"), exercise, student, failed)
        helpers.write(notebook, course.autograded / student / "01_softmax" / "softmax.ipynb")
    notebook = helpers.recorded(helpers.release_notebook("01_softmax"), exercise, "kim",
                                {"test_softmax_axis": (Kind.FAILED, (NOT_ATTEMPTED,))})
    helpers.write(notebook, course.autograded / "kim" / "01_softmax" / "softmax.ipynb")
    students, counts, _texts = report.count_mistakes(course, "01_softmax")
    assert counts["axis_ignored"] == 2 and counts["(not attempted)"] == 1, counts
    path = report.write_report(course, "01_softmax", language="ja")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# 01_softmax: クラスがつまずいた点\n"), text[:80]
    with i18n.language("ja"):
        assert f"| `axis_ignored` | 2 | 67% | {axis_ignored.translated()} |" in text
    assert path.with_suffix(".png").stat().st_size > 0
    english = report.write_report(course, "01_softmax", out_dir=tmp_path / "en").read_text(encoding="utf-8")
    assert english.startswith("# 01_softmax: what the class got wrong\n") and axis_ignored.message in english


def test_a_visible_tests_bilingual_message_is_shown_in_the_gradings_language():
    """The exercise notebooks' visible tests write "English / 日本語"; a report shows one half."""
    error = AssertionError("softmax must keep the input's shape: expected (3,), got (2,)"
                           " / softmax は入力の形状を保たなければならない：(3,) のはずが (2,) である")
    with i18n.language("en"):
        assert engine._failure_message(error, "") == "softmax must keep the input's shape: expected (3,), got (2,)"
    with i18n.language("ja"):
        assert engine._failure_message(error, "").startswith("softmax は入力の形状を保たなければならない")
    plain = AssertionError("x / y is not 1")           # a slash in English alone is left as it is
    with i18n.language("ja"):
        assert engine._failure_message(plain, "") == "x / y is not 1"


def test_every_visible_test_message_is_bilingual():
    """Every assertion message of a visible test cell has its Japanese half."""
    missing = []
    for exercise in helpers.EXERCISES:
        for test in exercise.source.tests:
            if "_visible" not in test.grade_id:
                continue
            for node in ast.walk(ast.parse(test.source)):
                if isinstance(node, ast.Assert) and node.msg is not None:
                    text = ast.unparse(node.msg)
                    if not JAPANESE.search(text):
                        missing.append(f"{exercise.assignment}/{test.grade_id}: {text[:60]}")
    assert missing == []


def test_a_visible_tests_bilingual_message_is_split_between_its_languages_and_kept_whole():
    """A visible test's message is "English / 日本語"; a formula's own " / " stays inside its half,
    and a message over several lines is kept whole, on one line."""
    message = ("the weights must be softmax(Q K^T / sqrt(d_k)),\nrow by row / "
               "重みは softmax(Q K^T / sqrt(d_k)) で、\n行ごとに計算します")
    error = AssertionError(message)
    with i18n.language("en"):
        assert engine._failure_message(error, "") == "the weights must be softmax(Q K^T / sqrt(d_k)), row by row"
    with i18n.language("ja"):
        assert engine._failure_message(error, "") == "重みは softmax(Q K^T / sqrt(d_k)) で、 行ごとに計算します"
    assert i18n.one_language("a / b, in English only") == "a / b, in English only"
