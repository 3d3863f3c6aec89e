"""Every string from a submission survives every encoding on every path (issue 24).

A notebook's JSON can hold what no editor writes: a lone surrogate as an escape
("\\ud800") in a cell's source, its metadata or its outputs; an exception whose
text or class name holds one; terminal escapes and control characters; a file
name that is not UTF-8; bytes that are not UTF-8 at all.  The learner's
self-check (the command, its JSON, the notebook's own check cell) and the class
run (nbgrader autograde, the journal, the summary, the feedback, the report)
grade such a notebook or refuse it in one line, under any output encoding:
never a UnicodeEncodeError, never a traceback.

(tests/adversarial/01_softmax/lone_surrogate_in_messages.py did not catch the
break: its surrogates are escapes inside Python string literals, which only the
sandboxed process turns into characters, and it checks only the text report.
The break was a "\\ud800" escape in the notebook's JSON: a cell source Python
cannot compile, and a notebook nbgrader cannot write.)
"""
import json
import os
import subprocess
import sys

import pytest

import helpers
from autograder import classrun, course_secret, notebooks, preprocessors
from autograder import course as courses

ASSIGNMENT = "01_softmax"
HONEST_SCORE = 5.0   # no_max_subtraction: what the notebook earns without any of its strange strings
# Learner code: an honest softmax that forgets the maximum; SURROGATE marks where the notebook's JSON holds
# a "\ud800" escape (a lone surrogate once read); the rest are Python escapes, turned into characters when
# the code runs.
CODE = '''def softmax(x, axis=-1):
    """SURROGATE in a docstring"""
    e = np.exp(x)  # SURROGATE in a comment
    if np.max(np.abs(x[np.isfinite(x)]), initial=0) > 500:   # where it fails anyway: the same score
        raise type("Err\\udcff\\x1b[2J", (Exception,), {})("\\ud800\\x1b]0;title\\x07\\r\\nFAKE LINE")
    return e / np.sum(e, axis=axis, keepdims=True)
'''
STRANGE_CELL = ('# SURROGATE first line \x1b[31m\nprint("\\ud800 \\udcff \\x1b[2J \\x00 \\u202e")\n'
                'raise type("Bad\\ud800", (ValueError,), {})("SURROGATE\\udfff \\x1b[1A")')


def _strange_notebook():
    """The submission as JSON text: the code above, a code cell and a markdown cell full of strange
    strings, metadata and outputs holding lone surrogates, and the notebook's language one too."""
    notebook = helpers.submission(ASSIGNMENT, CODE)
    code = {"cell_type": "code", "execution_count": None, "source": STRANGE_CELL,
            "metadata": {"SURROGATE key": "SURROGATE value", "tags": ["\x1b[2J"]},
            "outputs": [{"output_type": "stream", "name": "stdout", "text": "SURROGATE \x1b[2J"}]}
    notebook.cells[1:1] = [code, {"cell_type": "markdown", "metadata": {}, "source": "SURROGATE \x00"}]
    notebook.metadata["attention_book"] = {"language": "SURROGATE"}
    text = json.dumps(notebook, ensure_ascii=True)
    assert "SURROGATE" in text
    return text.replace("SURROGATE", "\\ud800")


def _strange_file(folder):
    """The strange notebook saved under a name that is not UTF-8 and holds a terminal escape."""
    path = folder / os.fsdecode(b"\xff\x1b[2Jnote\xe9book.ipynb")
    path.write_text(_strange_notebook(), encoding="ascii")
    return path


ENVIRONMENTS = {
    "ascii": {"PYTHONIOENCODING": "ascii"},
    "utf-8": {"PYTHONIOENCODING": "utf-8"},
    "C-locale": {"LANG": "C", "LC_ALL": "C"},
}


def _env(extra):
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONIOENCODING", "LANG", "LC_ALL", "LC_CTYPE", "LANGUAGE", "LC_MESSAGES", "PYTHONUTF8")}
    return {**env, **extra}


def _output_encoding(extra):
    """The encoding the child's stdout has under ``extra`` (Python's own choice, asked of Python)."""
    return subprocess.run([sys.executable, "-c", "import sys; print(sys.stdout.encoding)"], env=_env(extra),
                          capture_output=True, text=True, check=True).stdout.strip()


def _run(arguments, extra, cwd):
    return subprocess.run([sys.executable, "-m", "autograder", *arguments], cwd=cwd, env=_env(extra),
                          capture_output=True, timeout=300)


def _assert_printable(text):
    lines = text.splitlines()
    assert lines and all(line.isprintable() for line in lines), [line for line in lines if not line.isprintable()]


@pytest.mark.parametrize("environment", ENVIRONMENTS)
def test_the_check_command_grades_strange_strings_in_any_encoding(tmp_path, environment):
    extra = ENVIRONMENTS[environment]
    path = _strange_file(tmp_path)
    encoding = _output_encoding(extra)
    result = _run(["check", path.name, "--lang", "ja"], extra, tmp_path)
    assert result.returncode == 0 and result.stderr == b"", result.stderr.decode(errors="replace")
    text = result.stdout.decode(encoding)          # strictly: everything printed is in the output's encoding
    _assert_printable(text)
    assert "5 / 7" in text.splitlines()[0], text   # graded, the strange strings changed no score
    # the score, one line per test, the strange cell's note, the language, the progress
    assert len(text.splitlines()) == 1 + 5 + 1 + 1 + 1, text
    assert "FAKE LINE" in text and not any(line.startswith("FAKE LINE") for line in text.splitlines())

    result = _run(["check", path.name, "--json"], extra, tmp_path)
    assert result.returncode == 0 and result.stderr == b"", result.stderr.decode(errors="replace")
    report = json.loads(result.stdout.decode("ascii"))     # one JSON object, ASCII whatever the encoding
    assert report["score"] == HONEST_SCORE
    strings = [report["notebook"]] + [test["message"] for test in report["tests"]]
    for string in strings:
        string.encode("utf-8")                    # no lone surrogate: valid Unicode for any JSON reader


@pytest.mark.parametrize("environment", ENVIRONMENTS)
def test_a_notebook_that_is_not_utf8_is_one_line(tmp_path, environment):
    extra = ENVIRONMENTS[environment]
    path = tmp_path / "softmax.ipynb"
    path.write_bytes(_strange_notebook().encode("ascii").replace(b"first line", b"first \xff\xfe line"))
    result = _run(["check", path.name], extra, tmp_path)
    assert result.returncode != 0 and result.stdout == b""
    message = result.stderr.decode(_output_encoding(extra))
    assert len(message.strip().splitlines()) == 1 and "Traceback" not in message, message
    assert "softmax.ipynb" in message and "cannot be read" in message


@pytest.mark.parametrize("environment", ["ascii", "C-locale"])
def test_the_notebooks_check_cell_prints_in_any_encoding(tmp_path, environment):
    """The self-check cell runs the command and prints its report in the kernel, whose locale and
    output encoding may differ from the command's: nothing fails to decode or to print."""
    path = _strange_file(tmp_path)
    cell = ("from autograder import selfcheck\n"
            f"selfcheck.check_this_notebook({str(path)!r}, language='ja')\n")
    extra = ENVIRONMENTS[environment]
    result = subprocess.run([sys.executable, "-c", cell], cwd=tmp_path, env=_env(extra), capture_output=True,
                            timeout=300)
    assert result.returncode == 0 and result.stderr == b"", result.stderr.decode(errors="replace")
    text = result.stdout.decode(_output_encoding(extra))
    _assert_printable(text)
    assert len(text.splitlines()) == 1 + 1 + 5 + 1 + 1 + 1 and "5 / 7" in text.splitlines()[1], text


def test_read_notebook_replaces_every_lone_surrogate(tmp_path):
    path = _strange_file(tmp_path)
    notebook = notebooks.read_notebook(path)
    text = json.dumps(notebook, ensure_ascii=False)
    text.encode("utf-8")                              # no lone surrogate left, keys included
    assert "\ufffd key" in text and "\ufffd value" in text
    assert notebooks.without_surrogates({"a\udcff": ["\ud800", 1, None]}) == {"a\ufffd": ["\ufffd", 1, None]}


@pytest.mark.nbgrader
def test_the_class_run_grades_strange_strings(tmp_path):
    """nbgrader autograde (through the class run) grades the strange notebook, writes it, keeps its journal,
    prints its summary, writes its feedback and its report, under an ASCII output too."""
    import io
    root = helpers.course(tmp_path)
    helpers.nbgrader("generate_assignment", ASSIGNMENT, root=root)
    folder = helpers.submitted(root, "strange").parent
    folder.mkdir(parents=True)
    (folder / "softmax.ipynb").write_text(_strange_notebook(), encoding="ascii")
    config = courses.load_config(root, helpers.gradebook_url(root))
    [outcome] = classrun.grade_class(ASSIGNMENT, jobs=1, config=config, progress=False)
    assert outcome.graded and outcome.score == HONEST_SCORE and outcome.problems == [], outcome

    course = courses.course_at(root)
    autograded = course.autograded / "strange" / ASSIGNMENT / "softmax.ipynb"
    autograded.read_bytes().decode("utf-8")            # written, and valid UTF-8
    graded = notebooks.read_notebook(autograded)
    key = course_secret.seal_key(course)
    assert all(preprocessors.read_record(key, (ASSIGNMENT, "softmax", "strange", notebooks.meta(c)["grade_id"]), c)
               for c in graded.cells if notebooks.is_test_cell(c))
    for line in classrun.journal_path(course, ASSIGNMENT).read_text(encoding="utf-8").splitlines():
        json.loads(line)
    summary = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    classrun.print_summary(ASSIGNMENT, [outcome], out=summary)

    helpers.nbgrader("generate_feedback", ASSIGNMENT, root=root)
    feedback = course.feedback / "strange" / ASSIGNMENT / "softmax.html"
    assert "FAKE LINE" in feedback.read_bytes().decode("utf-8")   # written, valid UTF-8, with the messages

    result = _run(["report", ASSIGNMENT, "--course-root", str(root), "--lang", "ja"], ENVIRONMENTS["ascii"],
                  helpers.REPO)
    assert result.returncode == 0 and result.stderr == b"", result.stderr.decode(errors="replace")
    assert "| `(other wrong answer)` | 1 |" in result.stdout.decode("ascii")   # it raises where it would fail
