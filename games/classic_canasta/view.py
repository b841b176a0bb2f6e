"""Classic Canasta as one seat sees it (games.view; registered in games/classic_canasta/game.py)."""

from __future__ import annotations

from games.classic_canasta import actions as ca
from games.classic_canasta.actions import BLACK_SLOT
from games.classic_canasta.core import DRAWS, EVENTS, ClassicState
from games.classic_canasta.scoring import canasta_bonus
from games.canasta_family.scoring import cards_value
from games.canasta_family.cards import BLACK_THREE, JOKER, KIND_NAMES, RED_THREE, TWO
from games.modern_canasta.view import CANASTA_RANKS, KNOWN_ZONE, canasta_card, canasta_counts
from games.view import ViewShape, action, count, with_hand_actions, zone


CLASSIC_SCORE_LINES = (("melded cards", "melded_cards"), ("canastas", "canasta_bonuses"),
                       ("red 3s", "red_threes"), ("going out", "going_out"), ("cards in hand", "cards_in_hand"))
CLASSIC_CANASTAS = ("natural", "mixed")
_WHO = r"(?:your side|their side|you|p\d+)"        # a partnership's row, or a player's in a game of two or three

# What each zone's `text` and cards say (`classic_canasta_view` builds them).
ZONE_TEXTS = (
    ("Pile", "cards: the discard pile, bottom first, its top last; text: its size, top card and state: \"5 cards, "
             "top K, frozen\" (frozen: a 2, a Joker or a red 3 lies in it; then, and always for a side without "
             "its initial meld, it is taken only with a natural pair)"),
    ("Stock", "text: the cards left in the stock (\"52 cards\"); no cards shown"),
    (f"Melds: {_WHO}", "one a side (`side`): \"your side\" / \"their side\" with four players (partners), \"you\" "
                       "/ \"p1\" with two or three; `melds`: the side's melds (rank, cards, naturals, wilds, and the "
                       "kind of canasta once one; its points now); text: the side's score before the hand and its initial meld: "
                       "\"score 0; initial meld needs 50\" until made, then \"score 0; initial meld made\""),
    (f"Red 3s: {_WHO}", "one a side: cards: the side's red 3s laid down; no text"),
    (KNOWN_ZONE, "cards: what every seat knows that seat holds (the rest of a pile it took, the cards of an "
                 "initial meld it withdrew) and has not played since; shown only while there are some; no text"),
)
SHAPE = ViewShape(ranks=CANASTA_RANKS, zones=("Pile", "Stock", f"Melds: {_WHO}", f"Red 3s: {_WHO}", KNOWN_ZONE),
                  zone_texts=ZONE_TEXTS, events=EVENTS,
                  kinds=("draw", "pile", "other", "card", "meld"),
                  score_lines=tuple(label for label, field in CLASSIC_SCORE_LINES if field != "canasta_bonuses")
                  + tuple(f"{kind} canastas" for kind in CLASSIC_CANASTAS),
                  notes=(r"initial meld \d+ of \d+", "withdrew its meld"), canastas=CLASSIC_CANASTAS)


def _classic_meld(slot: int, n: int, t: int, j: int) -> dict:
    """A classic meld (slot 0..10 a natural rank, 11 the black 3s): a canasta from seven cards on,
    natural without wild cards, else mixed (games.classic_canasta.scoring)."""
    kind = BLACK_THREE if slot == BLACK_SLOT else slot
    cards = [canasta_card(kind) for _ in range(n)] + [canasta_card(TWO) for _ in range(t)] \
        + [canasta_card(JOKER) for _ in range(j)]
    complete = n + t + j >= 7
    return {"rank": "3" if slot == BLACK_SLOT else KIND_NAMES[kind], "cards": cards, "naturals": n, "wilds": t + j,
            "canasta": ("mixed" if t or j else "natural") if complete else None,
            "points": cards_value(kind, n, t, j) + (canasta_bonus(n, t, j) if complete else 0)}


def _kind_name(kind: int) -> str:
    return {BLACK_THREE: "black 3", RED_THREE: "red 3"}.get(kind, KIND_NAMES[kind])


def classic_canasta_view(core: ClassicState, seat: int, open_hands: bool) -> dict:
    """Classic Canasta from `seat`: the same shape as Modern American Canasta's (a side's melds and red 3s in its
    row), with a side per partnership (four players) or per player (two or three)."""
    n, sides, mine = core.n, core.sides, seat % core.sides
    top = core.pile[-1] if core.pile else None
    acts = []
    for a in core.legal_actions(seat):
        if a == ca.DRAW:
            label = "end the hand (the stock is empty)" if not core.stock_size else (
                "draw from the stock" if DRAWS[n] == 1 else f"draw {DRAWS[n]} from the stock")
            acts.append(action(a, label, "draw"))
        elif a in ca.TAKES:
            with_cards = {ca.TAKE_PAIR: f"a pair of {KIND_NAMES[top]}", ca.TAKE_TWO: f"a {KIND_NAMES[top]} and a 2",
                          ca.TAKE_JOKER: f"a {KIND_NAMES[top]} and a Joker"}[a]
            acts.append(action(a, f"take the pile with {with_cards}", "pile"))
        elif a == ca.COMMIT:
            acts.append(action(a, "take the pile (initial meld complete)", "pile"))
        elif a == ca.WITHDRAW:
            acts.append(action(a, "withdraw the initial meld", "other"))
        elif a < ca.MELD_BASE:
            kind = ca.discard_kind(a)
            acts.append(action(a, f"discard {_kind_name(kind)}", "card", canasta_card(kind)))
        else:
            slot, nat, t, j = ca.decode_meld(a)
            cards = _classic_meld(slot, nat, t, j)["cards"]
            shown = " ".join(c["text"] for c in cards)
            started = any(core.open_melds(mine)[slot])
            rank = "3s" if slot == ca.BLACK_SLOT else f"{KIND_NAMES[slot]}s"
            acts.append(action(a, f"add {shown} to the {rank}" if started else f"meld {shown}", "meld",
                               cards=[dict(c) for c in cards]))
    hand = canasta_counts(core.hands[seat])
    with_hand_actions(hand, acts, lambda c: (c["text"], c["color"]))
    pile_text = count(len(core.pile)) + (", top " + _kind_name(top) if top is not None else "") \
        + (", frozen" if core.frozen else "")
    zones = [zone("Pile", [canasta_card(k) for k in core.pile], pile_text),
             zone("Stock", text=count(core.stock_size))]
    thresholds, before = core.rules.thresholds, core.rules.scores
    for side in range(sides):
        if n == 4:
            who = "your side" if side == mine else "their side"
        else:
            who = "you" if side == seat else f"p{side}"
        melds = [_classic_meld(slot, *m) for slot, m in enumerate(core.open_melds(side)) if any(m)]
        opened = core.melded >> side & 1
        zones.append(zone(f"Melds: {who}", text=f"score {before[side]}; initial meld "
                           + ("made" if opened else f"needs {thresholds[side]}"), side=side, melds=melds))
        zones.append(zone(f"Red 3s: {who}", [canasta_card(RED_THREE) for _ in range(core.threes[side])], side=side))
    for s in range(n):
        if any(core.known[s]):
            zones.append(zone(f"Known in p{s}'s hand", canasta_counts(core.known[s]), side=s % sides))
    notes: list[list[str]] = [[] for _ in range(n)]
    if not core.is_terminal():
        actor = core.actor
        if core.pending:
            notes[actor].append(f"initial meld {core.turn_points} of {thresholds[actor % sides]}")
        if core.withdrawn:
            notes[actor].append("withdrew its meld")
    score = None
    if core.scores is not None:
        lines = []
        for label, field in CLASSIC_SCORE_LINES:
            if field != "canasta_bonuses":
                lines.append({"label": label, "values": [getattr(core.scores[s], field) for s in range(sides)]})
                continue
            for kind in CLASSIC_CANASTAS:       # the canasta bonuses, kind by kind
                per_side = [[m for m in core.open_melds(s) if sum(m) >= 7 and (kind == "mixed") == bool(m[1] or m[2])]
                            for s in range(sides)]
                if any(per_side):
                    lines.append({"label": f"{kind} canastas",
                                  "values": [sum(canasta_bonus(*m) for m in ms) for ms in per_side]})
        score = {"lines": lines, "total": [core.scores[s].total for s in range(sides)], "returns": core.returns()}
    hands = [canasta_counts(core.hands[s]) for s in range(n)] if open_hands else None
    return {"hand": hand, "zones": zones, "actions": acts, "counts": list(core.sizes), "notes": notes,
            "sides": [s % sides for s in range(n)], "score": score, "hands": hands}
