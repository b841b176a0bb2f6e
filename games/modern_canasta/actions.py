"""The action encoding of Modern American Canasta: 577 ids, each one whole move.

    0        draw from the stock
    1        take the discard pile (with a natural pair of its top card's rank)
    2        ask the partner "may I go out?"
    3, 4     the partner answers yes / no
    5        withdraw the initial meld being built (only while it is short)
    6        take the pile, the initial meld built from the hand being complete
    7..19    discard one card of kind 0..12 (4 .. A, 2, Joker; a 3 is never discarded)
    20..547  meld into natural rank r: 20 + (r * 8 + n) * 6 + w, where n = 0..7 is the
             number of naturals and w = 0..5 the wild cards, in the order
             (2s, Jokers) = (0,0) (1,0) (0,1) (2,0) (1,1) (0,2); the ids with
             n = 0 and w = 0 are never legal
    548..576 meld into the wild-card meld: (2s, Jokers) from WILD_COMBOS

A meld action puts the cards onto the side's meld of that rank, starting one
when the side has no unfinished meld of that rank. Suits never matter, so a
meld is fully described by its rank and its counts of naturals, 2s and Jokers.
"""

from __future__ import annotations

from games.canasta_family.cards import (JOKER, KIND_NAMES, NUM_NATURAL, PLAYABLE, TWO,
                                        WILD_SLOT)

DRAW, TAKE, ASK, YES, NO, WITHDRAW, COMMIT = range(7)
DISCARD_BASE = 7
MELD_BASE = DISCARD_BASE + PLAYABLE                     # 20
NATURAL_WILDS: tuple[tuple[int, int], ...] = ((0, 0), (1, 0), (0, 1), (2, 0), (1, 1), (0, 2))
WILD_BASE = MELD_BASE + NUM_NATURAL * 8 * len(NATURAL_WILDS)   # 548
WILD_COMBOS: tuple[tuple[int, int], ...] = tuple(
    (t, j) for j in range(5) for t in range(8) if 1 <= t + j <= 7)
NUM_ACTIONS = WILD_BASE + len(WILD_COMBOS)              # 577

_WILD_INDEX = {combo: i for i, combo in enumerate(NATURAL_WILDS)}
_WILD_MELD_INDEX = {combo: i for i, combo in enumerate(WILD_COMBOS)}


def discard_action(kind: int) -> int:
    return DISCARD_BASE + kind


def meld_action(slot: int, naturals: int, twos: int, jokers: int) -> int:
    """The id of a meld into `slot` (a natural rank, or WILD_SLOT) with these counts."""
    if slot == WILD_SLOT:
        if naturals:
            raise ValueError("a wild-card meld holds no natural card")
        index = _WILD_MELD_INDEX.get((twos, jokers))
        if index is None:
            raise ValueError(f"no wild-card meld action with {twos} 2s and {jokers} Jokers")
        return WILD_BASE + index
    index = _WILD_INDEX.get((twos, jokers))
    if not 0 <= slot < NUM_NATURAL or not 0 <= naturals <= 7 or index is None:
        raise ValueError(f"no meld action for rank {slot} with {naturals} naturals, "
                         f"{twos} 2s and {jokers} Jokers")
    return MELD_BASE + (slot * 8 + naturals) * 6 + index


def decode_meld(action: int) -> tuple[int, int, int, int]:
    """(slot, naturals, twos, jokers) of a meld action."""
    if action >= WILD_BASE:
        t, j = WILD_COMBOS[action - WILD_BASE]
        return WILD_SLOT, 0, t, j
    slot_n, w = divmod(action - MELD_BASE, 6)
    slot, n = divmod(slot_n, 8)
    t, j = NATURAL_WILDS[w]
    return slot, n, t, j


# Decoded meld actions, indexed by action id (None below MELD_BASE): the hot paths read this.
MELD_PARTS: tuple = (None,) * MELD_BASE + tuple(decode_meld(a) for a in range(MELD_BASE, NUM_ACTIONS))


def action_to_string(action: int) -> str:
    if action < DISCARD_BASE:
        if not 0 <= action:
            raise ValueError(f"no action {action}")
        return ("draw", "take pile", "ask partner", "yes", "no", "withdraw", "take pile (meld done)")[action]
    if action < MELD_BASE:
        return f"discard {KIND_NAMES[action - DISCARD_BASE]}"
    if action >= NUM_ACTIONS:
        raise ValueError(f"no action {action}: ids are 0..{NUM_ACTIONS - 1}")
    slot, n, t, j = MELD_PARTS[action]
    cards = [KIND_NAMES[slot]] * n + [KIND_NAMES[TWO]] * t + [KIND_NAMES[JOKER]] * j
    target = "wild" if slot == WILD_SLOT else KIND_NAMES[slot]
    return f"meld {target}: {' '.join(cards)}"
