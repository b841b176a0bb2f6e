"""The docs' strength tables are the run records' (experiments/tables.py).

Run as a command, not imported: the product's tests import nothing from the lab
(experiments/), and the check is what a person runs before committing a doc.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def tables(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "experiments.tables", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_every_table_in_the_docs_is_what_the_records_give():
    done = tables("--check")
    assert done.returncode == 0, done.stderr


def test_a_table_edited_by_hand_is_named_and_rewriting_restores_it(tmp_path):
    """On a copy of the docs and records: change a figure, --check names the table, a plain run fixes it."""
    copy = tmp_path / "repo"
    for part in ("experiments", "docs"):
        shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__", "figures"))
    shutil.copy(ROOT / "README.md", copy / "README.md")
    doc = copy / "docs" / "search.md"
    text = doc.read_text()
    assert "**+193 [+168, +218]**" in text
    doc.write_text(text.replace("**+193 [+168, +218]**", "**+293 [+268, +318]**"))
    done = tables("--check", cwd=copy)
    assert done.returncode == 1 and "search-strength (docs/search.md)" in done.stderr
    assert "neural-strength" not in done.stderr
    assert tables(cwd=copy).returncode == 0
    assert doc.read_text() == text and tables("--check", cwd=copy).returncode == 0
