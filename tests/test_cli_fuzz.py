"""Fuzzing the command line: game strings, agent specs and numeric options of every
subcommand. Whatever comes in, a command ends normally or with exit code 2 and one
line of error, never a traceback, and changes nothing already stored.

Two layers. Every subcommand (whatever modules registered one when this runs) is
given option values its own parser must refuse (no number where it takes one).
The toolkit's own commands are given values that may be valid as well, with
results files that stop a run before its first game (a file that is not ours),
and training and benchmarks replaced by a stand-in that only says it was asked."""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import math
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from scripts.cli import build_parser, main

ROOT = Path(__file__).resolve().parent.parent
FUZZ = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# ------------------------------------------------------------------ strategies
GAME_NAMES = ["python_page_one", "python_american_page_one", "python_modern_canasta", "kuhn_poker", "nosuch", ""]
PARAMETERS = ["players", "hand_size", "jokers", "empty_stock", "dobon", "score0", "first_player", "nope"]
BOT_NAMES = ["random", "rules", "neural", "ismcts", "pimc", "cheat_mcts", "openspiel_ismcts", "nosuch"]
SETTINGS = ["path", "prior", "iterations", "seconds", "worlds", "c", "symmetric", "margin", "x"]

junk = st.text(max_size=16)
number_text = st.one_of(
    st.integers(-10**20, 10**20).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["nan", "inf", "-inf", "1e400", "-0", "0", "none", "", " ", "0x10", "1_0", "1.5", "true"]),
    junk)
value_text = st.one_of(number_text, st.sampled_from(["true", "false", "pass", "reshuffle", "/nonexistent.safetensors",
                                                     "shipped", "rules", "(", ")", ",", "="]))
game_strings = st.one_of(
    junk,
    st.builds(lambda name, params: f"{name}({','.join(f'{k}={v}' for k, v in params)})" if params else name,
              st.sampled_from(GAME_NAMES),
              st.lists(st.tuples(st.sampled_from(PARAMETERS), value_text), max_size=3)),
    st.builds(lambda a, b: a + b, st.sampled_from(GAME_NAMES), st.sampled_from(["(", ")", "()", "(=)", "(a)x", ","])))
agent_specs = st.one_of(
    junk,
    st.builds(lambda name, params: f"{name}({','.join(f'{k}={v}' for k, v in params)})" if params else name,
              st.sampled_from(BOT_NAMES), st.lists(st.tuples(st.sampled_from(SETTINGS), value_text), max_size=2)),
    st.builds(lambda label, spec: f"{label}={spec}", st.sampled_from(["a", "b", "1x", ""]),
              st.sampled_from(["random", "rules", "rules(", "nosuch"])))
# Counts that are never both valid and large (a valid one is played, or planned): the large ones lie
# above the largest count any command accepts (`match --games`, 10,000,000), which hypothesis, drawing
# the band's bounds first, would otherwise play: `match --games 1000000` ran for hours.
small_counts = st.one_of(st.integers(-10**15, 0).map(str), st.integers(1, 2).map(str),
                         st.integers(10**7 + 1, 10**15).map(str), junk)


def not_a_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return text.strip().lower() not in ("none", "true", "false")
    return False


non_numbers = st.text(min_size=1, max_size=12).filter(not_a_number)


# ------------------------------------------------------------------ the checks
def snapshot(*folders: Path) -> dict[str, str]:
    """Every file under the folders, by content; not SQLite's shared-memory index
    (-shm) nor an empty write-ahead log (-wal), which a reader may leave and which
    hold no data."""
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest()
            for folder in folders for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.name.endswith("-shm") and not (p.name.endswith("-wal") and not p.stat().st_size)}


def run(argv: list[str], cwd: Path) -> tuple[int, str]:
    """(exit code, stderr) of `cardarena argv` run in this process, in `cwd`."""
    err = io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            main(argv)
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    return code, err.getvalue()


def check(argv: list[str], cwd: Path, *, strict: bool = True) -> int:
    """Runs argv and checks the outcome: exit 0, or 2 with one error line and no
    traceback; with `strict`, that line is all that stderr holds. Returns the code."""
    code, err = run(argv, cwd)
    assert "Traceback" not in err, (argv, err)
    assert code in (0, 2), (argv, code, err)
    if code == 2:
        lines = err.strip().splitlines()
        errors = [line for line in lines if ": error: " in line]
        assert len(errors) == 1 and lines[-1] == errors[0], (argv, err)
        if strict:
            assert len(lines) == 1, (argv, err)
    return code


@pytest.fixture(scope="module")
def place(tmp_path_factory) -> Path:
    """A working folder with a results file that is not ours, a real one, a plain
    torch dict, a bot file and a text file; the fuzzed commands run in it."""
    import torch
    place = tmp_path_factory.mktemp("fuzz")
    (place / "notes.db").write_text("my own notes, not a results file\n")
    code, err = run(["tournament", "--agent", "random", "--agent", "rules", "--deals", "2", "--workers", "1",
                     "--quiet", "--bootstrap", "0", "--no-files", "--results", "real.db"], place)
    assert code == 0, err
    torch.save({"weights": torch.zeros(2)}, place / "plain.pt")
    shutil.copy(ROOT / "bots" / "python_page_one.safetensors", place / "bot.safetensors")
    return place


@pytest.fixture(scope="module", autouse=True)
def stand_ins():
    """Training and benchmarks replaced by stand-ins that only record that they
    were asked (the fuzz checks what reaches them, not what they do)."""
    import agents.neural.dmc as dmc
    import scripts.bench as bench
    saved_train, saved_sections = dmc.train, dict(bench.SECTIONS)

    def train(cfg, resume=None, progress=True):
        raise SystemExit(0)
    dmc.train = train
    for name in bench.SECTIONS:
        bench.SECTIONS[name] = lambda seconds, repeats: None
    yield
    dmc.train = saved_train
    bench.SECTIONS.update(saved_sections)


def unchanged(place: Path, argv: list[str], strict: bool = True) -> int:
    before = snapshot(place, ROOT / "bots")
    code = check(argv, place, strict=strict)
    assert snapshot(place, ROOT / "bots") == before, argv
    return code


# ------------------------------------------------------------------ every subcommand
def _numeric_options() -> list[tuple[list[str], str]]:
    """(command path, option) of every option of every subcommand that takes a number."""
    numeric = ("int", "float", "integer", "number", "finite", "seconds", "bootstrap")
    found = []

    def visit(path: list[str], parser: argparse.ArgumentParser) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, child in action.choices.items():
                    visit(path + [name], child)
            elif action.option_strings and action.type is not None and \
                    any(word in getattr(action.type, "__name__", "") for word in numeric):
                found.append((path, action.option_strings[-1]))
    _, sub = build_parser()
    for name, parser in sub.choices.items():
        visit([name], parser)
    return found


NUMERIC_OPTIONS = _numeric_options()


def test_the_fuzz_sees_every_subcommand_numeric_option():
    commands = {tuple(path) for path, _ in NUMERIC_OPTIONS}
    assert {("match",), ("tournament",), ("sprt",), ("report",), ("train",)} <= commands
    assert len(NUMERIC_OPTIONS) >= 30


@FUZZ
@given(option=st.sampled_from(NUMERIC_OPTIONS), value=non_numbers)
def test_every_subcommand_refuses_a_non_number_with_one_line(place, option, value):
    path, flag = option
    unchanged(place, [*path, f"{flag}={value}"])


# ------------------------------------------------------------------ the toolkit's commands
@FUZZ
@given(game=game_strings, agents=st.lists(agent_specs, min_size=1, max_size=3), deals=small_counts,
       time_limit=number_text, bootstrap=number_text, seed=number_text, workers=small_counts,
       results=st.sampled_from(["notes.db", "real.db", "res.md", "missing/x.db", "."]))
def test_tournament(place, game, agents, deals, time_limit, bootstrap, seed, workers, results):
    argv = ["tournament", "--game", game, "--deals", deals, "--time-limit", time_limit, "--bootstrap", bootstrap,
            "--seed", seed, "--workers", workers, "--results", results, "--quiet"]
    for spec in agents:
        argv += ["--agent", spec]
    if results == "real.db":
        argv.append("--no-files")
    code = unchanged(place, argv, strict=False)
    assert code == 2 or results == "real.db"


@FUZZ
@given(game=game_strings, baseline=agent_specs, candidate=agent_specs, elo0=number_text, elo1=number_text,
       alpha=number_text, beta=number_text, max_deals=small_counts)
def test_sprt(place, game, baseline, candidate, elo0, elo1, alpha, beta, max_deals):
    argv = ["sprt", "--game", game, "--baseline", baseline, "--candidate", candidate, "--elo0", elo0, "--elo1",
            elo1, "--alpha", alpha, "--beta", beta, "--max-deals", max_deals, "--results", "notes.db", "--quiet"]
    assert unchanged(place, argv, strict=False) == 2


@FUZZ
@given(results=st.sampled_from(["real.db", "notes.db", "missing.db", ".", "plain.pt"]), anchor=agent_specs,
       bootstrap=number_text)
def test_report(place, results, anchor, bootstrap):
    unchanged(place, ["report", results, "--anchor", anchor, "--bootstrap", bootstrap, "--no-files"])


@FUZZ
@given(game=game_strings, agents=st.lists(agent_specs, max_size=2), games=small_counts, seed=number_text)
def test_match(place, game, agents, games, seed):
    argv = ["match", "--game", game, "--games", games, "--seed", seed, "--quiet"]
    for spec in agents:
        argv += ["--agent", spec]
    unchanged(place, argv)


@FUZZ
@given(game=game_strings, numbers=st.lists(st.tuples(st.sampled_from(
    ["--minutes", "--actors", "--lr", "--epsilon", "--batch-size", "--buffer-size", "--ema", "--probe", "--hidden",
     "--eval-deals", "--seed"]), number_text), max_size=3),
    resume=st.sampled_from([None, "plain.pt", "bot.safetensors", "notes.db", "missing.pt"]))
def test_train(place, game, numbers, resume):
    argv = ["train", "--game", game, "--out", "runs/x"] + [f"{flag}={value}" for flag, value in numbers]
    if resume:
        argv += ["--resume", resume]
    unchanged(place, argv)
    assert not (place / "runs").exists()


@FUZZ
@given(checkpoint=st.sampled_from(["plain.pt", "bot.safetensors", "notes.db", "missing.pt", "."]),
       out=st.sampled_from(["new.safetensors", "bot.safetensors", "missing/x.safetensors", "x.onnx", "real.db"]),
       play=st.one_of(st.none(), value_text, agent_specs), force=st.booleans())
def test_export(place, checkpoint, out, play, force):
    argv = ["export", checkpoint, out] + (["--play", play] if play is not None else []) + (["--force"] if force else [])
    assert unchanged(place, argv) == 2


@FUZZ
@given(what=st.lists(st.one_of(st.sampled_from(["games", "bots", "files"]), junk), max_size=2), game=game_strings)
def test_list(place, what, game):
    unchanged(place, ["list", *what, "--game", game])


@FUZZ
@given(seconds=number_text, repeats=number_text, only=st.one_of(st.sampled_from(["page_one", "harness"]), junk))
def test_bench(place, seconds, repeats, only):
    # the bench's own parser (scripts/bench.py) prints its usage before the error line
    unchanged(place, ["bench", "--only", only, "--seconds", seconds, "--repeats", repeats], strict=False)


def test_a_valid_command_reaches_its_work(place):
    """The stand-ins are reached: the fuzz above is not refusing everything."""
    assert check(["train", "--game", "python_page_one(players=3)", "--out", "runs/x"], place) == 0
    assert check(["bench", "--only", "page_one"], place) == 0
    assert math.isfinite(os.path.getsize(place / "real.db"))
