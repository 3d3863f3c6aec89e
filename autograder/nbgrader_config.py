"""nbgrader configuration of the course.  Run every nbgrader command from this folder.

The course root is the repository root (``--CourseDirectory.root`` or
``python -m autograder ... --course-root`` choose another); the layout under it
is the one of ``autograder/course.py``, whose docstring lists every folder.

`nbgrader autograde` does not execute submissions in a Jupyter kernel here: the
project's engine (autograder.preprocessors.SandboxedExecute) runs the learner's
code in a sandboxed process and the tests in its own, and writes the results
into the notebook for nbgrader to score, store and turn into feedback.
"""
import os
from pathlib import Path

import nbgrader

from nbconvert.preprocessors import ClearMetadataPreprocessor, CSSHTMLHeaderPreprocessor
from nbconvert.preprocessors.sanitize import SanitizeHTML
from nbgrader.converters import Autograde
from nbgrader.validator import Validator
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, ClearHiddenTests,
                                    GetGrades, IgnorePattern, LimitOutput, SaveAutoGrades)

from autograder import course, late, progress, public_course, validate
from autograder.mathjax import copy_mathjax
from autograder.preprocessors import ReplaceLoneSurrogates, SandboxedExecute

HERE = Path(__file__).resolve().parent
c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)

c.CourseDirectory.course_id = "attention-book"
c.CourseDirectory.root = str(HERE.parent)
for setting, folder in course.LAYOUT.items():
    setattr(c.CourseDirectory, setting, folder)
# nbgrader's defaults, and the file a self-check writes beside a notebook (autograder/progress.py): a
# self-check run in solutions/ never reaches a release or a submission.
c.CourseDirectory.ignore = [".ipynb_checkpoints", "*.pyc", "__pycache__", "feedback", progress.FILE]
# The gradebook: nbgrader's default, <root>/gradebook.db, which follows the course root wherever it
# is given (--CourseDirectory.root, a config file of your own course).  Several graders or machines
# share one PostgreSQL gradebook instead:  ATTENTION_GRADEBOOK_URL=postgresql://user@host/gradebook
if os.environ.get(course.GRADEBOOK_URL_VARIABLE):
    c.CourseDirectory.db_url = os.environ[course.GRADEBOOK_URL_VARIABLE]

# LMS import: `python -m autograder collect ASSIGNMENT` (autograder/collect.py) reads Canvas's
# and Moodle's layouts: the student id is the LMS's user id, never a display name; entries are
# streamed within bounds; every file skipped is listed.  `nbgrader zip_collect` reads the zips
# with the same code through nbgrader's two plug-in points (autograder/zip_plugins.py), and gives
# the same ids, files and timestamps.
c.ZipCollectApp.downloaded_directory = course.DOWNLOADED
c.ZipCollectApp.extractor_plugin = "autograder.zip_plugins.BoundedExtractor"
c.ZipCollectApp.collector_plugin = "autograder.zip_plugins.LmsIdCollector"
c.ExchangeFactory.collect = "autograder.exchange.DescriptorCollect"  # nbgrader collect: owner = student, no links, bounded
# nbgrader export: the CSV module quotes every cell, and a text cell never starts a spreadsheet formula.
c.ExportApp.plugin_class = "autograder.export.SpreadsheetSafeCsvExportPlugin"

# The release needs no executed outputs, and stays byte-for-byte reproducible.
c.GenerateAssignment.force = True
c.ClearSolutions.code_stub = {"python": public_course.CODE_STUB}   # the wheel's public course stubs the same

# Grading: the sandboxed engine replaces nbgrader's in-kernel Execute step.  Before nbgrader's own
# sanitising steps, a lone surrogate in the submission's JSON becomes U+FFFD (nbgrader could not write
# the notebook otherwise, and the student would not be graded).
c.Autograde.sanitize_preprocessors = [ReplaceLoneSurrogates, *Autograde.sanitize_preprocessors.make_dynamic_default()]
# Late submissions (autograder/late.py): each student's own due date from autograder/extensions.csv is set
# just before nbgrader's penalty step, and the penalty is the course's policy (10 % of the score per
# started day late, at most 50 %: c.LatePenalty.percent_per_day, max_percent, grace_minutes).
c.Autograde.autograde_preprocessors = [
    SandboxedExecute, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
    SaveAutoGrades, late.ApplyExtensions, AssignLatePenalties, CheckCellMetadata,
]
c.AssignLatePenalties.plugin_class = "autograder.late.LatePenalty"

# Validate (the toolbar button and `nbgrader validate`): nbgrader runs the notebook in the
# learner's kernel, which sees only the visible tests; the step HiddenChecks, appended to
# the validator's steps (a class attribute: nbgrader offers no setting for it), adds the
# hidden checks' verdict on each test cell, so a wrong solution never reads "passes all
# the tests" (autograder/validate.py).  Jupyter and nbgrader load this file when they
# start in the repository root or in autograder/.
(_steps,) = Validator.preprocessors.default_args
if validate.HiddenChecks not in _steps:
    Validator.preprocessors.default_args = ([*_steps, validate.HiddenChecks],)

# Feedback: hidden-test source is removed before the HTML is written, and the
# page loads MathJax from ../../mathjax, i.e. autograder/feedback/mathjax, copied
# there after each run (templates/feedback/mathjax.html.j2 shadows nbconvert's
# macro, which always points at a CDN).  Formgrader's page of a submission loads the
# MathJax Jupyter serves (templates/formgrade/mathjax.html.j2).  The template *name* is
# left to each of them (nbgrader's feedback step picks "feedback", Formgrader
# "formgrade"); setting it here would give Formgrader the feedback page.
# An answer that awaits grading by the instructor reads so, not "0 / 1", and the total says
# how many points await grading (autograder/feedback.py marks them, after GetGrades has read
# the scores; templates/feedback/awaiting_grading.html.j2 extends nbgrader's page).  The
# template *file* is set for the feedback step's exporter only (HTMLExporter configured under
# GenerateFeedback, its parent), so Formgrader still picks its own.
from autograder.feedback import AwaitingGrading  # noqa: E402 (kept next to its one use)
c.GenerateFeedback.preprocessors = [GetGrades, AwaitingGrading, ClearHiddenTests, CSSHTMLHeaderPreprocessor]
c.GenerateFeedback.HTMLExporter.template_file = "awaiting_grading.html.j2"
# Learner text never runs in a reader's browser: nbconvert's sanitiser (bleach) cleans the
# HTML of markdown cells, raw cells and outputs, in the feedback and in formgrader's pages
# (which use the same HTMLExporter settings), so a submitted <script> or onerror= is inert.
c.HTMLExporter.sanitize_html = True
c.HTMLExporter.preprocessors = [SanitizeHTML]
c.HTMLExporter.extra_template_basedirs = [
    str(HERE / "templates"),
    str(Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"),
]


def _copy_mathjax_next_to_feedback(**_):
    copy_mathjax(Path(c.CourseDirectory.root) / c.CourseDirectory.feedback_directory / "mathjax")


c.GenerateFeedback.post_convert_hook = _copy_mathjax_next_to_feedback
