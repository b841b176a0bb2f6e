"""Rule-based bots, one per game: what a sensible casual player would do.

Each game names its rule bot in its registry entry (games.registry: `rule_bot`,
"module:Class"); each bot's rules are documented in its module docstring.
"""

from __future__ import annotations

import importlib

import pyspiel

from games import registry


def rule_bot_class(game: pyspiel.Game) -> type:
    """The class of the game's rule bot, as its registry entry names it."""
    name = game.get_type().short_name
    entry = registry.find(name)
    if entry is None or entry.rule_bot is None:
        with_one = sorted(e.name for e in registry.registered() if e.rule_bot)
        raise ValueError(f"no rule-based bot for game {name!r}; games with one: {', '.join(with_one)}")
    module, attr = entry.rule_bot.split(":")
    return getattr(importlib.import_module(module), attr)


def make_rules_bot(game: pyspiel.Game, player: int, seed: int = 0, **settings) -> pyspiel.Bot:
    """The game's rule bot; `settings` are its strategy settings, where it has any (Canasta's)."""
    return rule_bot_class(game)(game, player, seed, **settings)


def rules_settings(game: pyspiel.Game) -> tuple:
    """The settings of the game's rule bot (its class's `declared_settings`; none by default)."""
    return tuple(getattr(rule_bot_class(game), "declared_settings", ()))


make_rules_bot.declared_settings = rules_settings
