"""The scoring figures and pieces the Canastas share (their pages give the same):
a canasta's bonus by whether it holds wild cards, going out's bonus, the value
of the cards in a meld and of the cards left in the hands. Each game's scoring
adds its own items (the modern game's special canastas and penalties, the
classic game's red 3s and concealed going out) and its SideScore."""

from __future__ import annotations

from typing import Sequence

from games.canasta_family.cards import JOKER, TWO, VALUES, value_of

MIXED_CANASTA = 300
NATURAL_CANASTA = 500
GOING_OUT = 100


def mixed_or_natural_bonus(twos: int, jokers: int) -> int:
    """The bonus of a canasta of a natural rank: mixed with wild cards 300, natural 500."""
    return MIXED_CANASTA if twos or jokers else NATURAL_CANASTA


def cards_value(kind: int, naturals: int, twos: int, jokers: int) -> int:
    """The point value of a meld's cards: `naturals` of `kind`, and its wild cards."""
    return VALUES[kind] * naturals + VALUES[TWO] * twos + VALUES[JOKER] * jokers


def left_in_hands(hands: Sequence[Sequence[int]]) -> int:
    """What the cards left in a side's hands cost it (a negative score item)."""
    return -sum(value_of(h) for h in hands)


__all__ = ["GOING_OUT", "MIXED_CANASTA", "NATURAL_CANASTA", "cards_value", "left_in_hands",
           "mixed_or_natural_bonus"]
