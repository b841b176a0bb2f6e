"""The 108-card Canasta deck as card kinds, the same for every game of the family.

Suits never matter in the Canastas here (Modern American and classic) except for
the colour of a 3, so a card is one of 15 kinds and every set of cards (a hand,
the stock, the pile) is a count per kind. Two decks and four Jokers: eight of
each rank 4..A and of the 2s, four Jokers, four red 3s and four black 3s.

Kinds 0..10 are the natural ranks 4 5 6 7 8 9 10 J Q K A (they are also the meld
slots of those ranks); 11 is the 2, 12 the Joker (the wild cards); 13 and 14 are
the red and the black 3. Each game has twelve meld slots a side: the eleven ranks
and a twelfth of its own (the modern game's wild-card meld, WILD_SLOT; the
classic game's black 3s).
"""

from __future__ import annotations

from typing import Sequence

FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(11)
TWO, JOKER, RED_THREE, BLACK_THREE = 11, 12, 13, 14
NUM_KINDS = 15
NUM_NATURAL = 11            # kinds 0..10
WILD_SLOT = 11              # the modern game's twelfth slot: the wild-card meld
NUM_SLOTS = 12              # meld slots a side: 11 natural ranks and the game's own twelfth
PLAYABLE = 13               # kinds a hand can hold in play: naturals and wild cards

DECK: tuple[int, ...] = (8,) * 11 + (8, 4, 4, 4)
DECK_SIZE = 108

# Point values (the page: standard Canasta values; a 3 left in hand costs 5).
VALUES: tuple[int, ...] = (5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 20, 20, 50, 5, 5)

KIND_NAMES: tuple[str, ...] = ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
                               "2", "Jk", "3r", "3b")


def is_wild(kind: int) -> bool:
    return kind == TWO or kind == JOKER


def is_three(kind: int) -> bool:
    return kind >= RED_THREE


def parse_kind(text: str) -> int:
    """'7', 'A', '10' (or 'T'), '2', 'Jk', '3r', '3b' -> kind. Raises ValueError naming the text."""
    t = text.strip()
    if t.upper() == "T":
        t = "10"
    for kind, name in enumerate(KIND_NAMES):
        if t.upper() == name.upper():
            return kind
    raise ValueError(f"not a card kind: {text!r} (expected one of {' '.join(KIND_NAMES)})")


def counts_of(text: str) -> list[int]:
    """'K K 7 2 Jk' -> counts per kind (for tests, puzzles and docs)."""
    counts = [0] * NUM_KINDS
    for token in text.split():
        counts[parse_kind(token)] += 1
    return counts


def counts_str(counts: Sequence[int]) -> str:
    """Counts per kind as text, e.g. '7 7 K 2 Jk'; '-' when empty."""
    return " ".join(name for kind, name in enumerate(KIND_NAMES)
                    for _ in range(counts[kind])) or "-"


def pack(counts: Sequence[int]) -> int:
    """Counts per kind in one int, 4 bits a kind (a log value)."""
    value = 0
    for kind in range(NUM_KINDS - 1, -1, -1):
        value = value << 4 | counts[kind]
    return value


def unpack(value: int) -> list[int]:
    return [value >> (4 * kind) & 15 for kind in range(NUM_KINDS)]


def value_of(counts: Sequence[int]) -> int:
    return sum(c * v for c, v in zip(counts, VALUES))
