"""Rule-based bots, one per game: what a sensible casual player would do.

Each game's rules are documented in its module docstring.
"""

from __future__ import annotations

import importlib

import pyspiel

# game short name -> "module:class"
RULE_BOTS = {
    "python_page_one": "agents.rules.page_one:PageOneRulesBot",
    "python_modern_canasta": "agents.rules.modern_canasta:ModernCanastaRulesBot",
    "python_classic_canasta": "agents.rules.classic_canasta:ClassicCanastaRulesBot",
    "python_american_page_one": "agents.rules.american_page_one:AmericanPageOneRulesBot",
}


def make_rules_bot(game: pyspiel.Game, player: int, seed: int = 0, **settings) -> pyspiel.Bot:
    """The game's rule bot; `settings` are its strategy settings, where it has any (Canasta's)."""
    name = game.get_type().short_name
    target = RULE_BOTS.get(name)
    if target is None:
        raise ValueError(f"no rule-based bot for game {name!r}; games with one: {', '.join(sorted(RULE_BOTS))}")
    module, attr = target.split(":")
    return getattr(importlib.import_module(module), attr)(game, player, seed, **settings)
