"""American Page One's static value of a position, for a search's rollouts cut short at a horizon
(search.rollout; registered in games/american_page_one/game.py).

Uniformly random play here rarely ends a deal before the 1,000-turn cap (a random player draws
as often as it plays), so the search stops its random rollouts after a few moves and values
the world it reached by this; the world is a determinization, so it may read every hand.
"""

from __future__ import annotations

from games.american_page_one.core import AmericanPageOneState, hand_size

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
