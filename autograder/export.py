"""``nbgrader export``'s CSV, safe to open in a spreadsheet.

nbgrader's ``CsvExportPlugin`` joins each row's values with commas as they are: a
learner's name holding a comma shifts the columns, one holding a line break
writes a row of its own, and one starting with ``=`` (``=HYPERLINK(...)``)
becomes a formula when a spreadsheet opens the file.  ``SpreadsheetSafeCsvExportPlugin``
writes the same columns and rows with Python's ``csv`` module (a field holding a
comma, a quote or a line break is quoted), and, following OWASP's guidance on
CSV injection, prefixes with ``'`` every text cell that starts with ``=``, ``+``,
``-``, ``@``, a tab or a carriage return.  Only text is prefixed (assignment,
student id, names, e-mail): scores, penalties and dates are numbers nbgrader
computed, and stay numbers (a negative one is not a formula).

The course selects it in ``nbgrader_config.py``::

    c.ExportApp.plugin_class = "autograder.export.SpreadsheetSafeCsvExportPlugin"
"""
import csv

from nbgrader.api import MissingEntry
from nbgrader.plugins.export import CsvExportPlugin

from .safe import spreadsheet_text

COLUMNS = ["assignment", "duedate", "timestamp", "student_id", "last_name", "first_name", "email",
           "raw_score", "late_submission_penalty", "score", "max_score"]   # nbgrader's, in its order
TEXT_COLUMNS = {"assignment", "student_id", "last_name", "first_name", "email"}


def cells(row):
    """The CSV cells of one row ({column: value}), as nbgrader writes them, text made safe."""
    return [spreadsheet_text(row[column]) if column in TEXT_COLUMNS
            else "" if row[column] is None else str(row[column]) for column in COLUMNS]


class SpreadsheetSafeCsvExportPlugin(CsvExportPlugin):
    """nbgrader's CSV export (same columns, rows and options), each cell safe for spreadsheets."""

    def rows(self, gradebook):
        """Each student's row for each assignment, as nbgrader's CsvExportPlugin computes it."""
        students = {str(item) for item in self.student}
        assignments = {str(item) for item in self.assignment}
        for assignment in gradebook.assignments:
            if assignments and assignment.name not in assignments:
                continue
            for student in gradebook.students:
                if students and student.id not in students:
                    continue
                row = {"assignment": assignment.name, "duedate": assignment.duedate, "student_id": student.id,
                       "last_name": student.last_name, "first_name": student.first_name,
                       "email": student.email, "max_score": assignment.max_score}
                try:
                    submission = gradebook.find_submission(assignment.name, student.id)
                except MissingEntry:   # nothing submitted: zero, as nbgrader's export says
                    row.update(timestamp=None, raw_score=0.0, late_submission_penalty=0.0, score=0.0)
                else:
                    penalty = submission.late_submission_penalty
                    row.update(timestamp=submission.timestamp, raw_score=submission.score,
                               late_submission_penalty=penalty, score=max(0.0, submission.score - penalty))
                yield row

    def export(self, gradebook):
        destination = self.to or "grades.csv"
        self.log.info("Exporting grades to %s", destination)
        with open(destination, "w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow(COLUMNS)
            for row in self.rows(gradebook):
                writer.writerow(cells(row))
