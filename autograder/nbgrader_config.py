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
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, ClearHiddenTests,
                                    GetGrades, IgnorePattern, LimitOutput, SaveAutoGrades)

from autograder import course
from autograder.mathjax import copy_mathjax
from autograder.preprocessors import SandboxedExecute

HERE = Path(__file__).resolve().parent
c = get_config()  # noqa: F821 (provided by nbgrader when it loads this file)

c.CourseDirectory.course_id = "attention-book"
c.CourseDirectory.root = str(HERE.parent)
for setting, folder in course.LAYOUT.items():
    setattr(c.CourseDirectory, setting, folder)
# Several graders or machines can share one PostgreSQL gradebook instead:
#   ATTENTION_GRADEBOOK_URL=postgresql://user@host/gradebook
c.CourseDirectory.db_url = os.environ.get(course.GRADEBOOK_URL_VARIABLE, f"sqlite:///{HERE.parent / course.GRADEBOOK}")

# LMS import with `nbgrader zip_collect ASSIGNMENT`: put the zip the LMS exports in
# autograder/downloaded/ASSIGNMENT/archive/.  File names as Canvas writes them,
# <student>_[late_]<user id>_<submission id>_<notebook>[-<resubmission>].ipynb;
# for another LMS change this one expression.
c.ZipCollectApp.downloaded_directory = course.DOWNLOADED
c.ZipCollectApp.collector_plugin = "nbgrader.plugins.FileNameCollectorPlugin"
c.FileNameCollectorPlugin.named_regexp = (
    r".*/(?P<student_id>[^/_]+)_(?:late_)?\d+_\d+_(?P<file_id>[^/]+?)(?:-\d+)?\.ipynb$")

# The release needs no executed outputs, and stays byte-for-byte reproducible.
c.GenerateAssignment.force = True
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}

# Grading: the sandboxed engine replaces nbgrader's in-kernel Execute step.
c.Autograde.autograde_preprocessors = [
    SandboxedExecute, IgnorePattern, ClearMetadataPreprocessor, LimitOutput,
    SaveAutoGrades, AssignLatePenalties, CheckCellMetadata,
]

# Feedback: hidden-test source is removed before the HTML is written, and the
# page loads MathJax from ../../mathjax, i.e. autograder/feedback/mathjax, copied
# there after each run (templates/feedback/mathjax.html.j2 shadows nbconvert's
# macro, which always points at a CDN).
c.GenerateFeedback.preprocessors = [GetGrades, ClearHiddenTests, CSSHTMLHeaderPreprocessor]
# Learner text never runs in a reader's browser: nbconvert's sanitiser (bleach) cleans the
# HTML of markdown cells, raw cells and outputs, in the feedback and in formgrader's pages
# (which use the same HTMLExporter settings), so a submitted <script> or onerror= is inert.
c.HTMLExporter.sanitize_html = True
c.HTMLExporter.preprocessors = [SanitizeHTML]
c.HTMLExporter.template_name = "feedback"
c.HTMLExporter.extra_template_basedirs = [
    str(HERE / "templates"),
    str(Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"),
]


def _copy_mathjax_next_to_feedback(**_):
    copy_mathjax(Path(c.CourseDirectory.root) / c.CourseDirectory.feedback_directory / "mathjax")


c.GenerateFeedback.post_convert_hook = _copy_mathjax_next_to_feedback
