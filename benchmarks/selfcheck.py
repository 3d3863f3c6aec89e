"""Self-check latency: `python -m autograder check` against `jupyter execute`.

Both run, whole process and side by side in one run, on the same solved
notebook (exercise 01's source, whose solution cells hold the reference
code, without its self-check cell, which would run the first inside the
second): the self-check grades it with the hidden tests, `jupyter execute`
runs it in a kernel, which is what a learner would otherwise wait for.  Each is
timed ``--repeat`` times, alternating, and the medians are compared:

    RESULT {"selfcheck_s": a, "jupyter_execute_s": b, "ratio": a/b}

Usage: python benchmarks/selfcheck.py [--repeat 5] [--assignment 01_softmax]
"""
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.course import default_course
from autograder.notebooks import SELF_CHECK_ID


def timed(command, cwd):
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--assignment", default="01_softmax")
    args = parser.parse_args()
    exercise = default_course().exercise(args.assignment)
    jupyter = Path(sys.executable).with_name("jupyter")
    with tempfile.TemporaryDirectory() as scratch:
        solved = Path(scratch) / exercise.notebook
        notebook = json.loads(exercise.source_path.read_text(encoding="utf-8"))
        notebook["cells"] = [cell for cell in notebook["cells"]
                             if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") != SELF_CHECK_ID]
        solved.write_text(json.dumps(notebook), encoding="utf-8")
        commands = {
            "selfcheck_s": [sys.executable, "-m", "autograder", "check", str(solved)],
            "jupyter_execute_s": [str(jupyter), "execute", "--output", str(Path(scratch) / "out.ipynb"),
                                  str(solved)],
        }
        for command in commands.values():  # warm the file cache: neither pays for a cold disk
            timed(command, scratch)
        times = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, command in commands.items():
                times[name].append(timed(command, scratch))
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, values in times.items():
        print(f"{name:<18} median {medians[name]:.3f} s   runs {', '.join(f'{v:.3f}' for v in values)}")
    result = {name: round(value, 3) for name, value in medians.items()}
    result["ratio"] = round(medians["selfcheck_s"] / medians["jupyter_execute_s"], 3)
    print("RESULT " + json.dumps(result))


if __name__ == "__main__":
    main()
