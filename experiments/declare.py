"""A declared run: written down before it starts, then its result beside it.

    python -m experiments.declare NAME --why "what it measures" [--deals N --seed S] -- COMMAND ...

writes experiments/runs/NAME.json with the command, the commit, the date, the
deals and seed and `"status": "declared"` before the command starts (a record
that already exists is never replaced: a run is declared once), then runs the
command and adds its exit code, its time and the last lines of its output (the
figures it prints), with `"status": "done"`; a tournament's report (.json, with
--report) is folded in whole. Every figure a document quotes is one of these
records: docs name the record, the record names the command that made it.

A record's fields: `name`, `why`, `command` (a list of words; a string in
records written by hand), `deals`, `seed`, `commit`, `declared` (UTC), `status`,
then `exit_code`, `seconds` and `output`. A tournament's record also has
`result`, the first agent's figure over the other, read from the harness's table:

    {"agent": "cheat", "against": "rules", "elo": 217, "low": 179, "high": 257,
     "games": 400, "ms_per_move": 78.13}

`load` gives an older record, written before `result` existed, the same field
from its `output`, so every record reads alike. Figures measured before this
script existed are transcribed into records by hand: those carry
`"recorded_from": "experiments/logs/FILE.md#section"` (the log they were read
from, not re-run) and `documented_in` (the commit that first wrote the figure
down), and may carry `game`, `agent` (the spec as measured), `preset` (the
game's named preset with that spec, docs/search.md), `shipped_as` (the bot
file that network is shipped as), `date` and `note`.
`python -m experiments.tables` makes the docs' strength tables from `result`.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import re
import time
from pathlib import Path

RUNS = Path(__file__).resolve().parent / "runs"
ROOT = RUNS.parents[1]


def commit() -> str:
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return done.stdout.strip() + ("+changes" if dirty else "")


# A row of the harness's Elo table (eval/report.py): | agent | Elo | [low, high] | games | ... | ms/move |
_ROW = re.compile(r"^\| (?P<agent>[^|]+?) \| (?P<elo>[+-]\d+) \| \[(?P<low>[+-]\d+), (?P<high>[+-]\d+)\] \| "
                  r"(?P<games>\d+) \|.*\| (?P<ms>[\d.]+) \|$")


def result_from_output(output: list[str], measured: str | None = None) -> dict | None:
    """The measured agent's Elo over the other, from a two-agent tournament's table.

    The harness anchors one agent at 0 (its first by name), so the other's figure,
    negated, is the anchor's over it (the interval flipped). `measured` (the
    command's first `--agent`) is the agent the figure is given for; without it, or
    where it is not in the table, the anchor. None where the output holds no such
    table (a training run, a script's own report)."""
    rows = [m for m in map(_ROW.match, output) if m]
    if len(rows) != 2:
        return None
    first, second = (rows if rows[0]["elo"] == "+0" else rows[::-1])
    if measured == second["agent"]:
        return {"agent": second["agent"], "against": first["agent"], "elo": int(second["elo"]),
                "low": int(second["low"]), "high": int(second["high"]), "games": int(second["games"]),
                "ms_per_move": float(second["ms"])}
    return {"agent": first["agent"], "against": second["agent"], "elo": -int(second["elo"]),
            "low": -int(second["high"]), "high": -int(second["low"]), "games": int(first["games"]),
            "ms_per_move": float(first["ms"])}


def measured_agent(command: list[str] | str) -> str | None:
    """The name of a tournament command's first `--agent` (NAME=SPEC or a bare spec): the bot it measures."""
    from eval.config import split_agent
    words = command if isinstance(command, list) else command.split()
    agents = [words[i + 1] for i, word in enumerate(words[:-1]) if word == "--agent"]
    return split_agent(agents[0])[0] if agents else None


def load(name: str) -> dict:
    """Record NAME, with `result` read from its output where it was written without one."""
    record = json.loads((RUNS / f"{name}.json").read_text())
    if "result" not in record and isinstance(record.get("output"), list):
        found = result_from_output(record["output"], measured_agent(record["command"]))
        if found:
            record["result"] = found
    return record


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--" not in argv:
        print("usage: python -m experiments.declare NAME --why TEXT [--deals N] [--seed S] [--report FILE] "
              "-- COMMAND ...", file=sys.stderr)
        return 2
    cut = argv.index("--")
    parser = argparse.ArgumentParser(prog="experiments.declare")
    parser.add_argument("name")
    parser.add_argument("--why", required=True)
    parser.add_argument("--deals", type=int)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--report", help="a JSON file the command writes (a tournament's report) to keep whole")
    args = parser.parse_args(argv[:cut])
    command = argv[cut + 1:]
    path = RUNS / f"{args.name}.json"
    if path.exists():
        print(f"{path} exists: a run is declared once", file=sys.stderr)
        return 2
    record = {"name": args.name, "why": args.why, "command": command, "deals": args.deals, "seed": args.seed,
              "commit": commit(), "declared": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "status": "declared"}
    RUNS.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=2) + "\n")
    start = time.time()
    try:
        done = subprocess.run(command, capture_output=True, text=True)
    except OSError as e:
        record.update(status="did not start", error=str(e))
        path.write_text(json.dumps(record, indent=2) + "\n")
        print(f"{command[0] if command else '(no command)'}: {e}", file=sys.stderr)
        return 2
    record.update(status="done", exit_code=done.returncode, seconds=round(time.time() - start, 1),
                  output=(done.stdout.strip().splitlines() + done.stderr.strip().splitlines()[-5:])[-60:])
    found = result_from_output(record["output"], measured_agent(command))
    if found:
        record["result"] = found
    if args.report and Path(args.report).is_file():
        record["report"] = json.loads(Path(args.report).read_text())
    path.write_text(json.dumps(record, indent=2) + "\n")
    print("\n".join(record["output"]))
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
