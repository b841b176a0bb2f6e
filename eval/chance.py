"""Chance for duplicate deals: the same cards whatever the players do.

Drawing each chance outcome from a seeded stream of random numbers replays a
deal only until play diverges: one extra draw and every later card differs.
`DealChance` instead fixes the deck. A deal has a seeded sequence of shuffles
(permutations of the chance-outcome ids); at a chance node whose outcomes are
equally likely it takes the first id of the current shuffle that is among the
node's outcomes. Successive draws from one deck are then exactly the deck's
order, whoever draws them and whenever.

This is an exact uniform draw as long as the node's outcomes are among the ids
the current shuffle has not yet given out since it began: given the ids given
out so far, the order of the rest of a uniform shuffle is still uniform. A node
whose outcomes are not (ids meaning something else, as a leader's seat before
the deal; cards coming back, as a reshuffled discard pile) starts the next
shuffle of the sequence, so it is exact too, and replays still agree whenever
they reach the same node.

Nodes whose outcomes are not equally likely (dice sums, OpenSpiel's games) are
drawn by inverse CDF from a second seeded stream of numbers, the k-th such node
taking the k-th number: exact, and the same in replays until play diverges.
"""

from __future__ import annotations

import random

from eval.schedule import derive_seed

_SHUFFLE, _NUMBERS = 11, 12


class DealChance:
    """Chooses every chance outcome of one game from the deal's seed.

    A new instance per game: two games of the same deal, given instances made
    from the same seed, see the same deck.
    """

    def __init__(self, seed: int, num_outcomes: int):
        self.seed = seed
        self.ids = list(range(num_outcomes))
        self.shuffles = 0
        self.order: list[int] = []
        self.pos = 0                   # order[:pos] has been given out (or is not in the shuffle's set)
        self.left: set[int] = set()    # the ids the current shuffle has not given out
        self.numbers = random.Random(derive_seed(_NUMBERS, seed))

    def _next_shuffle(self, outcomes: tuple[int, ...]) -> None:
        self.order = self.ids[:]
        random.Random(derive_seed(_SHUFFLE, self.seed, self.shuffles)).shuffle(self.order)
        self.shuffles += 1
        self.pos = 0
        self.left = set(outcomes)

    def __call__(self, state) -> int:
        """The chance outcome to apply at `state`, a chance node."""
        outcomes, probs = zip(*state.chance_outcomes())
        if probs.count(probs[0]) != len(probs):
            u = self.numbers.random()
            for action, p in zip(outcomes, probs):
                u -= p
                if u < 0.0:
                    return action
            return outcomes[-1]
        left = self.left
        if not left.issuperset(outcomes):
            self._next_shuffle(outcomes)
            left = self.left
        order, pos = self.order, self.pos
        while order[pos] not in left:
            pos += 1
        self.pos = pos
        if len(outcomes) < len(left):       # some ids left the shuffle's set without being drawn
            available = set(outcomes)
            while order[pos] not in available:
                pos += 1
        action = order[pos]
        left.discard(action)
        return action
