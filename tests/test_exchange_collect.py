"""Collecting from nbgrader's exchange cannot be fooled: `python -m autograder collect --exchange`.

The exchange's inbound folder is writable by every student; nbgrader's own collect takes
the student id from the folder's name (it only warns when the owner differs) and copies
following links with the instructor's rights.  Here the student is the folder's owner:
an inbox holding only a link to another student's submission is refused, and so is a
newer folder named after another student.  The students are two system accounts
(daemon, nobody), so that the folders have different owners (the tests run as root).
"""
import os
import pwd

import pytest

import helpers
from autograder import collect as collecting
from autograder import course as courses
from autograder.notebooks import NotebookError

pytestmark = pytest.mark.nbgrader

CORRECT = helpers.SUBMISSIONS / "01_softmax" / "correct" / "logsumexp.py"
WRONG = helpers.SUBMISSIONS / "01_softmax" / "wrong" / "axis_ignored.py"


def _submit(inbound, name, owner, notebook=None, link_to=None):
    """A submission folder as nbgrader's submit leaves it, owned by ``owner``."""
    folder = inbound / name
    folder.mkdir(parents=True)
    uid = pwd.getpwnam(owner).pw_uid
    target = folder / "softmax.ipynb"
    if link_to is not None:
        os.symlink(link_to, target)
    else:
        helpers.write(notebook, target)
    (folder / "timestamp.txt").write_text(name.split("+")[2])
    for path in (folder, *folder.iterdir()):
        os.lchown(path, uid, -1)
    return folder


@pytest.fixture
def exchange(tmp_path):
    assert os.geteuid() == 0, "these tests give folders to other users, which takes root"
    inbound = tmp_path / "exchange" / "attention-book" / "inbound"
    honest = _submit(inbound, "daemon+01_softmax+2026-11-18 09:00:00.000000 UTC", "daemon",
                     helpers.submission("01_softmax", CORRECT.read_text()))
    return helpers.course(tmp_path), inbound, honest


def test_an_inbox_holding_a_link_to_another_submission_is_refused(exchange):
    root, inbound, honest = exchange
    _submit(inbound, "nobody+01_softmax+2026-11-18 10:00:00.000000 UTC", "nobody",
            link_to=honest / "softmax.ipynb")
    students, skipped = collecting.collect_exchange(courses.course_at(root), inbound, "01_softmax")
    assert students == ["daemon"]
    assert skipped == [("nobody+01_softmax+2026-11-18 10:00:00.000000 UTC", "holds a symbolic link (softmax.ipynb)")]
    assert not (courses.course_at(root).submitted / "nobody").exists()


def test_a_forged_newer_folder_does_not_replace_the_owners_submission(exchange):
    root, inbound, honest = exchange
    forged = "daemon+01_softmax+2026-11-19 09:00:00.000000 UTC"
    _submit(inbound, forged, "nobody", helpers.submission("01_softmax", WRONG.read_text()))
    students, skipped = collecting.collect_exchange(courses.course_at(root), inbound, "01_softmax")
    assert students == ["daemon"] and skipped == [(forged, "named after daemon but owned by nobody")]
    collected = courses.course_at(root).submitted / "daemon" / "01_softmax" / "softmax.ipynb"
    assert collected.read_bytes() == (honest / "softmax.ipynb").read_bytes()


def test_a_newer_own_submission_replaces_the_older(exchange):
    root, inbound, _ = exchange
    newer = _submit(inbound, "daemon+01_softmax+2026-11-19 09:00:00.000000 UTC", "daemon",
                    helpers.submission("01_softmax", WRONG.read_text()))
    students, skipped = collecting.collect_exchange(courses.course_at(root), inbound, "01_softmax")
    collected = courses.course_at(root).submitted / "daemon" / "01_softmax"
    assert (collected / "softmax.ipynb").read_bytes() == (newer / "softmax.ipynb").read_bytes()
    assert (collected / "timestamp.txt").read_text() == "2026-11-19 09:00:00.000000 UTC"
    assert skipped == [("daemon+01_softmax+2026-11-18 09:00:00.000000 UTC", "an older submission")]


def test_nothing_to_collect_is_an_error(tmp_path):
    with pytest.raises(NotebookError, match="no exchange inbound folder"):
        collecting.collect_exchange(courses.course_at(helpers.course(tmp_path)), tmp_path / "none", "01_softmax")
