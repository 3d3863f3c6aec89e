"""SECURITY.md stays current: every test and attack it names exists, and every attack kept in
tests/adversarial/ is named there (by its file or its folder)."""
import re

import helpers

SECURITY = helpers.REPO / "SECURITY.md"
REFERENCE = re.compile(r"`(tests/[\w./-]+?\.py)(?:::(\w+))?`")


def _references():
    return REFERENCE.findall(SECURITY.read_text(encoding="utf-8"))


def test_every_test_the_threat_model_names_exists():
    references = _references()
    assert len(references) >= 20, "the threat model names the test of each entry point"
    missing = []
    for path, name in references:
        file = helpers.REPO / path
        if not file.is_file():
            missing.append(path)
        elif name and not re.search(rf"^(?:async )?def {name}\(", file.read_text(encoding="utf-8"), re.MULTILINE):
            missing.append(f"{path}::{name}")
    assert not missing, missing


def test_every_entry_point_has_a_row_with_a_test():
    """Each row of the entry-point table (a line starting with '| **') names at least one test."""
    rows = [line for line in SECURITY.read_text(encoding="utf-8").splitlines() if line.startswith("| **")]
    assert len(rows) >= 10, rows
    assert all(REFERENCE.search(row) for row in rows), [row[:80] for row in rows if not REFERENCE.search(row)]


def test_every_attack_kept_is_in_the_threat_model():
    text = SECURITY.read_text(encoding="utf-8")
    attacks = sorted((helpers.REPO / "tests" / "adversarial").glob("*/*.py"))
    assert attacks
    unnamed = [f"{p.parent.name}/{p.name}" for p in attacks if f"`{p.stem}`" not in text]
    assert not unnamed, unnamed
