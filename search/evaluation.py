"""Static values of a position, for rollouts cut short at a horizon (search.rollout),
and the per-game defaults that the search bots' `auto` settings stand for.

A rollout with `horizon=H` plays H moves (player decisions; chance steps are not
counted) and then values the world it reached with `leaf_value(world)`: every
player's expected return as the game's rules score it, estimated from what is
on the table. The world is a determinization (every hand is known in it), so
the value may read every hand; it is the search's world, not the true state.

Each game declares its static value and its `auto` settings in its registry entry
(games.registry: `leaf_value`, `search_defaults`); search works on the protocol and
asks the registry, so it imports no game. American Page One is why both exist: uniformly
random play there rarely ends a deal before the 1,000-turn cap, so a random rollout takes
about 3 ms, and the default search specs took 400 to 800 ms a move
(games/american_page_one/game.py has its figures).
"""

from __future__ import annotations

from typing import Callable, Sequence

import pyspiel

from games import registry

LeafValue = Callable[[object], Sequence[float]]


def leaf_value_for(world: object) -> LeafValue | None:
    """The static value for `world`'s game (its registered `leaf_value`), or None where there is none."""
    entry = registry.of_core(world)
    return entry.leaf_value if entry is not None else None


def auto_setting(game: pyspiel.Game, name: str) -> int | None:
    """The game's default for setting `name` (`horizon`, `pool`), or None (no cap, no pool)."""
    entry = registry.of_game(game)
    return entry.search_defaults.get(name) if entry is not None else None
