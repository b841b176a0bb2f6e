"""Chance for duplicate deals: the same cards whatever the players do.

Drawing each chance outcome from a seeded stream of random numbers replays a
deal only until play diverges: one extra draw and every later card differs.
`DealChance` instead fixes the deck. A chance node's outcomes are read as a
deck: one copy of each outcome when they are equally likely (Page One's cards),
`c_i` copies when their probabilities are `c_i / total` for small whole numbers
(Canasta draws card kinds weighted by the copies left). A deal has a seeded
sequence of shuffles; a shuffle orders the copies of the deck at the node that
began it, and each node takes the first copy still in the shuffle whose outcome
the node offers. Successive draws from one deck are then exactly the deck's
order, whoever draws them and whenever.

This is an exact draw as long as the copies the shuffle has left of the node's
outcomes are proportional to the node's probabilities (the node's deck is what
the shuffle has left, less whole outcomes it does not offer): given the copies
given out so far, the order of the rest of a uniform shuffle is still uniform,
so its first copy among the offered outcomes is one of them with exactly those
probabilities. A node whose deck is anything else (ids meaning something else, as a leader's seat before the deal;
cards coming back, as a reshuffled discard pile) starts the next shuffle of the
sequence, so it is exact too, and replays still agree whenever they reach the
same node.

Nodes whose probabilities are not proportional to small whole numbers are drawn
by inverse CDF from a second seeded stream of numbers, the k-th such node taking
the k-th number: exact, and the same in replays until play diverges.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Sequence

from games.seeding import derive_seed

_SHUFFLE, _NUMBERS = 11, 12
MAX_COPIES = 64          # the most copies of the rarest outcome looked for in a node's probabilities


def copies(probs: Sequence[float]) -> list[int] | None:
    """Whole numbers c_i with probs[i] == c_i / sum(c), the rarest outcome having
    as few copies as possible; None when there are none (up to MAX_COPIES)."""
    low = min(probs)
    for rarest in range(1, MAX_COPIES + 1):
        total = round(rarest / low)
        counts = [round(p * total) for p in probs]
        if sum(counts) == total and all(c >= 1 and abs(p * total - c) < 1e-6 for p, c in zip(probs, counts)):
            return counts
    return None


class DealChance:
    """Chooses every chance outcome of one game from the deal's seed.

    A new instance per game: two games of the same deal, given instances made
    from the same seed, see the same deck.
    """

    def __init__(self, seed: int):
        self.seed = seed
        self.shuffles = 0
        self.order: list[int] = []        # the current shuffle's copies not yet given out, in order
        self.left: dict[int, int] = {}    # outcome -> copies of it in `order`
        self.single = True                # every outcome of `left` has one copy
        self.numbers = random.Random(derive_seed(_NUMBERS, seed))

    @classmethod
    def from_order(cls, seed: int, order: Sequence[int]) -> "DealChance":
        """A game whose current shuffle is `order` (copies, in the order they are given
        out), its later shuffles the seed's. Exact where `order` is a uniform shuffle of
        the deck the next node offers (training/luck_value.py's coupled stocks: the
        rollouts after an event's outcomes share one shuffled stock but the outcome)."""
        chance = cls(seed)
        chance.order = list(order)
        chance.left = dict(Counter(order))
        chance.single = all(c == 1 for c in chance.left.values())
        return chance

    def _shuffled(self, deck: list[int]) -> list[int]:
        """The deal's next shuffle of `deck` (tests replace it to enumerate shuffles)."""
        random.Random(derive_seed(_SHUFFLE, self.seed, self.shuffles)).shuffle(deck)
        self.shuffles += 1
        return deck

    def _start(self, deck: dict[int, int]) -> None:
        self.order = self._shuffled([k for k, c in deck.items() for _ in range(c)])
        self.left = dict(deck)
        self.single = all(c == 1 for c in deck.values())

    def __call__(self, state) -> int:
        """The chance outcome to apply at `state`, a chance node."""
        outcomes, probs = zip(*state.chance_outcomes())
        uniform = probs.count(probs[0]) == len(probs)
        if uniform and self.single:      # the common case, in C: a node of the shuffle's deck?
            fresh = not self.left.keys() >= set(outcomes)
        else:
            fresh = not self._continues(outcomes, probs)
        if fresh:
            counts = [1] * len(outcomes) if uniform else copies(probs)
            if counts is None:
                return self._inverse_cdf(outcomes, probs)
            self._start(dict(zip(outcomes, counts)))
        offered = set(outcomes)
        order = self.order
        i = 0
        while order[i] not in offered:
            i += 1
        outcome = order.pop(i)
        if self.left[outcome] == 1:
            del self.left[outcome]
        else:
            self.left[outcome] -= 1
        return outcome

    def _continues(self, outcomes: Sequence[int], probs: Sequence[float]) -> bool:
        """Whether the copies left of the offered outcomes are proportional to
        their probabilities: then the first of them in the shuffle is an exact draw."""
        left = self.left
        per_unit = left.get(outcomes[0], 0) / probs[0]
        if per_unit <= 0:
            return False
        tolerance = 1e-6 * per_unit
        for k, p in zip(outcomes, probs):      # a loop, not all(...): every draw of a deal comes here
            if not abs(left.get(k, 0) - per_unit * p) < tolerance:
                return False
        return True

    def _inverse_cdf(self, outcomes: Sequence[int], probs: Sequence[float]) -> int:
        u = self.numbers.random()
        for action, p in zip(outcomes, probs):
            u -= p
            if u < 0.0:
                return action
        return outcomes[-1]
