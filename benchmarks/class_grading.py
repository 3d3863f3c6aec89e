"""Class grading benchmark: serial `nbgrader autograde` against `python -m autograder grade`.

Builds a synthetic class of exercise 01 (correct, wrong and broken submissions
mixed), grades two identical copies of it in the same run, one with nbgrader's
stock pipeline (each notebook executed in a Jupyter kernel, one after another)
and one with the project's parallel command (sandboxed engine, one worker per
core), checks that the grades are identical, and prints readable rows and then

    RESULT {"submissions": N, "nbgrader_serial_s": a, "project_s": b, "speedup": a/b, "identical_grades": true}

Usage: python benchmarks/class_grading.py [--students 100] [--jobs N]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder import fixtures as helpers   # the submission builder the tests use too
from autograder.course import REPO_ROOT as REPO

SUBMISSIONS = REPO / "tests" / "submissions" / "01_softmax"
BROKEN = {  # code a learner might hand in that breaks in some way, but is still a notebook
    "syntax_error": "def softmax(x, axis=-1):\n    return np.exp(x) / np.sum(np.exp(x)\n",
    "name_error": "def softmax(x, axis=-1):\n    return np.exp(x) / total\n",
    "raises": "def softmax(x, axis=-1):\n    raise ValueError('not finished')\n",
    "wrong_name": "def soft_max(x, axis=-1):\n    return x\n",
}


def broken(code):
    """The release with ``code`` typed into its solution cell, whatever it defines (or fails to)."""
    notebook = helpers.release_notebook("01_softmax")
    for cell in notebook.cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("solution"):
            cell.source = code
    return notebook


def synthetic_class(n):
    """n notebooks: correct alternatives, each catalogued mistake, broken code, untouched releases."""
    makers = [lambda code=p.read_text(): helpers.submission("01_softmax", code)
              for p in sorted(SUBMISSIONS.glob("correct/*.py")) + sorted(SUBMISSIONS.glob("wrong/*.py"))]
    makers += [lambda code=code: broken(code) for code in BROKEN.values()]
    makers += [lambda: helpers.release_notebook("01_softmax")]  # handed in untouched
    return {f"student{i:03d}": makers[i % len(makers)]() for i in range(n)}


def make_course(folder, students):
    root = helpers.course(folder)
    helpers.nbgrader("generate_assignment", "01_softmax", root=root)
    for student, notebook in students.items():
        helpers.write(notebook, helpers.submitted(root, student))
    return root


def timed(command, cwd):
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{result.stderr[-2000:]}")
    return elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=None, help="the project's workers (default: one per core)")
    args = parser.parse_args()
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"  # alembic

    work = Path(tempfile.mkdtemp(prefix="class-grading-bench-"))
    try:
        students = synthetic_class(args.students)
        serial_root = make_course(work / "serial", students)
        project_root = make_course(work / "project", students)
        course = lambda root: [f"--CourseDirectory.root={root}", f"--CourseDirectory.db_url={helpers.gradebook_url(root)}"]

        serial_s = timed([sys.executable, "-m", "nbgrader", "autograde", "01_softmax", *course(serial_root)],
                         cwd=helpers.nbgrader_config_dir(work / "stock-config", stock=True))
        project_s = timed([sys.executable, "-m", "autograder", "grade", "01_softmax", "--no-progress",
                           "--course-root", str(project_root), "--db-url", helpers.gradebook_url(project_root)]
                          + (["--jobs", str(args.jobs)] if args.jobs else []), cwd=REPO)

        serial, project = helpers.gradebook_scores(serial_root), helpers.gradebook_scores(project_root)
        identical = serial == project and len(serial) == args.students
        kinds = {"full marks": sum(v == 7.0 for v in project.values()),
                 "partial": sum(0 < v < 7.0 for v in project.values()),
                 "zero": sum(v == 0 for v in project.values())}
        print(f"submissions                       {args.students}  ({', '.join(f'{k}: {v}' for k, v in kinds.items())})")
        print(f"cores                             {os.cpu_count()}")
        print(f"serial nbgrader autograde (kernel) {serial_s:8.1f} s   {serial_s / args.students:6.3f} s per submission")
        print(f"python -m autograder grade         {project_s:8.1f} s   {project_s / args.students:6.3f} s per submission")
        print(f"speedup                            {serial_s / project_s:8.2f} x")
        differ = sorted(s for s in set(serial) | set(project) if serial.get(s) != project.get(s))
        print(f"identical grades                   {identical}" + (f"  (differ: {differ[:10]})" if differ else ""))
        print("RESULT " + json.dumps({"submissions": args.students, "nbgrader_serial_s": round(serial_s, 2),
                                      "project_s": round(project_s, 2), "speedup": round(serial_s / project_s, 2),
                                      "identical_grades": identical}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
