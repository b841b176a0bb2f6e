"""A French deck as integers and bitmasks, shared by the single-deck games.

Card id = suit * 13 + rank, rank 0..12 for 2..A, suits in the order ♠ ♥ ♦ ♣.
Jokers, when a game uses them, are ids 52 and 53. A set of cards is an int whose
bit `id` is set. Listing the cards of a mask goes through per-suit lookup tables
(13-bit suit mask -> tuple of card ids), which measured twice as fast as looping
over the bits in the rules cores' hot paths.
"""

from __future__ import annotations

NUM_SUITS = 4
NUM_RANKS = 13
DECK_SIZE = 52
JOKER_IDS = (52, 53)
SUIT_SYMBOLS = "♠♥♦♣"
SUIT_LETTERS = "SHDC"
RANK_SYMBOLS = "23456789TJQKA"

SUIT_MASKS = tuple(0x1FFF << (NUM_RANKS * s) for s in range(NUM_SUITS))
FULL_DECK = (1 << DECK_SIZE) - 1
JOKER_MASK = (1 << 52) | (1 << 53)

# SUIT_CARDS[s][m]: the card ids of suit s whose ranks are the set bits of m.
SUIT_CARDS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(s * NUM_RANKS + r for r in range(NUM_RANKS) if m >> r & 1)
          for m in range(1 << NUM_RANKS))
    for s in range(NUM_SUITS))


def suit_of(card: int) -> int:
    return card // NUM_RANKS


def rank_of(card: int) -> int:
    return card % NUM_RANKS


def is_joker(card: int) -> bool:
    return card >= DECK_SIZE


def suit_permuted(card: int, perm: tuple[int, ...]) -> int:
    """A card id (0-51 suit-major, jokers above) with its suit relabelled by `perm` (suit -> suit)."""
    return perm[card // NUM_RANKS] * NUM_RANKS + card % NUM_RANKS if card < 52 else card


def cards_of(mask: int) -> list[int]:
    """The card ids in `mask`, ascending."""
    out: list[int] = []
    for s in range(NUM_SUITS):
        m = (mask >> (NUM_RANKS * s)) & 0x1FFF
        if m:
            out.extend(SUIT_CARDS[s][m])
    if mask & JOKER_MASK:
        out.extend(j for j in JOKER_IDS if mask >> j & 1)
    return out


def mask_of(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def card_str(card: int) -> str:
    """'7♠', 'A♦', 'Jk1', 'Jk2' (the two jokers of a deck are told apart)."""
    if card >= DECK_SIZE:
        return f"Jk{card - DECK_SIZE + 1}"
    return RANK_SYMBOLS[card % NUM_RANKS] + SUIT_SYMBOLS[card // NUM_RANKS]


def parse_card(text: str) -> int:
    """Inverse of card_str; also accepts suit letters S H D C ('7S', 'AD', 'TC').

    Raises ValueError naming the bad text.
    """
    t = text.strip()
    if t.upper() in ("JK1", "JK2"):
        return DECK_SIZE + int(t[2]) - 1
    if len(t) != 2 or t[0].upper() not in RANK_SYMBOLS:
        raise ValueError(f"not a card: {text!r} (expected e.g. '7♠', 'AS', 'TD', 'Jk1')")
    rank = RANK_SYMBOLS.index(t[0].upper())
    s = t[1]
    if s in SUIT_SYMBOLS:
        suit = SUIT_SYMBOLS.index(s)
    elif s.upper() in SUIT_LETTERS:
        suit = SUIT_LETTERS.index(s.upper())
    else:
        raise ValueError(f"not a card: {text!r} (unknown suit {s!r})")
    return suit * NUM_RANKS + rank


def cards_str(mask: int) -> str:
    return " ".join(card_str(c) for c in cards_of(mask)) or "-"
