"""The action encoding of classic Canasta: 1,012 ids, each one whole move.

    0          draw from the stock (with the stock empty: end the hand instead)
    1          take the pile with a natural pair of its top card's rank
    2          take the pile with one natural of its top card's rank and a 2
    3          take the pile with one natural of its top card's rank and a Joker
    4          withdraw the initial meld being built (only while it is short)
    5          take the pile, the initial meld built from the hand being complete
    6..19      discard one card: kinds 0..12 (4 .. A, 2, Joker), then 19 the black 3
    20..1009   meld into natural rank r: 20 + (r * 9 + n) * 10 + w, with n = 0..8
               naturals and w = 0..9 the wild cards (2s, Jokers) in WILD_COMBOS order;
               the ids with n = 0 and w = 0 are never legal
    1010, 1011 meld three or four black 3s (only as the last meld of going out)

Suits never matter, so a meld is its rank and its counts of naturals, 2s and
Jokers. A side has one meld of each rank: a meld action adds to it, or starts it.
The card kinds are the modern game's (games.canasta_family.cards).
"""

from __future__ import annotations

from games.canasta_family.cards import BLACK_THREE, JOKER, KIND_NAMES, NUM_NATURAL, TWO

DRAW, TAKE_PAIR, TAKE_TWO, TAKE_JOKER, WITHDRAW, COMMIT = range(6)
TAKES = (TAKE_PAIR, TAKE_TWO, TAKE_JOKER)
DISCARD_BASE = 6
NUM_DISCARDS = 14                                    # 13 playable kinds and the black 3
MELD_BASE = DISCARD_BASE + NUM_DISCARDS              # 20
WILD_COMBOS: tuple[tuple[int, int], ...] = tuple(
    (t, j) for w in range(4) for j in range(w + 1) for t in (w - j,))   # (2s, Jokers), at most 3
BLACK_SLOT = NUM_NATURAL                             # meld slot 11: black 3s
BLACK_BASE = MELD_BASE + NUM_NATURAL * 9 * len(WILD_COMBOS)   # 1010
NUM_ACTIONS = BLACK_BASE + 2                         # 1012

_WILD_INDEX = {combo: i for i, combo in enumerate(WILD_COMBOS)}


def discard_action(kind: int) -> int:
    return DISCARD_BASE + (13 if kind == BLACK_THREE else kind)


def discard_kind(action: int) -> int:
    index = action - DISCARD_BASE
    return BLACK_THREE if index == 13 else index


def meld_action(slot: int, naturals: int, twos: int = 0, jokers: int = 0) -> int:
    """The id of a meld into `slot` (a natural rank 0..10, or BLACK_SLOT) with these counts."""
    if slot == BLACK_SLOT:
        if twos or jokers or naturals not in (3, 4):
            raise ValueError("a meld of black 3s is three or four black 3s, no wild card")
        return BLACK_BASE + naturals - 3
    index = _WILD_INDEX.get((twos, jokers))
    if not 0 <= slot < NUM_NATURAL or not 0 <= naturals <= 8 or index is None:
        raise ValueError(f"no meld action for rank {slot} with {naturals} naturals, "
                         f"{twos} 2s and {jokers} Jokers")
    return MELD_BASE + (slot * 9 + naturals) * 10 + index


def decode_meld(action: int) -> tuple[int, int, int, int]:
    """(slot, naturals, twos, jokers) of a meld action."""
    if action >= BLACK_BASE:
        return BLACK_SLOT, action - BLACK_BASE + 3, 0, 0
    slot_n, w = divmod(action - MELD_BASE, 10)
    slot, n = divmod(slot_n, 9)
    t, j = WILD_COMBOS[w]
    return slot, n, t, j


# Decoded meld actions, indexed by action id (None below MELD_BASE): the hot paths read this.
MELD_PARTS: tuple = (None,) * MELD_BASE + tuple(decode_meld(a) for a in range(MELD_BASE, NUM_ACTIONS))

_FIXED = ("draw", "take pile with a pair", "take pile with a natural and a 2",
          "take pile with a natural and a Joker", "withdraw", "take pile (meld done)")


def action_to_string(action: int) -> str:
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"no action {action}: ids are 0..{NUM_ACTIONS - 1}")
    if action < DISCARD_BASE:
        return _FIXED[action]
    if action < MELD_BASE:
        return f"discard {KIND_NAMES[discard_kind(action)]}"
    slot, n, t, j = MELD_PARTS[action]
    name = KIND_NAMES[BLACK_THREE] if slot == BLACK_SLOT else KIND_NAMES[slot]
    cards = [name] * n + [KIND_NAMES[TWO]] * t + [KIND_NAMES[JOKER]] * j
    return f"meld {name}: {' '.join(cards)}"
