"""The registry of games (games/registry.py): a game added in one file is played by every floor,
and no generic floor names a game.

tests/support/tiny_game.py is a whole game in one file, registered in one line. Nothing else
in the toolkit knows of it, and yet `cardarena list` lists it, a tournament plays it (one seat
through `cardarena engine`), its records replay, and the table offers it in its options and
plays it through the API. Processes that import only `games` (the tournament's workers, the
engine) learn of it from CARDARENA_GAMES.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pyspiel
import pytest

import games
from eval.results_records import records_from_results
from records.record import replay, state_at, transcript
from games import registry
from games.view import seat_view
from tests.test_play_api import client, play, settle  # noqa: F401  (the API's fixture and helpers)

ROOT = Path(__file__).resolve().parent.parent
TINY = "tests.support.tiny_game"


@pytest.fixture
def tiny(monkeypatch):
    """The tiny game registered for this test only (the registry is restored after it), and
    named in CARDARENA_GAMES for the processes the test starts."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    module = importlib.import_module(TINY)
    registry.register(module.ENTRY)          # registered at its first import; again after a restore
    monkeypatch.setenv(games.PLUGINS, TINY)
    return module


def _cli(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "scripts.cli", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_cardarena_list_lists_the_new_game_with_its_parameters(tiny, capsys):
    from scripts.cli import main
    main(["list", "games"])
    out = capsys.readouterr().out
    block = out.split(f"\n{tiny.NAME}: ")[1].split("\n\n")[0]
    assert block.startswith("High card (a test game), 2 to 3 players")
    assert "    players              default 2          [2, 3]" in block
    assert "match: N deals (the table offers 1, 3" in block


def test_a_module_named_in_cardarena_games_that_cannot_be_imported_is_one_line_and_left_out(tmp_path,
                                                                                            monkeypatch):
    monkeypatch.setenv(games.PLUGINS, "tests.support.no_such_game")
    done = _cli("list", "games", cwd=tmp_path)
    assert done.returncode == 0 and "python_page_one: " in done.stdout
    assert done.stderr.splitlines() == [done.stderr.strip()] and "'tests.support.no_such_game', which cannot be " \
        "imported (ModuleNotFoundError" in done.stderr


def test_a_tournament_plays_it_one_seat_through_cardarena_engine_and_its_records_replay(tiny, tmp_path):
    engine = f"engine(cmd={sys.executable} -m scripts.cli engine rules --game {tiny.NAME},cwd={ROOT})"
    done = _cli("tournament", "--game", tiny.NAME, "--agent", "random", "--agent", "rules", "--agent",
                f"eng={engine}", "--deals", "4", "--workers", "1", "--quiet", "--results",
                str(tmp_path / "res.db"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "No faults." in done.stdout and "| eng |" in done.stdout
    records = [record for _, record in records_from_results(tmp_path / "res.db")]
    assert len(records) == 4 * 2 and {r.game for r in records} == {f"{tiny.NAME}(players=2)"}
    assert any(p.agent == "eng" for r in records for p in r.players)
    for record in records:                    # each record replays to its returns
        assert [m.action for _, _, m in replay(record)] == [m.action for m in record.moves]
        state = state_at(record, len(record.moves))
        assert state.is_terminal() and state.returns() == pytest.approx(record.returns)
        seen = "\n".join(line for _, line in transcript(record, view=0))
        assert "p1 hand" not in seen
    shown = _cli("show", str(tmp_path / "res.db"), "0-0", "--open", cwd=tmp_path)
    assert shown.returncode == 0 and "chance: card" in shown.stdout, shown.stderr


def test_the_table_offers_it_and_plays_it_through_the_api_hiding_the_other_card(tiny, client):  # noqa: F811
    options = client.get("/api/options").json()
    offered = {g["name"]: g for g in options["games"]}[tiny.NAME]
    assert offered["title"] == "High card" and offered["players"] == [2, 3]
    assert offered["params"] == [{"name": "players", "default": 2, "help": "2-3", "type": "int", "min": 2, "max": 3}]
    assert offered["match"] == {"kind": "deals", "choices": [1, 3], "default": 1}
    rules = next(b for b in options["bots"] if b["spec"] == "rules")
    assert tiny.NAME in rules["games"]

    r = client.post("/api/games", json={"game": tiny.NAME, "params": {"players": "3"}, "seed": 7,
                                        "bots": {"1": "rules"}, "match": "deals=3"})
    assert r.status_code == 200, r.json()
    view = settle(client, r.json()["id"])
    assert view["title"] == "High card" and len(view["players"]) == 3 and len(view["hand"]) == 1
    assert all("hand" not in p for p in view["players"])
    rng = random.Random(0)
    final = play(client, view["id"], lambda v: rng.choice(v["actions"])["action"])
    while final["status"] == "deal_over":
        client.post(f"/api/games/{view['id']}/next", json={})
        final = play(client, view["id"], lambda v: rng.choice(v["actions"])["action"])
    assert final["status"] == "match_over" and final["match"]["over"]
    (record_file,) = (client.table.records_dir).glob("*.jsonl")
    assert len(record_file.read_text().splitlines()) == 3                   # each deal recorded
    review = client.get(f"/api/games/{view['id']}/review").json()
    assert review["game"] == tiny.NAME and all("hand" in p for p in review["final"]["players"])

    bad = client.post("/api/games", json={"game": tiny.NAME, "params": {"players": 9}})
    assert bad.status_code == 400 and "players=9" in bad.json()["error"]


def test_a_seats_view_of_the_new_game_depends_only_on_what_it_sees(tiny):
    game = pyspiel.load_game(tiny.NAME)
    for seed in range(20):
        rng = random.Random(seed)
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(rng.choice(state.legal_actions()))
        state.apply_action(rng.choice(state.legal_actions()))
        for seat in (0, 1):
            world = state.resample_from_infostate(seat, rng.random)
            mine = seat_view(tiny.NAME, state, seat, ["a", "b"], ["x", "y"])
            assert seat_view(tiny.NAME, world, seat, ["a", "b"], ["x", "y"]) == mine


# ------------------------------------------------------------ no generic floor names a game
GENERIC = ("play", "search", "agents", "eval", "training")
COMMAND_LINE = ("cli.py", "cli_checks.py", "list_cli.py", "tournament_cli.py", "engine_cli.py", "records_cli.py")


def _generic_files() -> list[Path]:
    """The floors above the games, less those allowed to name their games: a game's own rule bot
    (agents/rules/<module>.py), the Canasta lab (eval/study/); the command line, less the benchmarks
    and research scripts."""
    files = [p for floor in GENERIC for p in (ROOT / floor).rglob("*.py")]
    files = [p for p in files if "study" not in p.relative_to(ROOT).parts
             and not (p.parent == ROOT / "agents" / "rules" and p.name != "__init__.py")]
    return files + [ROOT / "scripts" / name for name in COMMAND_LINE]


def test_no_generic_floor_names_a_game():
    names = registry.names()
    packages = sorted({entry.view.__module__.rpartition(".")[0] for entry in registry.registered()})
    assert len(names) == 4 and all(p.startswith("games.") for p in packages)
    pattern = re.compile("|".join(re.escape(n) for n in names + packages))
    offenders = {str(p.relative_to(ROOT)): pattern.findall(p.read_text(encoding="utf-8"))
                 for p in _generic_files()}
    assert {path: found for path, found in offenders.items() if found} == {}


def test_each_games_declared_parameters_are_its_openspiel_parameters_and_its_rules_accept_their_defaults():
    for entry in registry.registered():
        spec = pyspiel.load_game(entry.name).get_type().parameter_specification
        assert {p.name: p.default for p in entry.params} == dict(spec), entry.name
        entry.rules({p.name: p.default for p in entry.params})
        for p in entry.params:
            if p.type == "int" and p.min is not None:
                with pytest.raises(ValueError, match=p.name):
                    entry.rules({p.name: p.min - 1})
            if p.max is not None:
                with pytest.raises(ValueError, match=p.name):
                    entry.rules({p.name: p.max + 1})
            if p.type == "choice":
                for choice in p.choices:          # each accepted as a value (a combination may clash)
                    try:
                        entry.rules({p.name: choice})
                    except ValueError as e:
                        assert "must be one of" not in str(e), e
                with pytest.raises(ValueError, match=p.name):
                    entry.rules({p.name: "no such choice"})


def test_every_built_in_bot_declares_its_settings_and_its_factory_takes_them():
    from agents import BOT_FACTORIES, bot_settings, make_bot
    built_in = [name for name, target in BOT_FACTORIES.items() if target.split(".")[0] in ("agents", "search")]
    assert len(built_in) == 9
    for name in built_in:
        for entry in registry.registered():
            game = pyspiel.load_game(entry.example)
            declared = bot_settings(name, game)
            assert declared is not None, name
            if name in ("neural", "engine", "openspiel_cpp_ismcts") or not declared:
                continue           # a file or a program to name, or a game of OpenSpiel's own
            setting = next((p for p in declared if p.type in ("int", "float") and p.default is not None), None)
            if setting is not None:
                make_bot(f"{name}({setting.name}={json.dumps(setting.default)})", game, 0, 0)
