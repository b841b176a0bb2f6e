"""Page One as one seat sees it (games.view; registered in games/page_one/game.py)."""

from __future__ import annotations

from games.cards import SUIT_SYMBOLS, cards_of
from games.page_one.core import EV_FOLLOW, EV_LEAD, EVENTS, OVER, PageOneState, played_card
from games.view import FRENCH_RANKS, ViewShape, action, count, french_card, with_hand_actions, zone

# What each zone's `text` and cards say (`page_one_view` builds them).
ZONE_TEXTS = (
    ("Trick", "cards: the trick on the table, in play order, each with its `seat` (a joker as \"Jk=♠\", the "
              "suit it stands for); text: \"led suit ♠\" during a trick, \"p2 to lead\" between tricks"),
    ("Stock", "text: the cards left in the stock (\"23 cards\"); no cards shown"),
    ("Discards", "text: the cards of finished tricks (\"12 cards\"); no cards shown"),
    ("Tricks", "text: the trick being played, counted from 1 (\"trick 5\"); when the game is over, the "
               "tricks played (\"9 tricks\")"),
)
SHAPE = ViewShape(ranks=FRENCH_RANKS, zones=("Trick", "Stock", "Discards", "Tricks"), kinds=("card",),
                  score_lines=("cards left",), notes=("leader", r"out \d+"), zone_texts=ZONE_TEXTS, events=EVENTS)

def page_one_view(core: PageOneState, seat: int, open_hands: bool) -> dict:
    """Page One from `seat`: its hand, the trick on the table, the stock, discards and tricks."""
    n = core.n
    acts = []
    for a in core.legal_actions(seat):
        c = french_card(played_card(a))
        acts.append(action(a, c["text"] if a < 52 else f"Jk as {SUIT_SYMBOLS[(a - 52) % 4]}", "card", c))
    hand = [french_card(c) for c in cards_of(core.hands[seat])]
    with_hand_actions(hand, acts, lambda c: c["text"])
    # The trick on the table: the public plays since the lead.
    trick, cell = [], core.log
    while cell is not None and core.led >= 0:
        cell, kind, who, value = cell
        if kind in (EV_LEAD, EV_FOLLOW):
            c = french_card(played_card(value))
            c["seat"] = who
            if value >= 52:
                c["text"] = "Jk=" + SUIT_SYMBOLS[(value - 52) % 4]
            trick.append(c)
            if kind == EV_LEAD:
                break
    trick.reverse()
    led = f"led suit {SUIT_SYMBOLS[core.led]}" if core.led >= 0 else (
        f"p{core.leader} to lead" if core.leader >= 0 else None)
    zones = [zone("Trick", trick, led),
             zone("Stock", text=count(core.stock.bit_count())),
             zone("Discards", text=count(core.discard.bit_count())),
             zone("Tricks", text=f"trick {core.tricks + 1}" if core.phase != OVER else f"{core.tricks} tricks")]
    counts = [core.hands[s].bit_count() for s in range(n)]
    notes = [(["leader"] if s == core.leader and core.phase != OVER else [])
             + ([f"out {core.out.index(s) + 1}"] if s in core.out else []) for s in range(n)]
    score = None
    if core.is_terminal():
        score = {"lines": [{"label": "cards left", "values": counts}],
                 "total": [round(r, 6) for r in core.returns()], "returns": core.returns()}
    hands = [[french_card(c) for c in cards_of(core.hands[s])] for s in range(n)] if open_hands else None
    return {"hand": hand, "zones": zones, "actions": acts, "counts": counts, "notes": notes,
            "sides": list(range(n)), "score": score, "hands": hands}
