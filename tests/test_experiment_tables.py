"""The docs' strength tables are the run records' (experiments/tables.py).

Run as a command, not imported: the product's tests import nothing from the lab
(experiments/), and the check is what a person runs before committing a doc.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from agents.presets import presets

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


def test_every_preset_is_the_bot_of_a_run_record():
    """A preset is a bot measured in a recorded run: the record names it and its spec, the files
    it played under their names of the day (bots/earlier/..., the same bytes, tests/test_presets.py)."""
    renamed = {"bots/earlier/python_modern_canasta_dmc.safetensors": "bots/python_modern_canasta.dmc.safetensors",
               "bots/earlier/python_modern_canasta_advantage_l.safetensors":
                   "bots/python_modern_canasta.advantage.safetensors"}
    records = [json.loads(path.read_text()) for path in sorted((ROOT / "experiments" / "runs").glob("*.json"))]
    measured = {r["preset"]: r for r in records if isinstance(r, dict) and r.get("preset")}
    for name, spec in presets().items():
        assert name in measured, f"preset {name}: no record in experiments/runs names it"
        agent = measured[name]["agent"]
        for earlier, shipped in renamed.items():
            agent = agent.replace(earlier, shipped)
        assert agent == spec and "elo" in measured[name]["result"], name
