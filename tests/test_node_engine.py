"""The Node.js engine (examples/node_engine/): the shipped networks from their ONNX files play
move for move as the `neural` bot does, through the engine protocol; and it refuses, in one
line, what it cannot play. Needs node and `npm ci --prefix examples/node_engine` (.ci/run runs
it where npm is present)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "examples" / "node_engine"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None or not (FOLDER / "node_modules" / "onnxruntime-node").is_dir(),
    reason="node or examples/node_engine/node_modules is missing (npm ci --prefix examples/node_engine)")


def check(*args: str) -> subprocess.CompletedProcess:
    """The comparison of experiments/onnx_engine_check.py, run as a command (the lab's script)."""
    return subprocess.run([sys.executable, "-m", "experiments.onnx_engine_check", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def test_every_shipped_network_moves_as_neural_through_the_engine():
    """Three deals a game (the network at seats 0, 1 and 2), every decision compared."""
    done = check("--deals", "3", "--seed", "20")
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    lines = [line for line in done.stdout.splitlines() if "decisions of the network's seat" in line]
    assert [line.split(":")[0] for line in lines] == ["python_page_one", "python_american_page_one",
                                                      "python_modern_canasta"]
    for line in lines:
        decisions = int(line.split("deals, ")[1].split(" ")[0])
        assert decisions > 0 and "(100.00%)" in line, line


def test_sampled_moves_are_neurals_draws():
    """policy=sample on both sides: the engine draws with Python's own random numbers."""
    done = check("--deals", "3", "--seed", "7", "--game", "python_page_one(players=4)",
                 "--neural", "neural(policy=sample,temperature=0.05)",
                 "--engine", f"node {FOLDER / 'engine.mjs'} --policy sample --temperature 0.05")
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    # and the comparison can tell a different player: greedy against sampled play
    done = check("--deals", "3", "--seed", "7", "--game", "python_page_one(players=4)",
                 "--neural", "neural(policy=sample,temperature=1)")
    assert done.returncode == 1 and "differs:" in done.stdout


def _hello(game: str, players: int, *args: str) -> tuple[int, dict]:
    message = {"type": "hello", "protocol": 1, "game": game, "players": players, "seat": 0, "time_limit": 5.0}
    done = subprocess.run([NODE, str(FOLDER / "engine.mjs"), *args], input=json.dumps(message) + "\n",
                          capture_output=True, text=True, timeout=60)
    return done.returncode, json.loads(done.stdout.splitlines()[0]) if done.stdout else {}


def test_a_game_without_a_network_or_of_other_players_is_refused_at_hello():
    code, reply = _hello("python_classic_canasta(players=4)", 4)
    assert code == 1 and reply["type"] == "error" and "no shipped network" in reply["message"]
    code, reply = _hello("python_page_one(players=3)", 3)
    assert code == 1 and reply["type"] == "error" and "made for 4 players, not 3" in reply["message"]
    code, reply = _hello("python_page_one(players=4)", 4)
    assert code == 0 and reply == {"type": "hello", "name": "onnx-node", "version": "1.0", "tensor": True,
                                   "world": False}


def test_a_bad_setting_is_refused_in_one_line():
    done = subprocess.run([NODE, str(FOLDER / "engine.mjs"), "--policy", "best"], input="",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.splitlines()) == 1
    assert "bad argument --policy best" in done.stderr


def test_the_symmetry_tables_are_the_games_own():
    done = subprocess.run([sys.executable, str(FOLDER / "tables.py"), "--check"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("game_string", ["python_page_one(players=4)", "python_modern_canasta"])
def test_the_engine_moves_alike_in_every_world_the_seat_cannot_tell_apart(game_string):
    """The engine reads only what its seat may see: on random states with a choice, it answers
    the true state and a world resampled from the seat's information (other hidden cards) alike."""
    import random

    import pyspiel

    import games  # noqa: F401
    from agents import make_bot
    from agents.engine import close_engines
    from tests import conformance

    game = pyspiel.load_game(game_string)
    rng = random.Random(5)
    cmd = f"engine(cmd=node {FOLDER / 'engine.mjs'},cwd={ROOT},time_limit=60)"
    differ = checked = 0
    for state in conformance.random_states(game, 12, 6):
        if len(state.legal_actions()) < 2:
            continue
        seat = state.current_player()
        world = state.resample_from_infostate(seat, rng.random)
        differ += world.history() != state.history()
        moves = [make_bot(cmd, game, seat, 4).step(s) for s in (state, world)]
        assert moves[0] == moves[1], f"p{seat} moved otherwise in a world it cannot tell from the true state"
        checked += 1
    close_engines()
    assert checked >= 4 and differ >= 2
