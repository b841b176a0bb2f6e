"""`cardarena engine` driven by a program that is not Python, from the documented version-2
fields alone: examples/engines/drive.mjs (node) writes it turn messages prepared from games
played in process, carrying no world, no information-state text and no action ids, and the
engine must answer, game after game, the very moves those games played."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyspiel
import pytest

import games  # noqa: F401
from agents import make_bot
from agents.engine import MARGIN, VERSIONS, SeatCursor, deal_message, events_of, turn_message
from eval.play import play_deal
from eval.referee import Moves
from games.chance import DealChance

ROOT = Path(__file__).resolve().parents[1]
SEAT = 1
GAMES = ("python_page_one(players=4)", "python_american_page_one(players=4,max_turns=40)",
         "python_modern_canasta", "python_classic_canasta(players=2)")
NEURAL = "neural(strict_params=false)"      # shipped for every game but classic Canasta
CASES = [(g, "rules") for g in GAMES] + [(g, NEURAL) for g in GAMES if "classic" not in g]
DEALS = 2

pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def _without_ids(turn: dict) -> dict:
    """The turn as an app that knows the rules but not our numbering writes it: no ids, no text
    of the information state; only the documented version-2 fields."""
    view = json.loads(json.dumps(turn["view"]))
    for action in view["actions"]:
        del action["action"]
    for card in view["hand"]:
        card["action"] = None
    legal = [{k: v for k, v in a.items() if k != "action"} for a in turn["legal"]]
    return {"type": "turn", "id": turn["id"], "legal": legal, "events": turn["events"], "time_left": None,
            "view": view}


def _prepared(game: pyspiel.Game, spec: str) -> tuple[list[dict], list[list[str]]]:
    """The messages to the engine at seat SEAT over DEALS deals played in process, and the
    words of the moves SEAT played in each."""
    n = game.num_players()
    messages: list[dict] = [{"type": "hello", "protocol": 1, "versions": list(VERSIONS), "game": str(game),
                             "players": n, "seat": SEAT, "time_limit": None, "margin": MARGIN}]
    played: list[list[str]] = []
    turn_id = 0
    for deal in range(DEALS):
        seeds = [100 * deal + s for s in range(n)]
        final, _ = play_deal(game, [make_bot(spec, game, s, seeds[s]) for s in range(n)], DealChance(deal),
                             Moves(n), [0.0] * 4, None)
        messages.append(deal_message(game, SEAT, seeds[SEAT]))
        state, cursor, words = game.new_initial_state(), None, []
        for action in final.history():
            if state.current_player() == SEAT:
                cursor = cursor or SeatCursor(state)
                turn_id += 1
                messages.append(_without_ids(turn_message(state, SEAT, cursor, version=2, turn_id=turn_id,
                                                          info_state=False)))
                words.append(state.action_to_string(SEAT, action))
            state.apply_action(action)
        lines = state.information_state_string(SEAT).split("\n")
        messages.append({"type": "deal_end", "returns": list(state.returns()),
                         "events": events_of(lines, cursor.lines)})
        played.append(words)
    return messages, played


@pytest.mark.parametrize("game_string, spec", CASES)
def test_a_node_driver_gets_the_in_process_moves_from_words_alone(game_string, spec, tmp_path):
    game = pyspiel.load_game(game_string)
    messages, played = _prepared(game, spec)
    sent = tmp_path / "messages.jsonl"
    sent.write_text("".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages))
    for m in messages:
        assert "world" not in m and "info_state" not in m
        assert m["type"] != "turn" or all("action" not in a for a in m["legal"] + m["view"]["actions"])
    got = tmp_path / "replies.jsonl"
    run = subprocess.run(["node", str(ROOT / "examples" / "engines" / "drive.mjs"), str(sent), str(got), "--",
                          sys.executable, "-m", "scripts.cli", "engine", spec, "--game", game_string],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    replies = [json.loads(line) for line in got.read_text().splitlines()]
    assert replies[0]["type"] == "hello" and replies[0]["protocol"] == 2
    answered = [r["text"] for r in replies[1:]]
    assert answered == [w for deal in played for w in deal] and len(answered) > 2 * DEALS
