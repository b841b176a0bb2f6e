"""What must hold at every step of a classic Canasta hand, checked by the tests and the soak.

Kept beside the engine rather than in the soak script (scripts/classic_canasta_soak.py)
so that the tests check the engine with the engine's own statement of its invariants,
importing no script.
"""

from __future__ import annotations

from games.classic_canasta.core import ClassicState
from games.modern_canasta.cards import DECK, RED_THREE


def violation(core: ClassicState) -> str | None:
    """What is wrong with this state, or None: the 108 cards each in one place, a player to
    move with a legal action, and no red 3 in a hand (it is laid down as it is drawn)."""
    total = core.card_counts()
    if total != list(DECK):
        return f"cards not conserved: {total}"
    if not core.is_terminal() and not core.is_chance_node() and not core.legal_actions():
        return "a non-terminal decision node without legal actions"
    if any(hand[RED_THREE] for hand in core.hands):
        return "a hand holds a red 3"
    return None
