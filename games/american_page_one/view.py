"""American Page One as one seat sees it (games.view; registered in games/american_page_one/game.py)."""

from __future__ import annotations

from games.american_page_one import core as apo
from games.cards import NUM_RANKS, SUIT_LETTERS, SUIT_SYMBOLS
from games.view import FRENCH_RANKS, ViewShape, action, count, french_card, with_hand_actions, zone

# What each zone's `text` and cards say (`american_page_one_view` builds them).
ZONE_TEXTS = (
    ("Up-card", "cards: the top card of the discards, the one to match; text: \"suit ♥ named\" where an 8 or a "
                "Joker named a suit other than its own (the suit to follow), else null"),
    ("Stock", "text: the cards left in the stock (\"40 cards\"); no cards shown"),
    ("Discards", "text: the cards in the discards, the up-card included (\"9 cards\"); no cards shown"),
    ("Direction", "text: the order of play, \"clockwise\" (seat + 1) or \"anticlockwise\" (seat - 1)"),
    ("Pending draw", "only while a draw card waits for an answer: text: the cards the next player must draw "
                     "unless it answers (\"4 cards\")"),
    ("Match", "only in a match of several deals: text: each seat's score so far and the deals left after this "
              "one (\"scores p0 12 p1 -12; deals after this one: 3\")"),
)
SHAPE = ViewShape(ranks=FRENCH_RANKS, zones=("Up-card", "Stock", "Discards", "Direction", "Pending draw", "Match"),
                  kinds=("card", "suit", "draw", "pass", "call"), score_lines=("cards left", "hand points"),
                  notes=("dealer", r"out \d+"), zone_texts=ZONE_TEXTS, events=apo.EVENTS)

def american_page_one_view(core: apo.AmericanPageOneState, seat: int, open_hands: bool) -> dict:
    """American Page One from `seat`: its hand, the up-card, stock, discards, direction and match standing."""
    n = core.n
    acts = []
    for a in core.legal_actions(seat):
        if a < apo.NUM_KINDS:
            card_json = french_card(a)
            acts.append(action(a, card_json["text"], "card", card_json))
        elif apo.NAME_SUIT <= a < apo.NAME_SUIT + 4:
            acts.append(action(a, f"name {SUIT_SYMBOLS[a - apo.NAME_SUIT]}", "suit",
                               suit=SUIT_LETTERS[a - apo.NAME_SUIT]))
        else:
            label, kind = {apo.DRAW: ("draw" if not core.pending else f"draw {core.pending}", "draw"),
                           apo.PASS: ("pass", "pass"), apo.DONE: ("no more of this rank", "pass"),
                           apo.DOBON: ("Dobon", "call"), apo.NO_DOBON: ("no Dobon", "pass"),
                           apo.CHALLENGE: ("challenge the joker", "call")}[a]
            acts.append(action(a, label, kind))
    hand = [french_card(k) for k in apo.hand_kinds(core.lo[seat], core.hi[seat])]
    with_hand_actions(hand, acts, lambda c: c["text"])
    zones = []
    if core.top >= 0:
        named = core.suit >= 0 and (core.top == apo.JOKER or core.suit != core.top // NUM_RANKS)
        zones.append(zone("Up-card", [french_card(core.top)],
                           f"suit {SUIT_SYMBOLS[core.suit]} named" if named else None))
    pile = core.pile_lo.bit_count() + core.pile_hi.bit_count()
    zones += [zone("Stock", text=count(len(core.stock))),
              zone("Discards", text=count(pile)),
              zone("Direction", text="clockwise" if core.dir == 1 else "anticlockwise")]
    if core.pending:
        zones.append(zone("Pending draw", text=count(core.pending)))
    if core.rules.deals_left or any(core.rules.scores):
        zones.append(zone("Match", text="scores " + " ".join(f"p{s} {v:g}" for s, v in enumerate(core.rules.scores))
                           + f"; deals after this one: {core.rules.deals_left}"))
    counts = [apo.hand_size(core.lo[s], core.hi[s]) for s in range(n)]
    notes = [(["dealer"] if s == core.dealer else []) + ([f"out {core.out.index(s) + 1}"] if s in core.out else [])
             for s in range(n)]
    score = None
    if core.is_terminal():
        score = {"lines": [{"label": "cards left", "values": counts},
                           {"label": "hand points", "values": [core.points(s) for s in range(n)]}],
                 "total": core.returns(), "returns": core.returns()}
    hands = ([[french_card(k) for k in apo.hand_kinds(core.lo[s], core.hi[s])] for s in range(n)]
             if open_hands else None)
    return {"hand": hand, "zones": zones, "actions": acts, "counts": counts, "notes": notes,
            "sides": list(range(n)), "score": score, "hands": hands}
