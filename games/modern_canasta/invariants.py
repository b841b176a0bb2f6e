"""What must hold at every step of a Modern Canasta hand, checked by the soak
(scripts/canasta_soak.py); beside the engine, as classic Canasta's, so that a test can
check the engine against them without importing a script."""

from __future__ import annotations

from games.modern_canasta.cards import DECK, RED_THREE
from games.modern_canasta.core import MELD, PICKUP


def violation(core) -> str | None:
    """What is wrong with this state, or None: the 108 cards each in one place, a player to
    move with a legal action, and nobody melding or discarding with a 3 in hand."""
    total = core.card_counts()
    if total != list(DECK):
        return f"cards not conserved: {total}"
    if not core.is_terminal() and not core.is_chance_node() and not core.legal_actions():
        return "a non-terminal decision node without legal actions"
    if (core.phase == MELD or core.phase == PICKUP) and (core.hands[core.actor][RED_THREE]
                                                         or core.hands[core.actor][RED_THREE + 1]):
        return "a player melding holds a 3"
    return None
