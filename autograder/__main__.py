"""Command line: `python -m autograder check NOTEBOOK [--json]` (the learner's self-check).

Exit status: 0 when the notebook was graded (whatever the score), 2 with a
one-line reason on stderr when it could not be.
"""
import argparse
import json
import sys

from . import engine
from .notebooks import NotebookError


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not a usage dump
        sys.exit(f"autograder: {message} (see python -m autograder --help)")


def _parser():
    parser = _Parser(prog="python -m autograder", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    check = commands.add_parser("check", help="grade one exercise notebook with the hidden tests")
    check.add_argument("notebook", help="path to the exercise notebook (.ipynb)")
    check.add_argument("--json", action="store_true", help="print one JSON object and nothing else")
    return parser


def _print_report(report, path):
    print(f"{report.assignment} ({path}): {report.score:g} / {report.max_score:g} points")
    width = max(len(t.grade_id) for t in report.tests) if report.tests else 0
    for test in report.tests:
        mark = "PASS" if test.passed else "FAIL"
        line = f"  {mark}  {test.grade_id:<{width}}  {test.score:g}/{test.max_score:g}"
        print(line + (f"  {test.message}" if test.message else ""))
    broken = [run for run in report.cells if run.error]
    for run in broken:
        print(f"  note: the cell starting `{run.first_line}` raised {run.error}")


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        report = engine.grade_file(args.notebook)
    except NotebookError as error:
        sys.exit(f"autograder: {error}")
    except Exception as error:  # never a traceback for the learner
        sys.exit(f"autograder: could not grade {args.notebook}: {type(error).__name__}: {error}".splitlines()[0])
    if args.json:
        print(json.dumps(report.as_json(args.notebook)))
    else:
        _print_report(report, args.notebook)
    return 0


if __name__ == "__main__":
    sys.exit(main())
