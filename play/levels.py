"""The bots of stated strength the table offers: each game's levels, their measured Elo, and
which of them can play a variant.

A game declares its levels (games/registry.py `Level`: a name, one of its presets, the run
records that measured it). The figures shown beside a level's name are read here from those
records (experiments/runs/NAME.json, plain JSON: nothing in them runs), so a level's strength
on the form is always a declared run's, with its interval, never a number typed into the page.
A level is offered for a variant only where its bot loads for it (the shipped networks refuse
other rules), and the form's default is the strongest such level: never a bot that cannot play.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from games import registry

RUNS = Path(__file__).resolve().parent.parent / "experiments" / "runs"
OPPONENTS = ("rules", "random")


@lru_cache(maxsize=None)
def _record(name: str) -> dict | None:
    """A run record's JSON, or None where it is missing (an installed package has no records)."""
    path = RUNS / f"{name}.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def _figure(record: dict, name: str, spec: str) -> tuple[str, dict] | None:
    """(opponent, figure) a record gives for the level whose preset is `name` (spec `spec`), or
    None. A record of the opponent against the level (`rules` over `random`) gives the level's
    figure negated; a transcribed record without the agent's name is the level's own."""
    result = record.get("result")
    if not isinstance(result, dict) or record.get("status", "done").split()[0] != "done":
        return None
    agent, against = result.get("agent"), result.get("against")
    mine = {name, spec}
    if against in mine and agent in OPPONENTS:
        return agent, {"elo": -result["elo"], "low": -result["high"], "high": -result["low"],
                       "games": result["games"], "record": record["name"]}
    if against in OPPONENTS and (agent is None or agent in mine or record.get("preset") == name):
        return against, {"elo": result["elo"], "low": result["low"], "high": result["high"],
                         "games": result["games"], "record": record["name"]}
    return None


def level_json(entry: registry.GameEntry, level: registry.Level) -> dict[str, Any]:
    """A level as the form lists it: its name, preset, spec and Elo over `rules` and `random`
    (each `{"elo", "low", "high", "games", "record"}`, `{"elo": 0, "itself": true}` against
    itself, or null where no record measured it)."""
    spec = entry.presets[level.preset]
    over: dict[str, Any] = {opponent: None for opponent in OPPONENTS}
    if spec in OPPONENTS:
        over[spec] = {"elo": 0, "low": 0, "high": 0, "itself": True}
    for name in level.records:
        record = _record(name)
        found = _figure(record, level.preset, spec) if record else None
        if found is not None and over[found[0]] is None:
            over[found[0]] = found[1]
    return {"level": level.name, "preset": level.preset, "spec": spec,
            "over_rules": over["rules"], "over_random": over["random"], "title": title(level.name, over)}


def title(name: str, over: dict[str, Any]) -> str:
    """`club: +50 Elo over random [+41, +61]; level with rules`: the level and its figures in words."""
    parts = []
    for opponent in OPPONENTS:
        figure = over[opponent]
        if figure is None:
            parts.append(f"not measured against {opponent}")
        elif figure.get("itself"):
            parts.append(f"the {'rule' if opponent == 'rules' else 'random'} bot itself")
        else:
            parts.append(f"{figure['elo']:+d} Elo over {opponent} [{figure['low']:+d}, {figure['high']:+d}]")
    return f"{name}: " + "; ".join(parts)


def levels(game: str) -> list[dict[str, Any]]:
    """Every level of `game`, weakest first, with its figures."""
    entry = registry.lookup(game)
    return [level_json(entry, level) for level in entry.levels]


@lru_cache(maxsize=256)
def cannot_play(spec: str, game_string: str) -> str | None:
    """Why bot `spec` cannot play this game string (one line, no file path), or None where it loads."""
    import pyspiel
    from agents import make_bot
    try:
        make_bot(spec, pyspiel.load_game(game_string), 0, 0)
        return None
    except Exception as e:      # a bot refuses a variant in its own words (a network's parameters, a missing file)
        root = str(RUNS.parents[1]) + "/"
        reason = str(e).replace(root, "").split("; pass strict_params")[0]
        return reason.splitlines()[0] if reason else type(e).__name__


def playable(game: str, game_string: str) -> list[str]:
    """The presets of `game`'s levels that can play this variant, weakest first."""
    entry = registry.lookup(game)
    return [level.preset for level in entry.levels if cannot_play(entry.presets[level.preset], game_string) is None]


def default_bot(game: str, game_string: str) -> str:
    """The form's and the server's default bot for this variant: the strongest level that can
    play it (a game without levels: its rule bot, else `random`)."""
    can = playable(game, game_string)
    if can:
        return can[-1]
    entry = registry.lookup(game)
    return "rules" if entry.rule_bot else "random"
