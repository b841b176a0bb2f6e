"""The table as one seat may see it: the JSON `View` of docs/play-api.md, less the session's fields.

Everything here is read from what the seat can know: its own hand, the public table state
(the cores' public fields: up-card, pile, counts, melds, 3s, scores) and its own information
state string for the log. tests/test_play_api.py checks that a view built from the true state
equals the view built from a world resampled from the seat's information state, so no hidden
card can reach the page. `open_hands=True` adds every hand (the review's open view only).
"""

from __future__ import annotations

import re
from typing import Any, Callable

from agents.base import rules_core
from games.cards import NUM_RANKS, RANK_SYMBOLS, SUIT_LETTERS, SUIT_SYMBOLS, cards_of

TITLES = {"python_page_one": "Page One", "python_american_page_one": "American Page One",
          "python_modern_canasta": "Modern American Canasta", "python_classic_canasta": "Classic Canasta"}
LOG_LINES = 400          # the newest lines of the log a view carries
_SEAT_LINE = re.compile(r"^p(\d+)\b")
_HEADERS = ("match scores:", "scores before the hand:")


# ------------------------------------------------------------------- cards
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


def canasta_card(kind: int, action: int | None = None) -> dict:
    """A Canasta card kind (suits do not matter; a 3 shows its colour)."""
    from games.modern_canasta.cards import BLACK_THREE, JOKER, KIND_NAMES, RED_THREE
    name = KIND_NAMES[kind]
    if kind == JOKER:
        return card("Jk", "Jk", None, "joker", action)
    if kind in (RED_THREE, BLACK_THREE):
        return card("3", "3", None, "red" if kind == RED_THREE else "black", action)
    return card(name, name, None, "black", action)


def action(action_id: int, label: str, kind: str, card_json: dict | None = None, **extra: Any) -> dict:
    """One Action of the contract."""
    return {"action": action_id, "label": label, "kind": kind, "card": card_json, **extra}


# --------------------------------------------------------------------- log
def seat_log(core, seat: int) -> list[dict]:
    """What `seat` saw happen, in words: its information state string, line by line, less the
    header lines (its hand, the match standing), consecutive own deal lines joined into one."""
    lines = core.information_state_string(seat).split("\n")
    out: list[dict] = []
    for line in lines:
        if line.startswith(f"p{seat} hand:") or line.startswith(_HEADERS) or not line:
            continue
        if line.startswith("dealt ") and out and out[-1]["text"].startswith("you were dealt "):
            out[-1]["text"] += " " + line[6:]
            continue
        if line.startswith("dealt "):
            out.append({"seat": seat, "text": "you were dealt " + line[6:]})
            continue
        if out and out[-1].get("line") == line:        # "p3 draws" eleven times: one entry, counted
            out[-1]["times"] += 1
            out[-1]["text"] = f"{line} ×{out[-1]['times']}"
            continue
        m = _SEAT_LINE.match(line)
        out.append({"seat": int(m.group(1)) if m else None, "text": line, "line": line, "times": 1})
    for entry in out:
        entry.pop("line", None)
        entry.pop("times", None)
    return out[-LOG_LINES:]


# ------------------------------------------------------------------ common
def _players(core, seat: int, names: list[str], agents: list[str], sides: list[int],
             counts: list[int], notes: list[list[str]]) -> list[dict]:
    to_move = core.current_player()
    return [{"seat": s, "name": names[s], "agent": agents[s], "side": sides[s], "cards": counts[s],
             "to_move": s == to_move, "notes": notes[s]} for s in range(len(names))]


def _count(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _zone(name: str, cards: list[dict] | None = None, text: str | None = None, side: int | None = None,
          melds: list[dict] | None = None) -> dict:
    return {"name": name, "cards": cards or [], "text": text, "side": side, "melds": melds}


def _with_hand_actions(hand: list[dict], actions: list[dict], key: Callable[[dict], Any]) -> None:
    """Sets a hand card's `action` where exactly one legal action plays that card alone."""
    by_card: dict[Any, list[int]] = {}
    for a in actions:
        if a["kind"] == "card" and a["card"] is not None:
            by_card.setdefault(key(a["card"]), []).append(a["action"])
    for c in hand:
        ids = by_card.get(key(c))
        c["action"] = ids[0] if ids and len(ids) == 1 else None


# --------------------------------------------------------------- Page One
def _page_one(core, seat: int, open_hands: bool) -> dict:
    from games.page_one.core import EV_FOLLOW, EV_LEAD, OVER, played_card
    n = core.n
    acts = []
    for a in core.legal_actions(seat):
        c = french_card(played_card(a))
        acts.append(action(a, c["text"] if a < 52 else f"Jk as {SUIT_SYMBOLS[(a - 52) % 4]}", "card", c))
    hand = [french_card(c) for c in cards_of(core.hands[seat])]
    _with_hand_actions(hand, acts, lambda c: c["text"])
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
    zones = [_zone("Trick", trick, led),
             _zone("Stock", text=_count(core.stock.bit_count())),
             _zone("Discards", text=_count(core.discard.bit_count())),
             _zone("Tricks", text=f"trick {core.tricks + 1}" if core.phase != OVER else f"{core.tricks} tricks")]
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


# ----------------------------------------------------- American Page One
def _american_page_one(core, seat: int, open_hands: bool) -> dict:
    from games.american_page_one import core as apo
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
    _with_hand_actions(hand, acts, lambda c: c["text"])
    zones = []
    if core.top >= 0:
        named = core.suit >= 0 and (core.top == apo.JOKER or core.suit != core.top // NUM_RANKS)
        zones.append(_zone("Up-card", [french_card(core.top)],
                           f"suit {SUIT_SYMBOLS[core.suit]} named" if named else None))
    pile = core.pile_lo.bit_count() + core.pile_hi.bit_count()
    zones += [_zone("Stock", text=_count(len(core.stock))),
              _zone("Discards", text=_count(pile)),
              _zone("Direction", text="clockwise" if core.dir == 1 else "anticlockwise")]
    if core.pending:
        zones.append(_zone("Pending draw", text=_count(core.pending)))
    if core.rules.deals_left or any(core.rules.scores):
        zones.append(_zone("Match", text="scores " + " ".join(f"p{s} {v:g}" for s, v in enumerate(core.rules.scores))
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


# ---------------------------------------------------------------- Canasta
def canasta_kind(slot: int, naturals: int, twos: int, jokers: int) -> str:
    """What kind of canasta a complete meld is (its bonus in games.modern_canasta.scoring)."""
    from games.modern_canasta.cards import ACE, SEVEN, WILD_SLOT
    if slot == WILD_SLOT:
        return "wild"
    if twos or jokers:
        return "mixed"
    return "sevens" if slot == SEVEN else "aces" if slot == ACE else "natural"


def _meld(slot: int, n: int, t: int, j: int, complete: bool) -> dict:
    from games.modern_canasta.cards import JOKER, KIND_NAMES, TWO, WILD_SLOT
    cards = [canasta_card(slot)] * n if slot != WILD_SLOT else []
    cards = [dict(c) for c in cards] + [canasta_card(TWO) for _ in range(t)] + [canasta_card(JOKER) for _ in range(j)]
    return {"rank": "wild" if slot == WILD_SLOT else KIND_NAMES[slot], "cards": cards, "naturals": n,
            "wilds": t + j, "canasta": canasta_kind(slot, n, t, j) if complete else None}


def _canasta_counts(counts) -> list[dict]:
    from games.modern_canasta.cards import NUM_KINDS
    return [canasta_card(k) for k in range(NUM_KINDS) for _ in range(counts[k])]


CANASTA_KINDS = ("natural", "mixed", "wild", "sevens", "aces")
SCORE_LINES = (("melded cards", "melded_cards"), ("canastas", "canasta_bonuses"), ("3s", "threes"),
               ("going out", "going_out"), ("cards in hand", "cards_in_hand"),
               ("unfinished melds", "unfinished_melds"), ("three Aces or 7s held", "held_sets"))


def _canasta(core, seat: int, open_hands: bool) -> dict:
    from games.modern_canasta import actions as ca
    from games.modern_canasta.cards import BLACK_THREE, JOKER, KIND_NAMES, RED_THREE, TWO, WILD_SLOT
    acts = []
    for a in core.legal_actions(seat):
        if a == ca.DRAW:
            acts.append(action(a, "draw from the stock", "draw"))
        elif a == ca.TAKE:
            acts.append(action(a, "take the pile", "pile"))
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
    hand = _canasta_counts(core.hands[seat])
    _with_hand_actions(hand, acts, lambda c: (c["text"], c["color"]))
    pile = [canasta_card(k) for k in core.pile]
    zones = [_zone("Pile", pile, _count(len(core.pile)) + (", top " + KIND_NAMES[core.pile[-1]] if core.pile else "")),
             _zone("Stock", text=_count(core.stock_size))]
    thresholds = core.rules.thresholds
    before = (core.rules.score0, core.rules.score1)
    for side in (0, 1):
        melds = [_meld(slot, n, t, j, True) for slot, n, t, j in core.canastas[side]]
        melds += [_meld(slot, n, t, j, False) for slot, (n, t, j) in enumerate(core.open_melds(side)) if n or t or j]
        who = "your side" if side == seat & 1 else "their side"
        opened = core.melded >> side & 1
        zones.append(_zone(f"Melds: {who}", text=f"score {before[side]}; initial meld "
                           + ("made" if opened else f"needs {thresholds[side]}"), side=side, melds=melds))
        threes = [canasta_card(RED_THREE)] * core.threes[2 * side] + [canasta_card(BLACK_THREE)] * core.threes[2 * side + 1]
        zones.append(_zone(f"3s: {who}", [dict(c) for c in threes], side=side))
    for s in range(4):
        if any(core.known[s]):
            zones.append(_zone(f"Known in p{s}'s hand", _canasta_counts(core.known[s]), side=s & 1))
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
        if core.must_out and actor == seat:
            notes[actor].append("must go out this turn")
    score = None
    if core.scores is not None:
        from games.modern_canasta.scoring import canasta_bonus
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
    hands = [_canasta_counts(core.hands[s]) for s in range(4)] if open_hands else None
    return {"hand": hand, "zones": zones, "actions": acts, "counts": counts, "notes": notes,
            "sides": [s & 1 for s in range(4)], "score": score, "hands": hands}


# -------------------------------------------------------- classic Canasta
CLASSIC_SCORE_LINES = (("melded cards", "melded_cards"), ("canastas", "canasta_bonuses"),
                       ("red 3s", "red_threes"), ("going out", "going_out"), ("cards in hand", "cards_in_hand"))


def _classic_meld(slot: int, n: int, t: int, j: int) -> dict:
    """A classic meld (slot 0..10 a natural rank, 11 the black 3s): a canasta from seven cards on,
    natural without wild cards, else mixed (games.classic_canasta.scoring)."""
    from games.classic_canasta.actions import BLACK_SLOT
    from games.modern_canasta.cards import BLACK_THREE, JOKER, KIND_NAMES, TWO
    kind = BLACK_THREE if slot == BLACK_SLOT else slot
    cards = [canasta_card(kind) for _ in range(n)] + [canasta_card(TWO) for _ in range(t)] \
        + [canasta_card(JOKER) for _ in range(j)]
    return {"rank": "3" if slot == BLACK_SLOT else KIND_NAMES[kind], "cards": cards, "naturals": n, "wilds": t + j,
            "canasta": ("mixed" if t or j else "natural") if n + t + j >= 7 else None}


def _kind_name(kind: int) -> str:
    from games.modern_canasta.cards import BLACK_THREE, KIND_NAMES, RED_THREE
    return {BLACK_THREE: "black 3", RED_THREE: "red 3"}.get(kind, KIND_NAMES[kind])


def _classic_canasta(core, seat: int, open_hands: bool) -> dict:
    """Classic Canasta from `seat`: the same shape as `_canasta` (a side's melds and red 3s in its
    row), with a side per partnership (four players) or per player (two or three)."""
    from games.classic_canasta import actions as ca
    from games.classic_canasta.core import DRAWS
    from games.classic_canasta.scoring import canasta_bonus
    from games.modern_canasta.cards import KIND_NAMES, RED_THREE
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
    hand = _canasta_counts(core.hands[seat])
    _with_hand_actions(hand, acts, lambda c: (c["text"], c["color"]))
    pile_text = _count(len(core.pile)) + (", top " + _kind_name(top) if top is not None else "") \
        + (", frozen" if core.frozen else "")
    zones = [_zone("Pile", [canasta_card(k) for k in core.pile], pile_text),
             _zone("Stock", text=_count(core.stock_size))]
    thresholds, before = core.rules.thresholds, core.rules.scores
    for side in range(sides):
        if n == 4:
            who = "your side" if side == mine else "their side"
        else:
            who = "you" if side == seat else f"p{side}"
        melds = [_classic_meld(slot, *m) for slot, m in enumerate(core.open_melds(side)) if any(m)]
        opened = core.melded >> side & 1
        zones.append(_zone(f"Melds: {who}", text=f"score {before[side]}; initial meld "
                           + ("made" if opened else f"needs {thresholds[side]}"), side=side, melds=melds))
        zones.append(_zone(f"Red 3s: {who}", [canasta_card(RED_THREE) for _ in range(core.threes[side])], side=side))
    for s in range(n):
        if any(core.known[s]):
            zones.append(_zone(f"Known in p{s}'s hand", _canasta_counts(core.known[s]), side=s % sides))
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
            for kind in ("natural", "mixed"):       # the canasta bonuses, kind by kind
                per_side = [[m for m in core.open_melds(s) if sum(m) >= 7 and (kind == "mixed") == bool(m[1] or m[2])]
                            for s in range(sides)]
                if any(per_side):
                    lines.append({"label": f"{kind} canastas",
                                  "values": [sum(canasta_bonus(*m) for m in ms) for ms in per_side]})
        score = {"lines": lines, "total": [core.scores[s].total for s in range(sides)], "returns": core.returns()}
    hands = [_canasta_counts(core.hands[s]) for s in range(n)] if open_hands else None
    return {"hand": hand, "zones": zones, "actions": acts, "counts": list(core.sizes), "notes": notes,
            "sides": [s % sides for s in range(n)], "score": score, "hands": hands}


_BUILDERS = {"python_page_one": _page_one, "python_american_page_one": _american_page_one,
             "python_modern_canasta": _canasta, "python_classic_canasta": _classic_canasta}


def table_view(game_name: str, state, seat: int, names: list[str], agents: list[str],
               open_hands: bool = False) -> dict:
    """The table from `seat`: game, seat, turn, players, hand, zones, actions, log, score.

    `state` is a pyspiel state or a rules core. The session adds id, status, thinking,
    message and match. With open_hands every player's entry carries its `hand` too."""
    core = rules_core(state)
    built = _BUILDERS[game_name](core, seat, open_hands)
    if core.current_player() != seat:
        built["actions"] = []
        for c in built["hand"]:
            c["action"] = None
    players = _players(core, seat, names, agents, built["sides"], built["counts"], built["notes"])
    if open_hands:
        for p, hand in zip(players, built["hands"]):
            p["hand"] = hand
    return {"game": game_name, "title": TITLES[game_name], "seat": seat, "turn": len(core.history()),
            "players": players, "hand": built["hand"], "zones": built["zones"], "actions": built["actions"],
            "log": seat_log(core, seat), "score": built["score"]}

