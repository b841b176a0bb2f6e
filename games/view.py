"""The pieces of a seat's view (the JSON `View` of docs/play-api.md) that every game's view builder uses.

Each game builds what one seat may see in its own package (games/<game>/view.py), from the
seat's hand and the public table, and registers the builder (games.registry); play/views.py
adds what is common to every game (the players, the log, the session's fields). A builder
returns {hand, zones, actions, counts, notes, sides, score, hands}: hands only with open_hands.
"""

from __future__ import annotations

from typing import Any, Callable

from games.cards import NUM_RANKS, RANK_SYMBOLS, SUIT_LETTERS, SUIT_SYMBOLS


def card(text: str, rank: str, suit: str | None, color: str, action: int | None = None) -> dict:
    """One Card of the contract."""
    return {"text": text, "rank": rank, "suit": suit, "color": color, "action": action}


def french_card(card_id: int, action: int | None = None) -> dict:
    """A card of a French deck (games.cards ids: suit * 13 + rank; 52 and up a joker)."""
    if card_id >= 52:
        return card("Jk", "Jk", None, "joker", action)
    suit = card_id // NUM_RANKS
    rank = RANK_SYMBOLS[card_id % NUM_RANKS].replace("T", "10")
    return card(rank + SUIT_SYMBOLS[suit], rank, SUIT_LETTERS[suit], "red" if suit in (1, 2) else "black", action)


def action(action_id: int, label: str, kind: str, card_json: dict | None = None, **extra: Any) -> dict:
    """One Action of the contract."""
    return {"action": action_id, "label": label, "kind": kind, "card": card_json, **extra}


def count(n: int) -> str:
    """A zone's text: "1 card", "5 cards"."""
    return f"{n} card" if n == 1 else f"{n} cards"


def zone(name: str, cards: list[dict] | None = None, text: str | None = None, side: int | None = None,
         melds: list[dict] | None = None) -> dict:
    """One Zone of the contract: a named part of the table."""
    return {"name": name, "cards": cards or [], "text": text, "side": side, "melds": melds}


def with_hand_actions(hand: list[dict], actions: list[dict], key: Callable[[dict], Any]) -> None:
    """Sets a hand card's `action` where exactly one legal action plays that card alone."""
    by_card: dict[Any, list[int]] = {}
    for a in actions:
        if a["kind"] == "card" and a["card"] is not None:
            by_card.setdefault(key(a["card"]), []).append(a["action"])
    for c in hand:
        ids = by_card.get(key(c))
        c["action"] = ids[0] if ids and len(ids) == 1 else None
