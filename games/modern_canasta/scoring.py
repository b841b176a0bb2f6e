"""Scoring one hand of Modern American Canasta, with the page's figures.

A side scores the point values of its melded cards (lost instead when it has no
canasta), its canasta bonuses, its 3s (lost with no canasta, nothing with one,
scored with two or more), 100 for going out; it loses the values of the cards
left in its players' hands, 2500 for each unfinished meld of 7s or of natural
Aces, 2000 for an unfinished wild-card meld (2500 when it holds all four Jokers),
and 1500 for each player holding three or more Aces, and for each holding three
or more 7s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from games.canasta_family.cards import ACE, NUM_SLOTS, SEVEN, WILD_SLOT
from games.canasta_family.scoring import (GOING_OUT, MIXED_CANASTA, NATURAL_CANASTA, cards_value,
                                          left_in_hands)

NATURAL_SEVENS_OR_ACES = 2500
WILD_CANASTA_TWOS = 3000          # seven 2s
WILD_CANASTA_FOUR_JOKERS = 2500   # four Jokers and three 2s
WILD_CANASTA = 2000               # any other wild-card canasta
THREES_BONUS = (0, 100, 300, 500, 1000)   # by the count of one colour
UNFINISHED_SEVENS_OR_ACES = 2500
UNFINISHED_WILD = 2000
UNFINISHED_WILD_FOUR_JOKERS = 2500
HELD_SET = 1500                   # three or more Aces, or of 7s, left in one hand


def canasta_bonus(slot: int, naturals: int, twos: int, jokers: int) -> int:
    if slot == WILD_SLOT:
        if twos == 7:
            return WILD_CANASTA_TWOS
        if jokers == 4 and twos == 3:
            return WILD_CANASTA_FOUR_JOKERS
        return WILD_CANASTA
    if twos or jokers:
        return MIXED_CANASTA
    return NATURAL_SEVENS_OR_ACES if slot in (SEVEN, ACE) else NATURAL_CANASTA


def meld_value(slot: int, naturals: int, twos: int, jokers: int) -> int:
    """The point value of the cards of the meld of `slot` (the wild-card meld holds
    no naturals: its value is its wild cards')."""
    return cards_value(slot, naturals, twos, jokers)


def unfinished_penalty(slot: int, naturals: int, twos: int, jokers: int) -> int:
    """What an unfinished meld costs beyond its cards (0 for most melds)."""
    if slot == SEVEN or (slot == ACE and not twos and not jokers):
        return UNFINISHED_SEVENS_OR_ACES
    if slot == WILD_SLOT:
        return UNFINISHED_WILD_FOUR_JOKERS if jokers == 4 else UNFINISHED_WILD
    return 0


@dataclass(frozen=True)
class SideScore:
    """One side's score for a hand, item by item (each signed as it counts)."""

    melded_cards: int
    canasta_bonuses: int
    threes: int
    going_out: int
    cards_in_hand: int
    unfinished_melds: int
    held_sets: int

    @property
    def total(self) -> int:
        return (self.melded_cards + self.canasta_bonuses + self.threes + self.going_out
                + self.cards_in_hand + self.unfinished_melds + self.held_sets)


def side_score(open_melds: Sequence[tuple[int, int, int]],
               canastas: Sequence[tuple[int, int, int, int]],
               threes: tuple[int, int],
               hands: Sequence[Sequence[int]],
               went_out: bool) -> SideScore:
    """open_melds[slot] = (naturals, twos, jokers) of the side's unfinished meld of
    each slot; canastas = (slot, naturals, twos, jokers) of each complete one;
    threes = (red, black) laid down; hands = counts per kind of its two players."""
    melded = sum(meld_value(*c) for c in canastas)
    unfinished = 0
    for slot in range(NUM_SLOTS):
        n, t, j = open_melds[slot]
        if n or t or j:
            melded += meld_value(slot, n, t, j)
            unfinished -= unfinished_penalty(slot, n, t, j)
    count = len(canastas)
    sign = -1 if count == 0 else (0 if count == 1 else 1)
    held = 0
    for hand in hands:
        held -= HELD_SET * ((hand[ACE] >= 3) + (hand[SEVEN] >= 3))
    return SideScore(
        melded_cards=melded if count else -melded,
        canasta_bonuses=sum(canasta_bonus(*c) for c in canastas),
        threes=sign * (THREES_BONUS[threes[0]] + THREES_BONUS[threes[1]]),
        going_out=GOING_OUT if went_out else 0,
        cards_in_hand=left_in_hands(hands),
        unfinished_melds=unfinished,
        held_sets=held)


# The largest swing one hand can produce, for GameInfo's utility bounds. A side's
# best: every card melded (1,160), a canasta of each of the nine other ranks
# (9 x 500), of 7s and of Aces (2 x 2,500), a wild canasta of 2s (3,000), all
# eight 3s (2 x 1,000), going out (100): 15,760. Its worst: every card in play
# counted against it (1,160, and a 3 left in hand, 5), three unfinished special
# melds (3 x 2,500), the 3s (2,000), four held sets (4 x 1,500): 16,665. A hand's
# difference is at most their sum.
MAX_SWING = 15_760 + 16_665
