"""Fuzzing the command line: game strings, agent specs, numeric options and files
of every subcommand. Whatever comes in, a command ends normally or with exit code
2 and one line of error (after any warnings naming what it skipped), never a
traceback, in time, and changes nothing already stored: no file in the folder it
runs in changes, and none appears (no -wal or -shm beside a file it only read)
but a scratch output it was asked to write.

Two layers. Every subcommand (whatever modules registered one when this runs) is
given option values its own parser must refuse (no number where it takes one).
The toolkit's own commands are given values that may be valid as well, with
results files that stop a run before its first game (a file that is not ours),
every game's results file and every kind of damaged file of
tests/cli_fuzz_support.py, and training and benchmarks replaced by a stand-in
that only says it was asked. With the table of tests/test_cli_corpus.py, this
is the command line's fuzz corpus (issue 42)."""

from __future__ import annotations

import argparse
import math
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from scripts.cli import build_parser
from tests.cli_fuzz_support import GAMES, ROOT, add_specials, build_place, check_ending, run, signature, snapshot

FUZZ = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MORE = settings(FUZZ, max_examples=50)

# ------------------------------------------------------------------ strategies
GAME_NAMES = [*GAMES, "kuhn_poker", "nosuch", ""]
PARAMETERS = ["players", "hand_size", "jokers", "empty_stock", "dobon", "score0", "first_player", "nope"]
BOT_NAMES = ["random", "rules", "neural", "ismcts", "pimc", "cheat_mcts", "openspiel_ismcts", "nosuch"]
SETTINGS = ["path", "prior", "iterations", "seconds", "worlds", "c", "symmetric", "margin", "x"]
# The folder's files (tests/cli_fuzz_support.build_place): each game's results file (mc.db a study's),
# record files, every kind of damage, and files that are not ours.
RESULTS_FILES = ["po.db", "apo.db", "mc.db", "cc.db"]
DAMAGED_FILES = ["seat9.db", "shortret.db", "strret.db", "nanret.db", "shortmoves.db", "badjson.db", "deepjson.db",
                 "cuthist.db", "badgame.db", "badagents.db", "modmatch.db", "nogames.db", "marked.db", "illegal.db",
                 "cillegal.db"]
RECORD_FILES = ["po.jsonl", "cut.jsonl", "hole.jsonl", "returns.json", "short.json", "deep.json", "deep.jsonl",
                "pretty.json"]
OTHER_FILES = ["notes.db", "empty.db", "foreign.db", "plain.pt", "bot.safetensors", "pipe", "folder", "missing.db",
               "/dev/null", ".", "po.db-wal"]
any_file = st.sampled_from(RESULTS_FILES + DAMAGED_FILES + RECORD_FILES + OTHER_FILES)
results_file = st.sampled_from(RESULTS_FILES + DAMAGED_FILES + OTHER_FILES)
SCRATCH = "scratch"          # the outputs a command may write, removed after each example
# Outputs: a scratch file, or one that must be refused (an input's kind, a device, a pipe, a folder,
# a missing folder, an SQLite file's log).
outputs = st.sampled_from([f"{SCRATCH}.out", "po.db", "mc.db-wal", "po.db-shm", "pipe", "folder", "notes.db",
                           "/dev/null", "missing/x.out", "po.jsonl", "bot.safetensors", "."])

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
def check(argv: list[str], cwd: Path) -> int:
    """Runs argv in this process and checks how it ended (cli_fuzz_support.check_ending)."""
    code, _, err = run(argv, cwd)
    check_ending(argv, code, err)
    return code


@pytest.fixture(scope="module")
def place(tmp_path_factory) -> Path:
    """The folder the fuzzed commands run in (tests/cli_fuzz_support.build_place)."""
    place = tmp_path_factory.mktemp("fuzz")
    build_place(place)
    add_specials(place)
    return place


@pytest.fixture(scope="module", autouse=True)
def shipped_bots_intact():
    """The shipped bot files, hashed before and after the whole fuzz (each
    example compares their signature, `unchanged`)."""
    before = snapshot(ROOT / "bots")
    yield
    assert snapshot(ROOT / "bots") == before


@pytest.fixture(scope="module", autouse=True)
def stand_ins():
    """Training and benchmarks replaced by stand-ins that only record that they
    were asked (the fuzz checks what reaches them, not what they do)."""
    import training.dmc as dmc
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


def unchanged(place: Path, argv: list[str]) -> int:
    """Runs argv in `place`: it ends as `check` demands and changes no file there
    (nor in bots/) but SCRATCH outputs (files or a folder's), which are removed
    after. Returns the code."""
    before, shipped = snapshot(place), signature(ROOT / "bots")
    try:
        code = check(argv, place)
        after = snapshot(place)
        changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
        assert all(f"/{SCRATCH}" in p for p in changed), (argv, sorted(changed))
        assert signature(ROOT / "bots") == shipped, argv
    finally:
        for path in place.glob(f"{SCRATCH}*"):
            if path.is_dir():
                shutil.rmtree(path)
            else:
                path.unlink()
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
       results=st.sampled_from(["notes.db", "po.db", "res.md", "missing/x.db", ".", "pipe", "/dev/null",
                                "marked.db", "po.db-wal", "po.jsonl"]))
def test_tournament(place, game, agents, deals, time_limit, bootstrap, seed, workers, results):
    argv = ["tournament", "--game", game, "--deals", deals, "--time-limit", time_limit, "--bootstrap", bootstrap,
            "--seed", seed, "--workers", workers, "--results", results, "--quiet"]
    for spec in agents:
        argv += ["--agent", spec]
    if results == "po.db":
        argv.append("--no-files")
    code = unchanged(place, argv)
    assert code == 2 or results == "po.db"


@FUZZ
@given(game=game_strings, baseline=agent_specs, candidate=agent_specs, elo0=number_text, elo1=number_text,
       alpha=number_text, beta=number_text, max_deals=small_counts)
def test_sprt(place, game, baseline, candidate, elo0, elo1, alpha, beta, max_deals):
    argv = ["sprt", "--game", game, "--baseline", baseline, "--candidate", candidate, "--elo0", elo0, "--elo1",
            elo1, "--alpha", alpha, "--beta", beta, "--max-deals", max_deals, "--results", "notes.db", "--quiet"]
    assert unchanged(place, argv) == 2


@FUZZ
@given(results=any_file, anchor=agent_specs, bootstrap=number_text)
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
@given(checkpoint=st.sampled_from(["plain.pt", "bot.safetensors", "notes.db", "missing.pt", ".", "pipe"]),
       out=st.sampled_from(["new.safetensors", "bot.safetensors", "missing/x.safetensors", "x.onnx", "po.db",
                            "/dev/null"]),
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
    unchanged(place, ["bench", "--only", only, "--seconds", seconds, "--repeats", repeats])


def test_a_valid_command_reaches_its_work(place):
    """The stand-ins are reached: the fuzz above is not refusing everything."""
    assert check(["train", "--game", "python_page_one(players=3)", "--out", "runs/x"], place) == 0
    assert check(["bench", "--only", "page_one"], place) == 0
    assert math.isfinite(os.path.getsize(place / "po.db"))


# ------------------------------------------------------------------ files: readers and writers
game_ids = st.one_of(st.none(), st.sampled_from(["0-0", "0-1", "1-0", "0-0-0", "99-0", "0", "1", "7", "x", "-1", "0--0",
                                                 "²", "99999999999999999999-0"]), junk)
move_numbers = st.one_of(st.integers(-1, 400).map(str), number_text)


@MORE
@given(source=any_file, game=game_ids, view=st.one_of(st.none(), st.integers(-1, 5).map(str), junk),
       as_json=st.booleans())
def test_show(place, source, game, view, as_json):
    argv = ["show", source] + ([game] if game is not None else []) + (["--open"] if view is None else ["--view", view])
    unchanged(place, argv + (["--json"] if as_json else []))


@FUZZ
@given(game=game_strings)
def test_schema(place, game):
    unchanged(place, ["schema", game])


@FUZZ
@given(source=any_file, game=game_ids, move=move_numbers, worlds=small_counts,
       policy=st.sampled_from(["rules", "random", "nosuch", "rules(x=1)"]))
def test_analyse(place, source, game, move, worlds, policy):
    argv = ["analyse", source] + ([game] if game is not None else []) + ["--move", move, "--worlds", worlds,
                                                                         "--policy", policy]
    unchanged(place, argv)


@MORE
@given(results=results_file, agent=st.one_of(st.none(), st.sampled_from(["random", "rules", "a", "b"]), junk),
       deal=st.one_of(st.none(), move_numbers), faults=st.sampled_from([None, "--faults", "--no-faults"]))
def test_games(place, results, agent, deal, faults):
    argv = ["games", results] + (["--agent", agent] if agent is not None else []) + \
        (["--deal", deal] if deal is not None else []) + ([faults] if faults else [])
    unchanged(place, argv)


@MORE
@given(results=results_file, out=outputs, force=st.booleans(),
       agent=st.one_of(st.none(), st.sampled_from(["random", "rules", "a"])), deal=st.one_of(st.none(), move_numbers))
def test_export_games(place, results, out, force, agent, deal):
    argv = ["export-games", results, "--out", out] + (["--force"] if force and out != "po.jsonl" else []) + \
        (["--agent", agent] if agent is not None else []) + (["--deal", deal] if deal is not None else [])
    code = unchanged(place, argv)
    assert code == 2 or out == f"{SCRATCH}.out"


@FUZZ
@given(first=results_file, first_agent=st.sampled_from(["random", "rules", "a", "b", "x"]), second=results_file,
       second_agent=st.sampled_from(["random", "rules", "a", "b", "x"]), bootstrap=number_text)
def test_paired(place, first, first_agent, second, second_agent, bootstrap):
    unchanged(place, ["paired", first, first_agent, second, second_agent, "--bootstrap", bootstrap])


@MORE
@given(results=results_file, csv=st.one_of(st.none(), outputs),
       figures=st.sampled_from([None, f"{SCRATCH}-figures", "missing", "po.db", "pipe"]),
       name=st.one_of(st.none(), st.sampled_from(["x", "../x", "a/b", "", ".."]), junk))
def test_study_stats(place, results, csv, figures, name):
    (place / f"{SCRATCH}-figures").mkdir()
    argv = ["study", "stats", results, "--quiet"] + (["--csv", csv] if csv is not None else []) + \
        (["--figures", figures] if figures is not None else []) + (["--name", name] if name is not None else [])
    code = unchanged(place, argv)
    assert code == 2 or results == "mc.db" or results in DAMAGED_FILES


@FUZZ
@given(results=st.lists(results_file, min_size=1, max_size=3), out=outputs, title=junk)
def test_study_plot_and_fingerprint(place, results, out, title):
    unchanged(place, ["study", "plot", *results, "--out", out, "--title", title])
    unchanged(place, ["study", "fingerprint", *results])


@MORE
@given(a=agent_specs, b=agent_specs, deals=small_counts, seed=number_text, target=st.one_of(number_text, junk),
       sprt=st.one_of(st.none(), st.sampled_from(["0,10", "nan,10", "10,0", "0,inf", "1", "a,b", "-2000,0"]),
                      junk),
       alpha=number_text, game=game_strings,
       results=st.sampled_from(["notes.db", "po.db", "missing/s.db", "pipe", "/dev/null", "folder", "mc.db-wal"]))
def test_study_canasta(place, a, b, deals, seed, target, sprt, alpha, game, results):
    argv = ["study", "canasta", "--a", a, "--b", b, "--deals", deals, "--seed", seed, "--target", target,
            "--alpha", alpha, "--game", game, "--results", results, "--workers", "1", "--quiet"]
    if sprt is not None:
        argv += ["--sprt", sprt]
    assert unchanged(place, argv) == 2           # every results file here stops a study before its first game


@settings(FUZZ, max_examples=12)
@given(results=st.sampled_from(["po.db", "apo.db"] + DAMAGED_FILES + OTHER_FILES),
       agent=st.sampled_from(["random", "rules", "a", "x", ""]), hands=st.sampled_from(["1", "0", "-2", "x", "1e9"]),
       worlds=st.sampled_from(["2", "0", "10001", "nan", "x"]), seed=st.sampled_from(["0", "-1", "x", "2"]),
       out=st.one_of(st.none(), outputs))
def test_study_decisions(place, results, agent, hands, worlds, seed, out):
    # Small budgets on the short games: a valid command judges a hand's decisions for real.
    argv = ["study", "decisions", results, "--agent", agent, "--hands", hands, "--worlds", worlds, "--seed", seed,
            "--quiet"]
    unchanged(place, argv + (["--json", out] if out is not None else []))


@FUZZ
@given(start=agent_specs, against=agent_specs, deals=small_counts, seed=number_text, passes=small_counts,
       min_gain=number_text, figure=st.one_of(st.none(), outputs), spec=agent_specs,
       score=st.sampled_from(["3000", "5000", "0", "x"]))
def test_study_tune_and_requirement(place, start, against, deals, seed, passes, min_gain, figure, spec, score):
    argv = ["study", "tune", "--start", start, "--against", against, "--deals", deals, "--seed", seed,
            "--passes", passes, "--min-gain", min_gain, "--out", "missing", "--workers", "1", "--quiet"]
    assert unchanged(place, argv + (["--figure", figure] if figure is not None else [])) == 2
    argv = ["study", "requirement", "--spec", spec, "--score", score, "--deals", deals, "--seed", seed,
            "--results-dir", "missing", "--workers", "1", "--quiet"]
    assert unchanged(place, argv) == 2            # a folder that is not there stops both before any game


@MORE
@given(game=st.sampled_from([*GAMES, "python_page_one(players=3)", "nosuch"]),
       records=st.sampled_from([f"{SCRATCH}.jsonl", "po.db", "cut.jsonl", "hole.jsonl", "pipe", "notes.db",
                                "folder", "/dev/null", "missing/x.jsonl", "mc.db-journal", "pretty.json"]),
       agents=st.lists(st.sampled_from(["random", "rules", "nosuch", "rules(x=1)"]), max_size=2),
       seed=number_text)
def test_match_records(place, game, records, agents, seed):
    argv = ["match", "--game", game, "--games", "1", "--seed", seed, "--records", records, "--quiet"]
    for spec in agents:
        argv += ["--agent", spec]
    code = unchanged(place, argv)
    assert code == 2 or records == f"{SCRATCH}.jsonl"


@FUZZ
@given(out=outputs, members=st.lists(st.sampled_from(["bot.safetensors", "plain.pt", "pipe", "po.db", "missing"]),
                                     min_size=1, max_size=3), play=st.one_of(st.none(), value_text))
def test_ensemble(place, out, members, play):
    out = out if out != f"{SCRATCH}.out" else "missing/x.safetensors"      # nothing is merged for real here
    argv = ["ensemble", out, *members] + (["--play", play] if play is not None else [])
    assert unchanged(place, argv) == 2
