"""The house's arrows point down: what a bot imports when it plays (the rules in
games/, the bots in agents/, the search in search/) never loads the harness
(eval), the command line (scripts), the training lab (training) or the
research scripts (experiments). A bot that plays in an engine, a table or
another program then carries none of them, and none of them can change how it plays.
The records (records/) depend on the games only: any program reads and writes them.

Each module is imported in one fresh interpreter, in turn; whatever forbidden
module appears after an import is that module's doing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ("agents", "search", "games")
FORBIDDEN = ("eval", "scripts", "training", "experiments")
ABOVE_RECORDS = FORBIDDEN + ("agents", "search", "play")

_PROBE = """
import importlib, json, sys
forbidden = set(sys.argv[1].split(","))
found = {}
for name in sys.argv[2:]:
    before = set(sys.modules)
    importlib.import_module(name)
    loaded = sorted(m for m in set(sys.modules) - before if m.split(".")[0] in forbidden)
    if loaded:
        found[name] = loaded
print(json.dumps(found))
"""


def modules_of(packages: tuple[str, ...]) -> list[str]:
    """Every module of `packages`, by its dotted name."""
    names = []
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def imported_above(modules: list[str], forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    """Each module, imported in turn in a fresh interpreter, with the forbidden
    modules that appeared with it (none: left out)."""
    done = subprocess.run([sys.executable, "-c", _PROBE, ",".join(forbidden), *modules], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_bot_runtime_imports_no_harness_command_line_or_training():
    modules = modules_of(RUNTIME)
    assert {"agents.engine", "agents.neural.bot", "search.analysis", "games.chance"} <= set(modules)
    assert imported_above(modules, FORBIDDEN) == {}


def test_the_records_need_the_games_only():
    modules = modules_of(("records",))
    assert {"records.record", "records.files"} <= set(modules)
    assert imported_above(modules, ABOVE_RECORDS) == {}
