"""The command line's table of concrete cases (tests/data/fuzz/cli_cases.txt): every
finding of issue 42's audit, and every reader on every game's results file and on
every kind of damaged file. Each case runs `cardarena` in this process (a case
with a closed output, in its own process) in a fresh copy of the folder of files,
and must end as the table says, in time, without a traceback, changing no file it
was not asked to write and leaving nothing new beside them.

With tests/test_cli_fuzz.py (hypothesis), the command line's fuzz corpus: more
than a thousand inputs, all four games, every subcommand."""

from __future__ import annotations

import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.cli_fuzz_support import (CASE_SECONDS, GAMES, ROOT, STUDY, build_place, check_ending, copy_place, run,
                                    snapshot)

CASES_FILE = ROOT / "tests" / "data" / "fuzz" / "cli_cases.txt"
EXPANSIONS = {
    "{results}": ["po.db", "apo.db", STUDY, "cc.db"],
    "{game}": list(GAMES),
    "{damaged}": ["seat9.db", "shortret.db", "strret.db", "nanret.db", "shortmoves.db", "badjson.db",
                  "deepjson.db", "cuthist.db", "badgame.db", "badagents.db", "modmatch.db", "nogames.db",
                  "marked.db", "illegal.db", "cillegal.db"],
    "{junk}": ["notes.db", "empty.db", "foreign.db", "plain.pt", "pipe", "folder", "missing.db", "deep.json"],
    "{records}": ["po.jsonl", "cut.jsonl", "hole.jsonl", "returns.json", "short.json", "deep.jsonl", "pretty.json"],
}
CLOSED_STDOUT = "[closed-stdout]"


@dataclass
class Step:
    """One command of a case: how it must end, what it may write, what its output says."""
    expect: str                   # "0", "2" or "*"
    argv: list[str]
    writes: list[str] = field(default_factory=list)
    says: str | None = None
    closed_stdout: bool = False

    def __str__(self) -> str:
        return shlex.join(self.argv)


def parse_step(text: str) -> Step:
    """`EXPECT [closed-stdout] COMMAND [=> FILES] [~ TEXT]` as a Step."""
    text, _, says = text.partition(" ~ ")
    text, _, writes = text.partition(" => ")
    expect, _, command = text.strip().partition(" ")
    assert expect in ("0", "2", "*"), text
    closed = command.startswith(CLOSED_STDOUT)
    argv = shlex.split(command.removeprefix(CLOSED_STDOUT))
    return Step(expect, argv, writes.split(), says.strip() or None, closed)


def load_cases(path: Path = CASES_FILE) -> list[tuple[str, list[Step]]]:
    """(id, steps) for every case of the table, each {placeholder} expanded."""
    cases: list[list[str]] = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("+"):
            cases[-1].append(line[1:])
        else:
            cases.append([line])
    out = []
    for lines in cases:
        variants = [lines]
        for key, values in EXPANSIONS.items():
            if any(key in line for line in lines):
                variants = [[line.replace(key, value) for line in v] for v in variants for value in values]
        for v in variants:
            steps = [parse_step(line) for line in v]
            out.append((" && ".join(str(s) for s in steps), steps))
    return out


CASES = load_cases()


@pytest.fixture(scope="module")
def master(tmp_path_factory) -> Path:
    """The folder of files every case starts from (tests/cli_fuzz_support.build_place)."""
    place = tmp_path_factory.mktemp("corpus-master")
    build_place(place)
    return place


def run_closed_stdout(argv: list[str], cwd: Path) -> tuple[int, str]:
    """(exit code, stderr) of `cardarena argv` in its own process whose standard
    output's reader has gone before it writes: `cardarena games r.db | head`."""
    import os
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "scripts.cli", *argv], cwd=cwd, stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=CASE_SECONDS,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    finally:
        os.close(write)
    return done.returncode, done.stderr


def test_the_table_has_every_audit_command_and_more_than_400_cases():
    commands = {tuple(step.argv[:2]) if step.argv[0] == "study" else (step.argv[0],)
                for _, steps in CASES for step in steps}
    for command in [("match",), ("bench",), ("train",), ("export",), ("ensemble",), ("tournament",), ("report",),
                    ("sprt",), ("paired",), ("list",), ("games",), ("show",), ("export-games",), ("analyse",),
                    ("play",), ("engine",), ("schema",), ("study", "canasta"), ("study", "stats"),
                    ("study", "requirement"), ("study", "tune"), ("study", "plot"), ("study", "fingerprint"),
                    ("selfplay",), ("train-value",), ("train-belief",)]:
        assert command in commands, command
    assert len(CASES) > 400
    for game in GAMES:
        assert any(game in " ".join(step.argv) for _, steps in CASES for step in steps), game


@pytest.mark.parametrize("steps", [steps for _, steps in CASES], ids=[case_id for case_id, _ in CASES])
def test_case(master, tmp_path, steps):
    place = copy_place(master, tmp_path / "place")
    for step in steps:
        before = snapshot(place)
        if step.closed_stdout:
            code, err = run_closed_stdout(step.argv, place)
            out = ""
            assert err == "", (str(step), err)          # a closed output is a quiet end
        else:
            code, out, err = run(step.argv, place)
        check_ending(step.argv, code, err)
        assert step.expect == "*" or code == int(step.expect), (str(step), code, out[-500:], err)
        if step.says is not None:
            assert step.says in out + err, (str(step), step.says, out[-500:], err)
        after = snapshot(place)
        allowed = {str(place / name) for name in step.writes} if code == 0 else set()
        changed = {name for name in set(before) | set(after) if before.get(name) != after.get(name)}
        assert changed <= allowed, (str(step), sorted(changed - allowed))
