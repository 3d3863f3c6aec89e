"""A course: where its files live, and which exercises it has.

The one description of the layout, used by nbgrader's configuration
(``nbgrader_config.py``), the self-check, the class run and the report.
Paths are relative to the course root (the repository, for this book's course;
an instructor's fork or any other folder with ``--course-root``; for the
self-check of an installed wheel, the public course packaged as
``autograder/course_data``, see ``default_course`` and ``public_course``)::

  solutions/exercises.toml                  the registry: one entry per exercise
  solutions/<NN_name>/<name>.ipynb          nbgrader source: solutions, hidden tests (hand-edited)
  exercises/<NN_name>/<name>.ipynb          release, written by `nbgrader generate_assignment`
  autograder/submitted/<student>/<NN_name>/ collected submissions            (git-ignored)
  autograder/autograded/<student>/<NN_name>/ graded copies                    (git-ignored)
  autograder/feedback/<student>/<NN_name>/  feedback HTML                     (git-ignored)
  autograder/downloaded/<NN_name>/archive/  an LMS zip, for `nbgrader zip_collect` (git-ignored)
  autograder/grading-log/<NN_name>.jsonl    the class run's journal           (git-ignored)
  autograder/reports/<NN_name>/             the misconception report          (git-ignored)
  autograder/grading-secret                 the course's secret: seeds the class run's hidden inputs (git-ignored)
  gradebook.db                              SQLite gradebook, unless a db_url is given (git-ignored); where
                                            nbgrader puts it by default, so it follows --CourseDirectory.root

An exercise is registered once, in ``solutions/exercises.toml``; its assignment
id, notebook, catalogue, library module and contract functions derive from
that entry (see ``Exercise``).  The registry's ``[course]`` table holds the
course's settings (``public_course.SETTINGS``): whether learner tools may show
the model answers of written questions, and where the reference solutions come
from.
"""
import dataclasses
import functools
import importlib
import json
import os
import tomllib
from pathlib import Path

from . import notebooks, public_course
from .i18n import _
from .notebooks import NotebookError

REPO_ROOT = Path(__file__).resolve().parent.parent
# The wheel ships the public course here (pyproject.toml, public_course.py): the registry,
# the book's exercises without their solutions, their hidden tests.
PACKAGED_SOURCE = Path(__file__).resolve().parent / public_course.PACKAGE_DATA
COURSE_ROOT_VARIABLE = "ATTENTION_COURSE_ROOT"

# nbgrader's CourseDirectory settings, relative to the course root.
LAYOUT = {
    "source_directory": "solutions",
    "release_directory": "exercises",
    "submitted_directory": "autograder/submitted",
    "autograded_directory": "autograder/autograded",
    "feedback_directory": "autograder/feedback",
}
DOWNLOADED = "autograder/downloaded"   # ZipCollectApp.downloaded_directory
GRADING_LOG = "autograder/grading-log"
REPORTS = "autograder/reports"
GRADEBOOK = "gradebook.db"            # nbgrader's default place: <root>/gradebook.db
LEGACY_GRADEBOOK = "autograder/gradebook.db"   # where earlier versions kept it (move-gradebook carries it over)
REGISTRY = "exercises.toml"            # inside the source directory
GRADEBOOK_URL_VARIABLE = "ATTENTION_GRADEBOOK_URL"


def _text_or_none(value):
    return None if value is None else str(value)


@dataclasses.dataclass(frozen=True)
class Exercise:
    """One registered exercise; every other name of it is derived here."""
    course: "Course"
    number: int
    name: str                       # "softmax"
    chapter: str | None = None      # "book/01_softmax": the page that teaches it
    catalogue_module: str | None = None   # default: autograder.catalogue.<name>
    further: str | None = None      # "9.2": the book's section that goes further, named after full marks

    @property
    def assignment(self):
        """nbgrader's assignment id, the folder name in solutions/ and exercises/: "01_softmax"."""
        return f"{self.number:02d}_{self.name}"

    @property
    def notebook(self):
        return f"{self.name}.ipynb"

    @property
    def catalogue_name(self):
        return self.catalogue_module or f"autograder.catalogue.{self.name}"

    @property
    def catalogue(self):
        """The misconception catalogue module: hidden checks and ``MISTAKES``."""
        return importlib.import_module(self.catalogue_name)

    @property
    def library_module(self):
        """The book's library module the chapter imports (book exercises only)."""
        return f"attention.{self.name}"

    @property
    def source_path(self):
        return self.course.source / self.assignment / self.notebook

    @property
    def release_path(self):
        return self.course.release / self.assignment / self.notebook

    @functools.cached_property
    def source(self):
        """The trusted source notebook (tests, points, reference solution: its solution cells', or
        the library module's in a course whose reference solutions are the library's)."""
        if not self.source_path.is_file():
            raise NotebookError(f"exercise {self.assignment} is registered but {self.source_path} does not exist")
        library = self.library_module if self.course.settings["reference"] == "library" else None
        return notebooks.SourceNotebook(self.assignment, self.source_path, library=library)

    @property
    def model_answers(self):
        """{grade_id: text} of the written questions' model answers that a learner's tool may show
        after grading: none unless the course offers them (``[course] model_answers``)."""
        if not self.course.offers_model_answers:
            return {}
        if self.course.settings["reference"] == "library":   # the public course: its notebooks hold none
            return self.course.published_model_answers.get(self.assignment, {})
        return self.source.model_answers

    @property
    def functions(self):
        """The contract: names of the functions the learner implements."""
        return self.source.functions


@dataclasses.dataclass(frozen=True)
class Course:
    """A course folder laid out as the module docstring says."""
    root: Path
    source_directory: str = LAYOUT["source_directory"]
    release_directory: str = LAYOUT["release_directory"]
    submitted_directory: str = LAYOUT["submitted_directory"]
    autograded_directory: str = LAYOUT["autograded_directory"]
    feedback_directory: str = LAYOUT["feedback_directory"]
    db_url: str | None = None       # None: the SQLite gradebook in the course

    def __post_init__(self):
        object.__setattr__(self, "root", Path(self.root).resolve())

    @classmethod
    def from_coursedir(cls, coursedir):
        """The course an nbgrader ``CourseDirectory`` describes (its configured root and folders)."""
        return course_at(coursedir.root, db_url=coursedir.db_url, **{key: getattr(coursedir, key) for key in LAYOUT})

    @property
    def source(self):
        return self.root / self.source_directory

    @property
    def release(self):
        return self.root / self.release_directory

    @property
    def submitted(self):
        return self.root / self.submitted_directory

    @property
    def autograded(self):
        return self.root / self.autograded_directory

    @property
    def feedback(self):
        return self.root / self.feedback_directory

    @property
    def grading_log(self):
        return self.root / GRADING_LOG

    @property
    def reports(self):
        return self.root / REPORTS

    @property
    def gradebook_url(self):
        return self.db_url or f"sqlite:///{self.root / GRADEBOOK}"

    @functools.cached_property
    def registry(self):
        """The registry file, parsed."""
        path = self.source / REGISTRY
        try:
            return tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise NotebookError(f"{self.root} is not a course: no exercise registry {path}") from None
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise NotebookError(f"{path}: cannot be read ({error})".splitlines()[0]) from None

    @functools.cached_property
    def settings(self):
        """The course's settings, ``[course]`` in the registry, checked, defaults filled in
        (``public_course.SETTINGS``); a one-line NotebookError for a bad one."""
        try:
            return public_course.course_settings(self.registry, self.source / REGISTRY)
        except public_course.PublicCourseError as error:
            raise NotebookError(str(error)) from None

    @property
    def offers_model_answers(self):
        """May learner tools show the model answers of written questions after grading?"""
        return self.settings["model_answers"] == "after-grading"

    @functools.cached_property
    def published_model_answers(self):
        """{assignment: {grade_id: text}} of a public course that offers model answers (the wheel's
        ``model_answers.json``); {} when it has none."""
        path = self.source / public_course.MODEL_ANSWERS_FILE
        try:
            answers = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise NotebookError(f"{path}: cannot be read ({type(error).__name__})") from None
        if not isinstance(answers, dict) or not all(isinstance(v, dict) and all(isinstance(a, str) for a in v.values())
                                                    for v in answers.values()):
            raise NotebookError(f"{path}: not a table of model answers")
        return answers

    @functools.cached_property
    def exercises(self):
        """The registered exercises, in registry order."""
        path = self.source / REGISTRY
        self.settings   # a bad [course] table stops every use of the course, in one line
        entries = self.registry.get("exercise", [])
        fields = {"number", "name", "chapter", "catalogue", "further"}
        exercises = []
        for entry in entries:
            if not isinstance(entry, dict) or not {"number", "name"} <= set(entry) <= fields:
                raise NotebookError(f"{path}: each [[exercise]] needs number and name, and may have "
                                    f"chapter, catalogue and further; found {entry!r}")
            exercises.append(Exercise(self, int(entry["number"]), str(entry["name"]), entry.get("chapter"),
                                      entry.get("catalogue"), _text_or_none(entry.get("further"))))
        return tuple(exercises)

    def exercise(self, assignment):
        """The exercise whose assignment id is ``assignment``, or a one-line NotebookError."""
        for exercise in self.exercises:
            if exercise.assignment == assignment:
                return exercise
        known = ", ".join(e.assignment for e in self.exercises)
        raise NotebookError(f"no exercise named {assignment!r} in {self.source / REGISTRY} (the course has: {known})")

    def identify(self, submission):
        """The exercise a submission (a NotebookNode) was released from, found by its nbgrader cell ids.

        A renamed file is still recognised; a notebook without an exercise's cells is not.
        """
        ids = notebooks.grade_ids(submission)
        best, overlap = None, 0
        for exercise in self.exercises:
            shared = len(ids & exercise.source.grade_ids)
            if shared > overlap:
                best, overlap = exercise, shared
        if best is None:
            raise NotebookError(_("this notebook is not one of the course's exercises "
                                  "(it has none of their graded cells): download the exercise's notebook again from the book and "
                                  "put your code in its cells"))
        return best


@functools.lru_cache(maxsize=16)
def course_at(root, **layout):
    """The Course at ``root``: one object per folder and layout in a process, so that its
    registry, source notebooks and reference solutions are read once."""
    return Course(Path(root).resolve(), **layout)


def default_course():
    """The course a command uses when given none: ``$ATTENTION_COURSE_ROOT``, else this
    repository when the package runs from a clone, else the course packaged in the wheel."""
    root = os.environ.get(COURSE_ROOT_VARIABLE)
    if root:
        return course_at(root)
    if (REPO_ROOT / LAYOUT["source_directory"] / REGISTRY).is_file():
        return course_at(REPO_ROOT)
    return packaged_course()


def packaged_course():
    """The book's course as installed with the wheel: its source folder is the package
    data ``autograder/course_data``, the public course (``public_course``: no solution,
    reference solutions from the library); it has no release folder and keeps no
    submissions, so it is for grading one notebook, never a class."""
    return course_at(PACKAGED_SOURCE.parent, source_directory=PACKAGED_SOURCE.name)


def load_config(course_root=None, db_url=None):
    """nbgrader's configuration of the course (autograder/nbgrader_config.py), with overrides."""
    from traitlets.config.loader import Config, PyFileConfigLoader
    config = PyFileConfigLoader("nbgrader_config.py", path=str(Path(__file__).parent)).load_config()
    overrides = Config()
    if course_root:
        root = Path(course_root).resolve()
        if not root.is_dir():   # one line, and no folder made for a typo
            raise NotebookError(f"--course-root {course_root}: no such folder")
        overrides.CourseDirectory.root = str(root)
        if not db_url and not os.environ.get(GRADEBOOK_URL_VARIABLE):
            db_url = f"sqlite:///{root / GRADEBOOK}"   # that course's own gradebook, not this repository's
    if db_url:
        overrides.CourseDirectory.db_url = db_url
    config.merge(overrides)
    return config


def coursedir(config):
    """nbgrader's CourseDirectory for ``config``."""
    from nbgrader.coursedir import CourseDirectory
    return CourseDirectory(config=config)


def from_config(config):
    return Course.from_coursedir(coursedir(config))
