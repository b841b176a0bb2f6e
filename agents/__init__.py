"""Agents: every bot is a pyspiel.Bot made by `make_bot(spec, game, player, seed)`.

A spec names a bot and its settings: "random", "rules", "ismcts(iterations=1000)",
or is a preset's name, which stands for a longer spec (agents/presets.py).
Each name maps to a factory `factory(game, player, seed, **settings)`, imported
only when used, so naming a bot never pays for the others' imports (torch).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Callable

import pyspiel

from agents.presets import expand
from games.spec import parse_spec

# The trained bots shipped with the toolkit (bot files, `neural` by default).
SHIPPED_BOTS = Path(__file__).resolve().parents[1] / "bots"


def bot_file_location(path: str) -> Path:
    """Where a bot file a spec names by `path` is: from the working directory, else
    from the folder bots/ is in (the checkout, or site-packages for an installed
    package), so that `bots/...` in a spec or preset works from any directory. One
    rule for the bots that read the file and the harness that hashes it."""
    file = Path(path)
    if not file.is_absolute() and not file.exists() and (SHIPPED_BOTS.parent / file).exists():
        return SHIPPED_BOTS.parent / file
    return file

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
    "engine": "agents.engine:make_engine_bot",      # a program speaking docs/engine_protocol.md
}


def available_bots() -> list[str]:
    return sorted(BOT_FACTORIES)


def bot_factory(name: str) -> Callable[..., pyspiel.Bot]:
    """The factory registered as `name`. Raises ValueError for an unknown name or
    a registration whose module or attribute does not exist."""
    target = BOT_FACTORIES.get(name)
    if target is None:
        raise ValueError(f"unknown bot {name!r}; available: {', '.join(available_bots())}")
    module, _, attr = target.partition(":")
    try:
        found = importlib.import_module(module)
    except Exception as e:            # missing, or failing as it is imported (a registered module's error)
        raise ValueError(f"bot {name!r} is {target!r}, but module {module!r} cannot be imported: "
                         f"{type(e).__name__}: {e}") from e
    factory = getattr(found, attr, None)
    if not callable(factory):
        raise ValueError(f"bot {name!r} is {target!r}, but {module} has no callable {attr!r}")
    return factory


def bot_settings(name: str, game: pyspiel.Game | None = None) -> tuple | None:
    """The settings bot `name` declares, typed (games.registry.Param): its factory's
    `declared_settings`, a tuple, or a function of the game where they depend on it (the
    rule bots: each game's own). None where the factory declares none (a bot registered
    from outside the toolkit); ValueError where they depend on a game it does not play."""
    declared = getattr(bot_factory(name), "declared_settings", None)
    if callable(declared):
        if game is None:
            raise ValueError(f"bot {name!r}: its settings depend on the game; name one")
        return tuple(declared(game))
    return None if declared is None else tuple(declared)


def make_bot(spec: str, game: pyspiel.Game, player: int, seed: int = 0) -> pyspiel.Bot:
    """The bot that `spec` names, for seat `player` of `game`, seeded with `seed`.

    Raises ValueError for a malformed spec, an unknown bot, settings the bot does
    not take, a file it names that cannot be read, or a factory that returns
    something other than a pyspiel.Bot (so the harness blames that agent, not the game).
    """
    spec = expand(spec)
    name, settings = parse_spec(spec)
    if name not in BOT_FACTORIES:
        raise ValueError(f"unknown bot {name!r} in spec {spec!r}; available: {', '.join(available_bots())}")
    factory = bot_factory(name)
    try:
        bot = factory(game, player, seed, **settings)
    except TypeError as e:
        raise ValueError(f"bad settings for bot {name!r} in spec {spec!r}: {e}") from e
    except OSError as e:              # a bot file or prior that is missing or unreadable
        where = f": {e.filename}" if e.filename else ""
        raise ValueError(f"bot {spec!r}: {e.strerror or e}{where}") from e
    if not isinstance(bot, pyspiel.Bot):
        raise ValueError(f"bot {name!r} ({BOT_FACTORIES[name]}) returned {type(bot).__name__}, "
                         f"not a pyspiel.Bot")
    return bot


def stated_policy(spec: str, game: pyspiel.Game) -> Callable[[pyspiel.State], list[tuple[int, float]]] | None:
    """The policy the bot `spec` names states (its `known_policy`: a function of the
    state alone), where its factory declares `states_policy`; None for any other bot,
    which is not made to ask (an engine's program is never started for this).
    ValueError as make_bot's."""
    name, _ = parse_spec(expand(spec))
    if name not in BOT_FACTORIES or not getattr(bot_factory(name), "states_policy", False):
        return None
    return make_bot(spec, game, 0, 0).known_policy


__all__ = ["make_bot", "bot_factory", "stated_policy", "bot_settings", "available_bots", "bot_file_location", "parse_spec",
           "BOT_FACTORIES"]
