"""Modern American Canasta as one seat sees it (games.view; registered in games/modern_canasta/game.py).

The card and meld pieces here are classic Canasta's too (games/classic_canasta/view.py): both
deal the same kinds of card.
"""

from __future__ import annotations

from games.modern_canasta import actions as ca
from games.modern_canasta.cards import (ACE, BLACK_THREE, JOKER, KIND_NAMES, NUM_KINDS, NUM_SLOTS, RED_THREE, SEVEN,
                                        TWO, VALUES, WILD_SLOT)
from games.modern_canasta.core import EVENTS, CanastaState
from games.modern_canasta.scoring import canasta_bonus, meld_value
from games.view import ViewShape, action, card, count, with_hand_actions, zone


def canasta_card(kind: int, action: int | None = None) -> dict:
    """A Canasta card kind (suits do not matter; a 3 shows its colour)."""
    name = KIND_NAMES[kind]
    if kind == JOKER:
        return card("Jk", "Jk", None, "joker", action)
    if kind in (RED_THREE, BLACK_THREE):
        return card("3", "3", None, "red" if kind == RED_THREE else "black", action)
    return card(name, name, None, "black", action)


def canasta_kind(slot: int, naturals: int, twos: int, jokers: int) -> str:
    """What kind of canasta a complete meld is (its bonus in games.modern_canasta.scoring)."""
    if slot == WILD_SLOT:
        return "wild"
    if twos or jokers:
        return "mixed"
    return "sevens" if slot == SEVEN else "aces" if slot == ACE else "natural"


def meld(slot: int, n: int, t: int, j: int, complete: bool) -> dict:
    """One Meld of the contract: a rank's naturals and wild cards, and its canasta kind when complete."""
    cards = [canasta_card(slot)] * n if slot != WILD_SLOT else []
    cards = [dict(c) for c in cards] + [canasta_card(TWO) for _ in range(t)] + [canasta_card(JOKER) for _ in range(j)]
    return {"rank": "wild" if slot == WILD_SLOT else KIND_NAMES[slot], "cards": cards, "naturals": n,
            "wilds": t + j, "canasta": canasta_kind(slot, n, t, j) if complete else None,
            "points": meld_value(slot, n, t, j) + (canasta_bonus(slot, n, t, j) if complete else 0)}


def canasta_counts(counts: list[int]) -> list[dict]:
    """A hand or a known part of one, by kind counts, as cards."""
    return [canasta_card(k) for k in range(NUM_KINDS) for _ in range(counts[k])]


CANASTA_KINDS = ("natural", "mixed", "wild", "sevens", "aces")
SCORE_LINES = (("melded cards", "melded_cards"), ("canastas", "canasta_bonuses"), ("3s", "threes"),
               ("going out", "going_out"), ("cards in hand", "cards_in_hand"),
               ("unfinished melds", "unfinished_melds"), ("three Aces or 7s held", "held_sets"))
CANASTA_RANKS = KIND_NAMES[:NUM_KINDS - 2] + ("3",)       # canasta_card's ranks: a 3 of either colour is "3"
KNOWN_ZONE = r"Known in p\d+'s hand"

# What each zone's `text` and cards say (`modern_canasta_view` builds them).
ZONE_TEXTS = (
    ("Pile", "cards: the discard pile, bottom first, its top last; text: its size and top card: \"5 cards, top K\" "
             "(it is taken only with a natural pair of the top card's rank)"),
    ("Stock", "text: the cards left in the stock (\"58 cards\"); no cards shown"),
    ("Melds: (?:your|their) side", "one a partnership (`side`: 0 is seats 0 and 2): `melds`: its canastas and "
                                   "unfinished melds (rank, or \"wild\" for the wild-card meld; cards, naturals, "
                                   "wilds; the kind of canasta once one; its points now); text: the side's score before the hand "
                                   "and its initial meld: \"score 0; initial meld needs 125\" until made, then "
                                   "\"score 0; initial meld made\""),
    ("3s: (?:your|their) side", "one a partnership: cards: its 3s laid down, red then black (the card's "
                                "`color`); no text"),
    (KNOWN_ZONE, "cards: what every seat knows that seat holds (the rest of a pile it took, the cards of an "
                 "initial meld it withdrew) and has not played since; shown only while there are some; no text"),
)
SHAPE = ViewShape(ranks=CANASTA_RANKS, zones=("Pile", "Stock", "Melds: (?:your|their) side", "3s: (?:your|their) side",
                                              KNOWN_ZONE), zone_texts=ZONE_TEXTS, events=EVENTS,
                  kinds=("draw", "pile", "ask", "answer", "other", "card", "meld"),
                  score_lines=tuple(label for label, field in SCORE_LINES if field != "canasta_bonuses")
                  + tuple(f"{kind} canastas" for kind in CANASTA_KINDS),
                  notes=("asked", "may not go out this turn", "withdrew its meld", "must go out this turn",
                         r"initial meld -?\d+ of \d+(?: \(needs a clean meld\))?"),
                  canastas=CANASTA_KINDS)


def initial_meld_points(core: CanastaState) -> int:
    """The points the player to move has laid toward its side's initial meld, counted as the
    rules count them (CanastaState.initial_meld_valid: the melds laid this turn and the canastas
    made, less the pile's top card where it took the pile), for the table's running count."""
    side = core.actor & 1
    top = core.pickup_top
    points = -VALUES[top] if top >= 0 else 0
    laid = [(slot, *core.melds[36 * side + 3 * slot:36 * side + 3 * slot + 3]) for slot in range(NUM_SLOTS)]
    for slot, n, t, j in laid + list(core.canastas[side]):
        points += (VALUES[slot] * n if slot != WILD_SLOT else 0) + 20 * t + 50 * j
    return points


def modern_canasta_view(core: CanastaState, seat: int, open_hands: bool) -> dict:
    """Modern American Canasta from `seat`: its hand, the pile, the stock, each side's melds and 3s, the
    cards known in each hand, the score lines once the hand is over."""
    acts = []
    side_opened = core.melded >> (seat & 1) & 1
    for a in core.legal_actions(seat):
        if a == ca.DRAW:
            acts.append(action(a, "draw from the stock", "draw"))
        elif a == ca.TAKE:
            # Before the side's initial meld, taking the pile binds the player to complete it from the
            # hand; where it cannot, only "withdraw" is left, and the withdrawn cards are shown to all.
            acts.append(action(a, "take the pile" if side_opened else
                               f"take the pile (then meld {core.rules.thresholds[seat & 1]} points from your hand, "
                               f"or withdraw, showing those cards)", "pile"))
        elif a == ca.COMMIT:
            acts.append(action(a, "take the pile (initial meld complete)", "pile"))
        elif a == ca.ASK:
            acts.append(action(a, "ask partner: may I go out?", "ask"))
        elif a in (ca.YES, ca.NO):
            acts.append(action(a, "yes, go out" if a == ca.YES else "no, don't go out", "answer"))
        elif a == ca.WITHDRAW:
            acts.append(action(a, "withdraw the initial meld", "other"))
        elif a < ca.MELD_BASE:
            kind = a - ca.DISCARD_BASE
            acts.append(action(a, f"discard {KIND_NAMES[kind]}", "card", canasta_card(kind)))
        else:
            slot, n, t, j = ca.decode_meld(a)
            cards = ([canasta_card(slot)] * n if slot != WILD_SLOT else []) + [canasta_card(TWO)] * t \
                + [canasta_card(JOKER)] * j
            shown = " ".join(c["text"] for c in cards)
            started = any(core.open_melds(seat & 1)[slot])
            target = "the wild-card meld" if slot == WILD_SLOT else f"the {KIND_NAMES[slot]}s"
            label = f"add {shown} to {target}" if started else (
                f"meld {shown} (wild cards)" if slot == WILD_SLOT else f"meld {shown}")
            acts.append(action(a, label, "meld", cards=[dict(c) for c in cards]))
    hand = canasta_counts(core.hands[seat])
    with_hand_actions(hand, acts, lambda c: (c["text"], c["color"]))
    pile = [canasta_card(k) for k in core.pile]
    zones = [zone("Pile", pile, count(len(core.pile)) + (", top " + KIND_NAMES[core.pile[-1]] if core.pile else "")),
             zone("Stock", text=count(core.stock_size))]
    thresholds = core.rules.thresholds
    before = (core.rules.score0, core.rules.score1)
    for side in (0, 1):
        melds = [meld(slot, n, t, j, True) for slot, n, t, j in core.canastas[side]]
        melds += [meld(slot, n, t, j, False) for slot, (n, t, j) in enumerate(core.open_melds(side)) if n or t or j]
        who = "your side" if side == seat & 1 else "their side"
        opened = core.melded >> side & 1
        zones.append(zone(f"Melds: {who}", text=f"score {before[side]}; initial meld "
                           + ("made" if opened else f"needs {thresholds[side]}"), side=side, melds=melds))
        threes = [canasta_card(RED_THREE)] * core.threes[2 * side] + [canasta_card(BLACK_THREE)] * core.threes[2 * side + 1]
        zones.append(zone(f"3s: {who}", [dict(c) for c in threes], side=side))
    for s in range(4):
        if any(core.known[s]):
            zones.append(zone(f"Known in p{s}'s hand", canasta_counts(core.known[s]), side=s & 1))
    counts = list(core.sizes)
    notes = [[] for _ in range(4)]
    for s in range(4):
        if core.asked >> s & 1:
            notes[s].append("asked")
    if not core.is_terminal():
        actor = core.actor
        if core.forbid_out:
            notes[actor].append("may not go out this turn")
        if core.withdrawn:
            notes[actor].append("withdrew its meld")
        if core.pending:
            points, needed = initial_meld_points(core), thresholds[actor & 1]
            short = points >= needed and not core.initial_meld_valid()      # enough points, no clean meld yet
            notes[actor].append(f"initial meld {points} of {needed}" + (" (needs a clean meld)" if short else ""))
        if core.must_out and actor == seat:
            notes[actor].append("must go out this turn")
    score = None
    if core.scores is not None:
        lines = []
        for label, field in SCORE_LINES:
            if field != "canasta_bonuses":
                lines.append({"label": label, "values": [getattr(core.scores[s], field) for s in (0, 1)]})
                continue
            for kind in CANASTA_KINDS:       # the canasta bonuses, kind by kind
                values = [sum(canasta_bonus(*c) for c in core.canastas[s] if canasta_kind(*c) == kind)
                          for s in (0, 1)]
                if any(c for s in (0, 1) for c in core.canastas[s] if canasta_kind(*c) == kind):
                    lines.append({"label": f"{kind} canastas", "values": values})
        score = {"lines": lines, "total": [core.scores[s].total for s in (0, 1)], "returns": core.returns()}
    hands = [canasta_counts(core.hands[s]) for s in range(4)] if open_hands else None
    return {"hand": hand, "zones": zones, "actions": acts, "counts": counts, "notes": notes,
            "sides": [s & 1 for s in range(4)], "score": score, "hands": hands}
