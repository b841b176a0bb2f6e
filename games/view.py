"""What one seat may see, in one structured description: the seat view (docs/play-api.md's `View`,
less the table session's own fields), and its JSON Schema, generated per game.

The seat view is the game's: the table (play/), `cardarena show --view SEAT --json` and the
engine protocol's turn message (agents/engine.py) all build it with `seat_view`, so a page, a
transcript and an engine in another language read one format, checked by one schema. Each game
builds its own part in its package (games/<game>/view.py) from the seat's hand and the public
table, and registers the builder (games.registry: `GameEntry.view`) with the words its view
uses (`GameEntry.view_shape`, a `ViewShape`); a builder returns {hand, zones, actions, counts,
notes, sides, score, hands}: hands only with open_hands. This module adds what every game
shares: the title, the players, the turn and the seat's log, and `view_schema` turns a game's
declared shape into its schema (`cardarena schema GAME`).

Everything is read from what the seat can know: its own hand, the public table state and its
own information state string for the log. tests/test_play_api.py checks that a view built from
the true state equals the view built from a world resampled from the seat's information state,
so no hidden card can reach a page, a transcript or an engine. `open_hands=True` adds every
hand (the review's open view only).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from games import registry
from games.cards import NUM_RANKS, RANK_SYMBOLS, SUIT_LETTERS, SUIT_SYMBOLS

LOG_LINES = 400          # the newest lines of the log a view carries
FRENCH_RANKS: tuple[str, ...] = tuple(r.replace("T", "10") for r in RANK_SYMBOLS) + ("Jk",)   # french_card's ranks


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


# ---------------------------------------------------------------- the seat view
_SEAT_LINE = re.compile(r"^p(\d+)\b")
_HEADERS = ("match scores:", "scores before the hand:")


_TEN = re.compile(r"\bT(?=[♠♥♦♣])")
_THREE = re.compile(r"\b3([rb])\b")


def notation(text: str) -> str:
    """A rules core's words in the table's notation, the one its cards show: a ten is "10"
    (the cores write "T♠"), a Canasta 3 is a "red 3" or a "black 3" (the cores write "3r", "3b")."""
    text = _TEN.sub("10", text)
    return _THREE.sub(lambda m: ("red 3" if m.group(1) == "r" else "black 3"), text)


def seat_log(core: Any, seat: int) -> list[dict]:
    """What `seat` saw happen, in words: its information state string, line by line, less the
    header lines (its hand, the match standing), consecutive own deal lines joined into one, in
    the table's notation (`notation`: the log says what the cards show)."""
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
        entry["text"] = notation(entry["text"])
    return out[-LOG_LINES:]


def _players(core: Any, names: list[str], agents: list[str | None], sides: list[int], counts: list[int],
             notes: list[list[str]]) -> list[dict]:
    to_move = core.current_player()
    return [{"seat": s, "name": names[s], "agent": agents[s], "side": sides[s], "cards": counts[s],
             "to_move": s == to_move, "notes": notes[s]} for s in range(len(names))]


def game_name(game: Any) -> str:
    """A game's registered short name, from its name, its game string or a pyspiel game."""
    return game.split("(")[0].strip() if isinstance(game, str) else game.get_type().short_name


def seat_view(game: Any, state: Any, seat: int, names: list[str] | None = None,
              agents: list[str | None] | None = None, open_hands: bool = False) -> dict:
    """The table from `seat`: game, title, seat, turn, players, hand, zones, actions, log, score
    (the schema: `view_schema`).

    `game` is a registered game's name (or game string) or a pyspiel game; `state` a pyspiel
    state or a rules core; the game's registered view builds its part. `names` and `agents`
    are who sits where, as the caller knows them (the table's "You"; a record's agents): by
    default "p0", "p1", ... and null, what an engine is told. The table's session adds id,
    status, thinking, message and match. With open_hands every player's entry carries its
    `hand` too."""
    core = getattr(state, "core", state)          # a wrapper's rules core, or a game that is its own
    name = game_name(game)
    entry = registry.lookup(name)
    built = entry.view(core, seat, open_hands)
    if core.current_player() != seat:
        built["actions"] = []
        for c in built["hand"]:
            c["action"] = None
    n = len(built["counts"])
    names = names if names is not None else [f"p{s}" for s in range(n)]
    agents = agents if agents is not None else [None] * n
    players = _players(core, names, agents, built["sides"], built["counts"], built["notes"])
    if open_hands:
        for p, hand in zip(players, built["hands"]):
            p["hand"] = hand
    return {"game": name, "title": entry.title, "seat": seat, "turn": len(core.history()),
            "players": players, "hand": built["hand"], "zones": built["zones"], "actions": built["actions"],
            "log": seat_log(core, seat), "score": built["score"]}


# ---------------------------------------------------------------- its schema
@dataclass(frozen=True)
class ViewShape:
    """The words a game's view uses, declared by the game (its registry entry's `view_shape`) so
    that its schema names them: a page or an engine can rely on them, and a test that builds
    views along many deals catches a builder that says something new without declaring it.

    `zones` and `notes` are regular expressions for a whole zone name or player note (some
    carry a number: "out 2", "Known in p3's hand"); the rest are the exact values allowed."""

    ranks: tuple[str, ...]               # Card.rank (and Meld.rank, with "wild")
    zones: tuple[str, ...]               # Zone.name patterns
    kinds: tuple[str, ...]               # Action.kind
    score_lines: tuple[str, ...]         # Score.lines[].label
    notes: tuple[str, ...] = ()          # Player.notes[] patterns
    canastas: tuple[str, ...] = ()       # Meld.canasta; none: the game has no melds
    # What a zone's `text` and cards mean, by its `zones` pattern; and how each event changes the
    # table, by its shape (the engine protocol's placeholders: "<seat> discards <rank>"), declared
    # beside the code that says them: scripts/protocol_docs.py writes both into the game's page.
    zone_texts: tuple[tuple[str, str], ...] = ()
    events: tuple[tuple[str, str], ...] = ()


SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
SUITS = tuple(SUIT_LETTERS)
COLORS = ("red", "black", "joker")


def _one_of(words: tuple[str, ...] | None) -> dict:
    """A string among `words`; any string where the game declares none."""
    return {"type": "string", "enum": list(words)} if words is not None else {"type": "string"}


def _matching(patterns: tuple[str, ...] | None) -> dict:
    """A string matching one of `patterns` whole; any string where the game declares none."""
    if patterns is None:
        return {"type": "string"}
    return {"type": "string", "pattern": "^(?:" + "|".join(f"(?:{p})" for p in patterns) + ")$"}


def _object(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict:
    """An object with exactly these fields (the optional ones may be missing), nothing else."""
    return {"type": "object", "properties": {**required, **(optional or {})}, "required": list(required),
            "additionalProperties": False}


def _nullable(schema: dict) -> dict:
    return {"anyOf": [schema, {"type": "null"}]}


def _doc(schema: dict, text: str) -> dict:
    """`schema` with its meaning in words: the schema is the view's documentation (docs/play-api.md points here)."""
    return {**schema, "description": text}


def view_schema(game: Any) -> dict:
    """The JSON Schema (draft 2020-12) of a registered game's seat view, `seat_view`'s output:
    the structure every game shares, with the game's title, its player counts and the words
    its `ViewShape` declares, each field described. A game that declares none gets the shared
    structure with free words. The table's `View` (docs/play-api.md) is this plus the
    session's own fields."""
    entry = registry.lookup(game_name(game))
    shape: ViewShape | None = entry.view_shape
    lo, hi = entry.players
    seat = {"type": "integer", "minimum": 0, "maximum": hi - 1}
    count_ = {"type": "integer", "minimum": 0}
    numbers = {"type": "array", "items": {"type": "number"}}
    ranks = shape.ranks if shape else None
    card_ref, cards = {"$ref": "#/$defs/Card"}, {"type": "array", "items": {"$ref": "#/$defs/Card"}}
    defs: dict[str, Any] = {
        "Card": _doc(_object(
            {"text": _doc({"type": "string"}, "the card as shown: \"7♥\", \"Jk\""), "rank": _one_of(ranks),
             "suit": _nullable(_one_of(SUITS)), "color": _one_of(COLORS),
             "action": _doc(_nullable({"type": "integer"}), "on a hand card: the legal action that plays this "
                                                           "card alone, where exactly one does (click to send)")},
            {"seat": _doc(seat, "on a card of a trick: who played it")}), "One card."),
        "Meld": _doc(_object({"rank": _one_of(ranks + ("wild",) if ranks else None), "cards": cards,
                              "naturals": count_, "wilds": count_,
                              "canasta": _doc(_nullable(_one_of(shape.canastas if shape else None)),
                                              "the kind of canasta, once the meld is one"),
                              "points": _doc({"type": "integer"},
                                             "the meld's face value: its cards' values, and its canasta bonus "
                                             "once it is one (the hand's scorer may yet count the cards against "
                                             "the side, or add a penalty for an unfinished meld: the rules')")}),
                     "A meld on the table (Canasta): a rank's natural and wild cards."),
        "Zone": _doc(_object({"name": _matching(shape.zones if shape else None), "cards": cards,
                              "text": _doc(_nullable({"type": "string"}), "the zone in words: \"23 cards\""),
                              "side": _doc(_nullable(seat), "the side whose zone it is, if one's"),
                              "melds": _nullable({"type": "array", "items": {"$ref": "#/$defs/Meld"}})}),
                     "A named part of the table, in display order."),
        "Action": _doc(_object(
            {"action": _doc({"type": "integer", "minimum": 0}, "the action id to send"),
             "label": _doc({"type": "string"}, "the action in words: \"draw\", \"meld K K K\", \"name ♥\""),
             "kind": _one_of(shape.kinds if shape else None),
             "card": _doc(_nullable(card_ref), "the card a card play plays")},
            {"suit": _doc(_one_of(SUITS), "the suit a suit action names"),
             "cards": _doc(cards, "the cards a meld action lays down")}), "One legal action of the seat now."),
        "Player": _doc(_object(
            {"seat": seat, "name": {"type": "string"},
             "agent": _doc(_nullable({"type": "string"}), "who plays it (the table's bot spec, a record's agent), "
                                                           "where the caller knows"),
             "side": _doc(seat, "partners share a side"), "cards": _doc(count_, "cards in its hand"),
             "to_move": {"type": "boolean"},
             "notes": _doc({"type": "array", "items": _matching(shape.notes if shape else None)},
                           "what else is public of it: \"dealer\", \"out 1\"")},
            {"hand": _doc(cards, "its hand: only in a review's open view")}), "One seat at the table."),
        "LogLine": _doc(_object({"seat": _doc(_nullable(seat), "whose move it tells, if a seat's"),
                                 "text": {"type": "string"}}), "One thing the seat saw happen, in words."),
        "Score": _doc(_object(
            {"lines": {"type": "array", "items": _object({"label": _one_of(shape.score_lines if shape else None),
                                                          "values": _doc(numbers, "by side")})},
             "total": _doc(numbers, "by side"), "returns": _doc(numbers, "by seat: the game's returns")}),
            "The deal's score, once it is over."),
    }
    top = _object({
        "game": _doc({"const": entry.name}, "the game's registered name"), "title": {"const": entry.title},
        "seat": _doc(seat, "the seat this view is of"),
        "turn": _doc(count_, "the number of actions applied so far (any player, chance too)"),
        "players": {"type": "array", "items": {"$ref": "#/$defs/Player"}, "minItems": lo, "maxItems": hi},
        "hand": _doc(cards, "the seat's own cards, in display order"),
        "zones": _doc({"type": "array", "items": {"$ref": "#/$defs/Zone"}}, "everything else on the table"),
        "actions": _doc({"type": "array", "items": {"$ref": "#/$defs/Action"}},
                        "every legal action of the seat now, card plays included; empty when not its turn"),
        "log": _doc({"type": "array", "items": {"$ref": "#/$defs/LogLine"}, "maxItems": LOG_LINES},
                    f"what the seat saw happen, the newest {LOG_LINES} lines"),
        "score": _doc(_nullable({"$ref": "#/$defs/Score"}), "the score, when the deal is over")})
    return {"$schema": SCHEMA_DIALECT, "$id": f"urn:cardarena:view:{entry.name}",
            "title": f"{entry.title}: what one seat may see",
            "description": "A seat's view (games/view.py seat_view), built from what the seat may see only: "
                           "the table's View less its session's fields (docs/play-api.md), the engine "
                           "protocol's turn `view` (docs/engine_protocol.md), each line's `view` of "
                           "`cardarena show --view SEAT --json`.",
            **top, "$defs": defs}
