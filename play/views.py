"""The table as one seat may see it: the JSON `View` of docs/play-api.md, less the session's fields.

Each game builds its part (hand, zones, actions, score) in its own package and registers the
builder (games.registry, games/<game>/view.py); this module adds what every game shares: the
game's title, the players, the turn and the seat's log. Everything is read from what the seat
can know: its own hand, the public table state and its own information state string for the
log. tests/test_play_api.py checks that a view built from the true state equals the view built
from a world resampled from the seat's information state, so no hidden card can reach the page.
`open_hands=True` adds every hand (the review's open view only).
"""

from __future__ import annotations

import re

from agents.base import rules_core
from games import registry

LOG_LINES = 400          # the newest lines of the log a view carries
_SEAT_LINE = re.compile(r"^p(\d+)\b")
_HEADERS = ("match scores:", "scores before the hand:")


def seat_log(core, seat: int) -> list[dict]:
    """What `seat` saw happen, in words: its information state string, line by line, less the
    header lines (its hand, the match standing), consecutive own deal lines joined into one."""
    lines = core.information_state_string(seat).split("\n")
    out: list[dict] = []
    for line in lines:
        if line.startswith(f"p{seat} hand:") or line.startswith(_HEADERS) or not line:
            continue
        if line.startswith("dealt ") and out and out[-1]["text"].startswith("you were dealt "):
            out[-1]["text"] += " " + line[6:]
            continue
        if line.startswith("dealt "):
            out.append({"seat": seat, "text": "you were dealt " + line[6:]})
            continue
        if out and out[-1].get("line") == line:        # "p3 draws" eleven times: one entry, counted
            out[-1]["times"] += 1
            out[-1]["text"] = f"{line} ×{out[-1]['times']}"
            continue
        m = _SEAT_LINE.match(line)
        out.append({"seat": int(m.group(1)) if m else None, "text": line, "line": line, "times": 1})
    for entry in out:
        entry.pop("line", None)
        entry.pop("times", None)
    return out[-LOG_LINES:]


def _players(core, seat: int, names: list[str], agents: list[str], sides: list[int],
             counts: list[int], notes: list[list[str]]) -> list[dict]:
    to_move = core.current_player()
    return [{"seat": s, "name": names[s], "agent": agents[s], "side": sides[s], "cards": counts[s],
             "to_move": s == to_move, "notes": notes[s]} for s in range(len(names))]


def table_view(game_name: str, state, seat: int, names: list[str], agents: list[str],
               open_hands: bool = False) -> dict:
    """The table from `seat`: game, seat, turn, players, hand, zones, actions, log, score.

    `state` is a pyspiel state or a rules core; the game's registered view builds its part.
    The session adds id, status, thinking, message and match. With open_hands every player's
    entry carries its `hand` too."""
    core = rules_core(state)
    entry = registry.lookup(game_name)
    built = entry.view(core, seat, open_hands)
    if core.current_player() != seat:
        built["actions"] = []
        for c in built["hand"]:
            c["action"] = None
    players = _players(core, seat, names, agents, built["sides"], built["counts"], built["notes"])
    if open_hands:
        for p, hand in zip(players, built["hands"]):
            p["hand"] = hand
    return {"game": game_name, "title": entry.title, "seat": seat, "turn": len(core.history()),
            "players": players, "hand": built["hand"], "zones": built["zones"], "actions": built["actions"],
            "log": seat_log(core, seat), "score": built["score"]}
