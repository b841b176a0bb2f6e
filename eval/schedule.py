"""Which games a tournament plays: deal seeds, who sits where, and every seed.

A game is fixed by its task: the deal (one chance seed), the rotation (which
seating of that deal's lineup), the agent in each seat and each bot's seed. The
results of a tournament are a function of its tasks only, so they are the same
whatever runs them (docs/tournament.md, "Seat schedule").

Lineups. Deal d seats `units` agents (a unit is a seat, or a side when agents
fill partnerships). They are read in turn from a stream of seeded shuffles of
the agent list, so after every lcm(k, units) / units deals each agent has had
the same number of places. When there are at least as many agents as units, a
shuffle is reordered so that no lineup names an agent twice.

Duplicate deals. Each deal is replayed for every distinct cyclic rotation of its
lineup: in rotation r, unit u gets lineup[(u + r) % units]. Every agent of the
lineup meets the same cards from every unit; lineups with a repeating pattern
(A B A B) have fewer distinct rotations and need only those.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Iterator, Sequence

from games.seeding import derive_seed

Sides = tuple[tuple[int, ...], ...]

# Domains that keep the seeds of different uses apart.
_LINEUP, _DEAL, _BOT = 1, 2, 3


@dataclass(frozen=True)
class GameTask:
    """One game to play. `seats[s]` is the index of the agent in seat s."""
    deal: int
    rotation: int
    seats: tuple[int, ...]
    chance_seed: int
    bot_seeds: tuple[int, ...]

    @property
    def key(self) -> tuple[int, int]:
        return self.deal, self.rotation


def lineups(units: int, agents: int, seed: int) -> Iterator[tuple[int, ...]]:
    """Endless stream of lineups: deal d's lineup is the d-th item."""
    if units < 1 or agents < 1:
        raise ValueError(f"need at least one seat and one agent, got {units} and {agents}")
    pending: list[int] = []
    shuffle = 0
    while True:
        order = list(range(agents))
        random.Random(derive_seed(_LINEUP, seed, shuffle)).shuffle(order)
        shuffle += 1
        if agents >= units and pending:
            need = units - len(pending)
            head = [a for a in order if a not in pending][:need]
            order = head + [a for a in order if a not in head]
        pending += order
        while len(pending) >= units:
            yield tuple(pending[:units])
            del pending[:units]


def distinct_rotations(lineup: Sequence[int]) -> int:
    """The number of distinct cyclic rotations of `lineup` (its period)."""
    n = len(lineup)
    for p in range(1, n + 1):
        if n % p == 0 and all(lineup[i] == lineup[(i + p) % n] for i in range(n)):
            return p
    return n


def side_of_seat(num_seats: int, sides: Sides | None) -> tuple[int, ...]:
    """Side index of each seat; without partnerships each seat is its own side."""
    if sides is None:
        return tuple(range(num_seats))
    side = [-1] * num_seats
    for j, members in enumerate(sides):
        for s in members:
            side[s] = j
    return tuple(side)


def check_sides(num_seats: int, sides: Sides) -> None:
    """Raises ValueError unless `sides` partitions the seats into two or more sides."""
    flat = sorted(s for members in sides for s in members)
    if flat != list(range(num_seats)) or len(sides) < 2 or any(not m for m in sides):
        raise ValueError(f"teams {format_sides(sides)} must split seats 0..{num_seats - 1} "
                         f"into two or more sides, each seat once")


def format_sides(sides: Sides) -> str:
    return " ".join(",".join(map(str, members)) for members in sides)


def plan_games(num_seats: int, num_agents: int, deals: int, seed: int, *,
               sides: Sides | None = None, fill_sides: bool = True,
               duplicate: bool = True) -> Iterator[GameTask]:
    """The games of deals first_deal..deals-1, in (deal, rotation) order.

    With `sides` and `fill_sides`, one agent plays every seat of a side (an agent
    fills a partnership) and rotations move agents between sides; otherwise
    agents are seated one per seat (mixed partnerships when there are sides).
    Without `duplicate` each deal is played once, in its first rotation.
    """
    by_side = sides is not None and fill_sides
    units = len(sides) if by_side else num_seats
    seat_unit = side_of_seat(num_seats, sides) if by_side else tuple(range(num_seats))
    stream = lineups(units, num_agents, seed)
    for deal in range(deals):
        lineup = next(stream)
        chance_seed = derive_seed(_DEAL, seed, deal)
        for r in range(distinct_rotations(lineup) if duplicate else 1):
            seats = tuple(lineup[(seat_unit[s] + r) % units] for s in range(num_seats))
            bot_seeds = tuple(derive_seed(_BOT, seed, deal, r, s) for s in range(num_seats))
            yield GameTask(deal, r, seats, chance_seed, bot_seeds)
