"""Static values of a position, for rollouts cut short at a horizon (search.rollout),
and the per-game defaults that the search bots' `auto` settings stand for.

A rollout with `horizon=H` plays H moves (player decisions; chance steps are not
counted) and then values the world it reached with `leaf_value(world)`: every
player's expected return as the game's rules score it, estimated from what is
on the table. The world is a determinization (every hand is known in it), so
the value may read every hand; it is the search's world, not the true state.

American Page One is why: uniformly random play there rarely ends a deal before
the 1,000-turn cap (a random player draws as often as it plays), so a random
rollout takes about 3 ms, and the default search specs took 400 to 800 ms a move.
Its resampler also replays the deal from its start (about 0.2 ms a world), which
ISMCTS pays every iteration; `pool` draws fewer worlds and cycles through them.
"""

from __future__ import annotations

from typing import Callable, Sequence

import pyspiel

from games.american_page_one.core import AmericanPageOneState, hand_size
from games.page_one.core import PageOneState

# American Page One: points a card in hand is worth against the table's mean hand
# size, fitted by least squares to the deal's final return on 3,414 positions
# (one decision in ten) of 400 rule-bot deals (a deal's return spreads over ±122
# points and a position's hand sizes explain 9% of its variance; adding the hand's
# points or the turn explained 1% more).
APO_POINTS_PER_CARD = 13.0


def american_page_one_value(world: AmericanPageOneState) -> list[float]:
    """Each seat's expected return from the hand sizes: `APO_POINTS_PER_CARD` a
    card below the table's mean (zero-sum, as a deal's points are). Under
    `until_last` the deal scores places: the seats already out keep theirs, the
    rest are ranked by hand size (fewer is better, ties share), as if it ended now."""
    n = world.n
    sizes = [hand_size(world.lo[s], world.hi[s]) for s in range(n)]
    if not world.rules.until_last:
        mean = sum(sizes) / n
        return [APO_POINTS_PER_CARD * (mean - size) for size in sizes]
    result = [0.0] * n
    out = world.out
    for place, seat in enumerate(out):
        result[seat] = float(n - 1 - 2 * place)
    rest = [s for s in range(n) if s not in out]
    for s in rest:
        ahead = sum(sizes[o] < sizes[s] for o in rest)
        tied = sum(sizes[o] == sizes[s] for o in rest)       # itself included
        first = len(out) + ahead                              # its place if it wins the ties
        result[s] = sum(n - 1 - 2 * place for place in range(first, first + tied)) / tied
    return result


def page_one_value(world: PageOneState) -> list[float]:
    """Each seat's return if the game ended now: the seats out first in their order,
    the rest ranked by cards left (PageOneState._finish's rule)."""
    n = world.n
    keys = [world.hands[s].bit_count() for s in range(n)]
    for place, seat in enumerate(world.out):
        keys[seat] = place - 1000
    return [(sum(k < o for o in keys) - sum(k > o for o in keys)) / (n - 1) for k in keys]


LeafValue = Callable[[object], Sequence[float]]
LEAF_VALUES: dict[type, LeafValue] = {AmericanPageOneState: american_page_one_value,
                                      PageOneState: page_one_value}


def leaf_value_for(world: object) -> LeafValue | None:
    """The static value for `world`'s game, or None where there is none."""
    return LEAF_VALUES.get(type(world))


# What `auto` stands for, by game, with random rollouts (the default rollout; a
# bot's rollouts end a deal, and the specs measured with them keep their meaning):
# `horizon`, and `pool` for ismcts. Games not listed: no horizon, a fresh world
# every iteration. American Page One: with 10 moves and 16 worlds,
# ismcts(iterations=300) takes 18 ms of CPU a move and pimc(worlds=10,iterations=30)
# 15 ms (20 moves and 32 worlds: 28 and 21 ms; 60 and 52 ms of wall time in a
# two-worker tournament on the loaded 2-core machine), where playing to the end
# with a fresh world every iteration took 840 and 760 ms (docs/search.md, Speed).
AUTO: dict[str, dict[str, int]] = {"python_american_page_one": {"horizon": 10, "pool": 16}}


def auto_setting(game: pyspiel.Game, name: str) -> int | None:
    """The game's default for setting `name`, or None (no cap, no pool)."""
    return AUTO.get(game.get_type().short_name, {}).get(name)
