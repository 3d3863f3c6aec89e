"""nbval runs the chapters cell by cell (the last tier of `make test`).  A learner is told before
a long cell starts what it does and about how long it takes (issue 26): any cell that runs longer
than ``LONG_SECONDS`` here fails unless its first line prints that notice.

The chapters' saved outputs were computed with NumPy's and OpenBLAS's AVX2 kernels.  On a CPU with
AVX-512 both pick other kernels by default, which round sums differently; over the thousands of
training steps of chapters 3, 11 and 12 the difference grows into other losses and accuracies (a
loss ratio of 77 instead of 129).  The kernels the chapters run on here are therefore pinned to
AVX2, which every x86-64 machine of the last decade has, so that a fresh run reproduces the saved
outputs on any of them.  The kernel nbval starts inherits this environment."""
import os
import re

import pytest

KERNELS = {"OPENBLAS_CORETYPE": "Haswell",                             # OpenBLAS's AVX2 kernels
           "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR"}  # NumPy's dispatch up to AVX2
os.environ.update(KERNELS)

# The learner is promised a word before any cell longer than 20 s; CI machines differ in speed, so
# the check already asks it of cells half as long.
LONG_SECONDS = 10
# A notice: the cell's first line prints what it does and how long, e.g.
#   print("Training the small Transformer (2000 Adam steps): about 1 minute on a laptop.")
NOTICE = re.compile(r"""^print\(["'].*\babout\b.*\b(second|minute)s?\b""")


def announces(source):
    """Whether the cell ``source`` starts (comments aside) by printing what it does and how long."""
    lines = [line for line in source.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return bool(lines) and bool(NOTICE.match(lines[0]))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    cell = getattr(item, "cell", None)   # nbval's IPyNbCell
    if (call.when == "call" and report.passed and cell is not None and call.duration > LONG_SECONDS
            and not announces(cell.source)):
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid}: ran {call.duration:.0f} s without first printing what it does and "
                           f"about how long it takes (book/conftest.py)")
