"""The docs' strength tables, made from the run records (experiments/runs/*.json).

    python -m experiments.tables           # rewrite every table in the docs from the records
    python -m experiments.tables --check   # exit 1, naming each table a doc has out of step

A doc holds a table between `<!-- table:NAME -->` and `<!-- /table -->`; what
lies between is this script's, made from the records TABLES lists for NAME, in
that order. A figure in a reference is thus always a record's: to change it,
declare a run (experiments/declare.py) and list its record here. `--check` is
what tests/test_experiment_tables.py runs, so a doc edited by hand, or a record
changed without the doc, fails the suite.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from experiments.declare import ROOT, RUNS, load

# Each table's records, in the order its rows are shown.
TABLES: dict[str, tuple[str, ...]] = {
    # docs/search.md: each game's presets, the other fair searches worth knowing, and the bound.
    "search-strength": (
        "search-page-one-strong", "search-page-one-cheat",
        "search-american-page-one-strong", "search-american-page-one-flat", "search-american-page-one-cheat",
        "search-canasta-strong-ismcts", "search-canasta-strong", "search-canasta-fast", "i43-mc-fast-value",
        "search-canasta-cheat", "i43-mc-cheat-value", "i43-mc-cheat-value-2", "i43-mc-cheat-value-3",
        "i43-classic4-search",
        "search-hearts-openspiel",
    ),
    # docs/neural.md: the shipped networks alone.
    "neural-strength": ("neural-page-one", "neural-american-page-one", "neural-canasta", "neural-canasta-vs-run-l"),
    # README.md: each game's strongest search preset and its shipped network, and the hearts check.
    "readme-strength": (
        "search-page-one-strong", "neural-page-one",
        "search-american-page-one-strong", "neural-american-page-one",
        "search-canasta-strong-ismcts", "search-canasta-fast", "neural-canasta",
        "search-hearts-openspiel",
    ),
}
DOCS = ("README.md", "docs")
_BLOCK = re.compile(r"(<!-- table:(?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /table -->)", re.S)


def _command_value(command: list[str] | str, flag: str) -> list[str]:
    """Every value of `flag` in a record's command (a record written by hand may hold one string)."""
    words = command if isinstance(command, list) else command.split()
    return [words[i + 1] for i, word in enumerate(words[:-1]) if word == flag]


def _game(record: dict) -> str:
    return record.get("game") or next(iter(_command_value(record["command"], "--game")), "?")


def _agent(record: dict) -> str:
    """The measured bot's spec: the record's own, else its `--agent NAME=SPEC` in the command."""
    if "agent" in record:
        return record["agent"]
    name = record["result"]["agent"]
    for value in _command_value(record["command"], "--agent"):
        if value.startswith(f"{name}="):
            return value.split("=", 1)[1]
    return name


def row(record: dict) -> str:
    result = record["result"]
    bot = f"`{_agent(record)}`"
    if record.get("preset"):
        bot += f" (preset `{record['preset']}`)"
    if record.get("shipped_as"):
        bot += f" (shipped as `{record['shipped_as']}`)"
    games = f"{result['games']} ({record['deals']}, seed {record['seed']})"
    elo = f"{result['elo']:+d} [{result['low']:+d}, {result['high']:+d}]"
    if result["low"] > 0 or result["high"] < 0:
        elo = f"**{elo}**"      # bold where the interval excludes level play, as the logs have it
    return (f"| `{_game(record)}` | {bot} | `{result['against']}` | {elo} | {games} | {result['ms_per_move']:g} | {record.get('date') or record['declared'][:10]} "
            f"| [{record['name']}]({{runs}}/{record['name']}.json) |")


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def unsourced(record: dict) -> str | None:
    """Where a transcribed record's `recorded_from` names no section of its log, what is wrong; else None."""
    source = record.get("recorded_from")
    if not source:
        return None
    path, _, anchor = source.partition("#")
    log = ROOT / path
    if not log.is_file():
        return f"{record['name']}: {path} does not exist"
    anchors = {_slug(line.lstrip("#")) for line in log.read_text().splitlines() if line.startswith("#")}
    return None if anchor in anchors else f"{record['name']}: {path} has no section #{anchor}"


def render(name: str, doc: Path) -> str:
    """Table NAME as it belongs in `doc` (record links relative to the doc's folder)."""
    runs = Path(os.path.relpath(RUNS, doc.parent)).as_posix()
    lines = ["| game | bot | against | Elo [95%] | games (deals, seed) | ms a move | date | record |",
             "|---|---|---|:---:|---:|---:|---|---|"]
    lines += [row(load(record)).replace("{runs}", runs) for record in TABLES[name]]
    return "\n".join(lines) + "\n"


def documents() -> list[Path]:
    found = []
    for entry in DOCS:
        path = ROOT / entry
        found += sorted(path.rglob("*.md")) if path.is_dir() else [path]
    return found


def update(check: bool) -> list[str]:
    """Rewrite (or with `check`, only compare) every table; the names of those out of step."""
    stale, seen = [], set()
    for doc in documents():
        text = doc.read_text()
        if "<!-- table:" not in text:
            continue

        def fill(match: re.Match) -> str:
            name = match["name"]
            if name not in TABLES:
                raise SystemExit(f"{doc.relative_to(ROOT)}: no table named {name!r}; known: {', '.join(TABLES)}")
            seen.add(name)
            body = render(name, doc)
            if body != match["body"]:
                stale.append(f"{name} ({doc.relative_to(ROOT)})")
            return match[1] + body + match[4]
        new = _BLOCK.sub(fill, text)
        if not check and new != text:
            doc.write_text(new)
    # A table no doc shows is out of step too: its figures would be quoted nowhere.
    stale += [f"{name} (in no doc)" for name in TABLES if name not in seen]
    # So is one whose transcribed figure points at a log section that is not there.
    stale += [f"{name} ({problem})" for name in TABLES for record in TABLES[name]
              if (problem := unsourced(load(record)))]
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m experiments.tables", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a doc's table differs")
    args = parser.parse_args(argv)
    stale = update(args.check)
    if args.check and stale:
        print("tables out of step with experiments/runs (run python -m experiments.tables): " + ", ".join(stale),
              file=sys.stderr)
        return 1
    if not args.check:
        print(f"rewritten or missing: {', '.join(stale)}" if stale else "every table matches its records")
    return 0


if __name__ == "__main__":
    sys.exit(main())
