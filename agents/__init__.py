"""Agents: every bot is a pyspiel.Bot made by `make_bot(spec, game, player, seed)`.

A spec names a bot and its settings: "random", "rules", "ismcts(iterations=1000)".
Each name maps to a factory `factory(game, player, seed, **settings)`, imported
only when used, so naming a bot never pays for the others' imports (torch).
"""

from __future__ import annotations

import importlib
import pyspiel

from agents.spec import parse_spec

# name -> "module:factory". Other packages add their bots here.
BOT_FACTORIES: dict[str, str] = {
    "random": "agents.random_bot:RandomBot",
    "rules": "agents.rules:make_rules_bot",
    "neural": "agents.neural.bot:make_neural_bot",
    "ismcts": "search.bots:make_ismcts",
    "pimc": "search.bots:make_pimc",
    "cheat_mcts": "search.bots:make_cheat_mcts",
    "openspiel_ismcts": "search.references:make_openspiel_ismcts",
    "openspiel_cpp_ismcts": "search.references:make_openspiel_cpp_ismcts",
}


def available_bots() -> list[str]:
    return sorted(BOT_FACTORIES)


def make_bot(spec: str, game: pyspiel.Game, player: int, seed: int = 0) -> pyspiel.Bot:
    """The bot that `spec` names, for seat `player` of `game`, seeded with `seed`.

    Raises ValueError for a malformed spec, an unknown bot, or settings the bot
    does not take.
    """
    name, settings = parse_spec(spec)
    target = BOT_FACTORIES.get(name)
    if target is None:
        raise ValueError(f"unknown bot {name!r} in spec {spec!r}; available: {', '.join(available_bots())}")
    module, attr = target.split(":")
    factory = getattr(importlib.import_module(module), attr)
    try:
        return factory(game, player, seed, **settings)
    except TypeError as e:
        raise ValueError(f"bad settings for bot {name!r} in spec {spec!r}: {e}") from e


__all__ = ["make_bot", "available_bots", "parse_spec", "BOT_FACTORIES"]
