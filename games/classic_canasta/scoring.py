"""Scoring one hand of classic Canasta, with the page's figures.

A side scores the point values of its melded cards, 300 for each mixed canasta and
500 for each natural one, 100 for each red 3 (800 for all four; counted against it
when it has not melded), 100 for going out (200 concealed), and loses the values
of the cards left in its players' hands. The card values, the canasta bonuses
and going out's are the family's (games.canasta_family.cards and .scoring).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from games.canasta_family.cards import BLACK_THREE, NUM_NATURAL
from games.canasta_family.scoring import GOING_OUT, cards_value, left_in_hands, mixed_or_natural_bonus

RED_THREE_EACH = 100
ALL_FOUR_RED_THREES = 800
GOING_OUT_CONCEALED = 200


def canasta_bonus(naturals: int, twos: int, jokers: int) -> int:
    """The bonus of a meld of seven cards or more: natural 500, mixed 300."""
    return mixed_or_natural_bonus(twos, jokers)


def red_threes_value(count: int) -> int:
    return ALL_FOUR_RED_THREES if count == 4 else RED_THREE_EACH * count


@dataclass(frozen=True)
class SideScore:
    """One side's score for a hand, item by item (each signed as it counts)."""

    melded_cards: int
    canasta_bonuses: int
    red_threes: int
    going_out: int
    cards_in_hand: int

    @property
    def total(self) -> int:
        return self.melded_cards + self.canasta_bonuses + self.red_threes + self.going_out \
            + self.cards_in_hand


def side_score(melds: Sequence[tuple[int, int, int]], red_threes: int,
               hands: Sequence[Sequence[int]], went_out: bool, concealed: bool) -> SideScore:
    """melds[slot] = (naturals, twos, jokers) of the side's meld of each slot (0..10
    the natural ranks, 11 the black 3s); red_threes laid down; hands = counts per kind
    of its players."""
    melded = bonuses = 0
    has_meld = False
    for slot, (n, t, j) in enumerate(melds):
        if not n:
            continue
        has_meld = True
        melded += cards_value(slot if slot < NUM_NATURAL else BLACK_THREE, n, t, j)
        if n + t + j >= 7:
            bonuses += canasta_bonus(n, t, j)
    threes = red_threes_value(red_threes)
    return SideScore(
        melded_cards=melded,
        canasta_bonuses=bonuses,
        red_threes=threes if has_meld else -threes,
        going_out=(GOING_OUT_CONCEALED if concealed else GOING_OUT) if went_out else 0,
        cards_in_hand=left_in_hands(hands))


# The largest swing one hand can produce, for GameInfo's utility bounds. A side's
# best: every card melded (1,180 with the black 3s), a natural canasta of each of
# the 11 ranks (5,500), all four red 3s (800), going out concealed (200): 7,680.
# Its worst: every card but the red 3s in its hands (1,180) and the red 3s against
# it (800): 1,980. A return (a side's points less the others' mean) is within their sum.
MAX_SWING = 7_680 + 1_980
