"""Page One's static value of a position, for a search's rollouts cut short at a horizon
(search.rollout; registered in games/page_one/game.py)."""

from __future__ import annotations

from games.page_one.core import PageOneState


def page_one_value(world: PageOneState) -> list[float]:
    """Each seat's return if the game ended now: the seats out first in their order,
    the rest ranked by cards left (PageOneState._finish's rule)."""
    n = world.n
    keys = [world.hands[s].bit_count() for s in range(n)]
    for place, seat in enumerate(world.out):
        keys[seat] = place - 1000
    return [(sum(k < o for o in keys) - sum(k > o for o in keys)) / (n - 1) for k in keys]
