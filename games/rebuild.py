"""A seat's world rebuilt from what the seat saw, with no hidden card told.

An engine of protocol version 2 (docs/engine_protocol.md) is told its seat's events (the lines
its information state gained: every public move, its own cards dealt and drawn), its hand and
its legal actions, in words; never a world, never an action id. Our bots play on a full state,
so `SeatWorld` keeps one: a world W whose seat lines are a prefix of the events received, and
extends it step by step:

* at a player node, the legal action whose resulting seat lines still agree (words only);
* at a chance node, an outcome drawn by `chance_outcomes()` probabilities when it keeps the
  agreement (a hidden card: any does), else the outcome that does (a card the seat sees: the
  one whose words are in the new line first, for speed);
* when nothing agrees at a player's move that shows cards (the hidden cards W drew were
  wrong: an opponent melds cards W gave to another or left in the stock), W's history is
  repaired first (`_repair`): the cards the move shows are moved into that player's hidden
  deals and draws, from another hidden hand or the stock, one swap at a time, each kept only
  where W's history still replays to exactly the seat's information;
* when that fails too (or nothing agrees elsewhere), W is drawn again from the seat's
  information by the game's own resampler (`resample_from_infostate`) and the step is
  retried, up to `MAX_REDRAWS` times a turn. Drawing alone almost never finds a player whose
  hidden cards are all ones it shows late at once (classic Canasta for 2, rule bots, deal 5:
  p0's six hidden cards are the 5 5 5 7 7 7 it melds: none of 20,000 worlds drawn fitted);
  the repair finds it in a few replays.

Nothing here names a game: every registered game's information state is a header line (the
hand, rewritten as it changes) then lines appended one by one, and every player action is
public (tests/test_rebuild.py checks both on seeded deals of every game). W is kept from turn
to turn, so a turn costs the steps since the last one.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pyspiel

from games.protocol import CHANCE

MAX_REDRAWS = 20000     # resampled worlds tried in one turn before the events are declared impossible
LOOKAHEAD = 0.9         # how often a hidden card is one its receiver shows later, where there is one
BACK_EVERY = 4          # one redraw in so many starts before the last line (see `advance`)
REPAIR_MOVES = 12       # cards one repair brings into a player's hand, at most
REPAIR_TRIES = 60       # changes tried for one of them (each a replay of W's history)


class RebuildError(ValueError):
    """The events cannot be those of this game from this seat (or no world was found for them)."""


def seat_events(state: Any, seat: int) -> list[str]:
    """The seat's events so far: its information-state lines after the first (its hand)."""
    return state.information_state_string(seat).split("\n")[1:]


class SeatWorld:
    """One seat's world in one deal, kept in step with the events the seat is told."""

    def __init__(self, game: pyspiel.Game, seat: int, rng: random.Random):
        self.game = game
        self.seat = seat
        self.rng = rng
        self.state = game.new_initial_state()
        self.matched = seat_events(self.state, seat)       # W's seat lines (a prefix of the events)
        self.before = self.state.clone()                    # W before the action that told its last line
        self.redraws = 0                                    # worlds drawn again, all turns together
        self.repairs = 0                                    # worlds repaired (`_repair`), all turns together
        self.steps = 0                                      # actions applied, all turns together
        self.wanted: set[tuple[str, str]] = set()           # (seat, card) the events show later
        self.cards: set[str] = set()                        # card words W's chance outcomes said so far

    def advance(self, events: list[str], hand: list[str] | None = None,
                legal: list[str] | None = None) -> pyspiel.State:
        """W moved on to the seat's turn with exactly these events (all of them, from the deal's
        start), checked against the seat's hand (card words, as the seat view shows them) and its
        legal actions' words when given. The state returned is W itself: keep it unchanged."""
        seat = self.seat
        if events[:len(self.matched)] != self.matched:
            raise RebuildError("the events do not continue those of the last turn")
        redraws = 0
        self.wanted = _named_later(events[len(self.matched):])
        while True:
            state = self.state
            if self.matched == events and state.current_player() == seat:
                self._check(hand, legal)
                return state
            action = self._next(state, events)
            if action is None:
                repaired = self._repair(state, events)
                if repaired is not None:
                    self.repairs += 1
                    self.state, self.matched = repaired, seat_events(repaired, seat)
                    continue
                if redraws >= MAX_REDRAWS:
                    raise RebuildError(f"no world found for event {len(self.matched)} "
                                       f"({_quote(events, len(self.matched))}) in {MAX_REDRAWS} draws")
                redraws += 1
                self.redraws += 1
                # Mostly from here: the resampler keeps every event matched so far. Every
                # BACK_EVERY-th time from before the last line: what followed it without an
                # action (a player with no card to follow, drawing) is W's hidden cards' doing,
                # and a world drawn here keeps it.
                origin = self.before if redraws % BACK_EVERY == 0 else state
                self.state = origin.resample_from_infostate(seat, self.rng.random)
                self.matched = seat_events(self.state, seat)
                continue
            before = state.clone()
            state.apply_action(action)
            self.steps += 1
            lines = seat_events(state, seat)
            if len(lines) > len(self.matched):
                self.before = before
            self.matched = lines

    def _agrees(self, state: Any, action: int, events: list[str]) -> bool:
        child = state.child(action)
        lines = seat_events(child, self.seat)
        return len(lines) <= len(events) and lines == events[:len(lines)]

    def _next(self, state: pyspiel.State, events: list[str]) -> int | None:
        """The next action of W that keeps its seat lines a prefix of `events`, or None."""
        if state.is_terminal():
            return None
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            ids, weights = zip(*outcomes)
            drawn = self.rng.choices(ids, weights)[0]
            # A hidden card: mostly one its receiver shows later (plays, melds), where its words
            # say who gets which card ("p2 dealt 9♥"): far fewer worlds are then drawn again.
            # Only a guess; whatever W draws is checked against the events all the same.
            wanted = [(a, w) for a, w in outcomes if _receiver_card(state.action_to_string(CHANCE, a)) in self.wanted]
            if wanted and self.rng.random() < LOOKAHEAD:
                drawn = self.rng.choices([a for a, _ in wanted], [w for _, w in wanted])[0]
            if self._agrees(state, drawn, events):
                return drawn
            new = events[len(self.matched)] if len(events) > len(self.matched) else ""
            named = [a for a in ids if a != drawn and _named_in(state.action_to_string(CHANCE, a), new)]
            rest = [a for a in ids if a != drawn and a not in set(named)]
            for a in named + rest:
                if self._agrees(state, a, events):
                    return a
            return None
        player = state.current_player()
        for a in state.legal_actions(player):
            if self._agrees(state, a, events):
                return a
        return None

    def _repair(self, state: pyspiel.State, events: list[str]) -> pyspiel.State | None:
        """A world the seat cannot tell from W in which the player to move can make the next
        event, or None. Drawing whole worlds again finds a player's late meld of the six cards it
        hid (classic Canasta) in none of 20,000 draws; here the cards the event
        shows ("p0 meld 5: 5 5 5") are brought into that player's hand one at a time. A move: the
        player's last hidden deal or draw of a card it holds and the event does not show gets a
        shown card instead, taken from another player's hidden deal or draw of it (which gets
        the first card: a swap) or from the stock. The last such deal or draw: where cards of a
        kind are alike (Canasta), it is the one whose change the fewest later moves depend on.
        A move is kept only where W's history, so changed, replays (every action legal) to the
        seat's very information state; the event is tried after each, up to `REPAIR_MOVES`
        moves. Where the player holds every card shown and still cannot move so (Modern Canasta
        discards a wild card only from a hand of wild cards), shown cards are brought all the
        same. Words only: a chance outcome's words name its receiver and card ("p0 dealt 5"),
        and the player's information state starts with its hand ("p0 hand: 5 5 9 2")."""
        if state.is_chance_node() or len(events) <= len(self.matched):
            return None
        mover, line = state.current_player(), events[len(self.matched)]
        words = line.split()
        who = f"p{mover}"
        if not words or words[0] != who:
            return None
        shown = Counter(w.rstrip(":,").split("=")[0] for w in words[1:])
        if self.cards and not self.cards.intersection(shown):
            return None          # a move that shows no card ("p2 draws"): nothing to bring, and no replay
        info = state.information_state_string(self.seat)
        for _ in range(REPAIR_MOVES):
            outcomes: dict[int, tuple[str, str]] = {}
            if _replay(self.game, state.history(), {}, outcomes) is None:
                return None
            hand = Counter(state.information_state_string(mover).split("\n")[0].partition(":")[2].split())
            last: dict[str, int] = {}
            for k, (receiver, card) in outcomes.items():
                if receiver == who and hand[card] and card not in shown:
                    last[card] = k
            cards = {card for _, card in outcomes.values()}
            self.cards |= cards
            needed = [card for card, n in shown.items() if card in cards and hand[card] < n] or \
                [card for card in shown if card in cards]
            moves = []
            for card in needed:
                givers = [None] + [k for k, (receiver, c) in outcomes.items()
                                   if c == card and receiver not in (who, f"p{self.seat}")]
                moves += [(taker, card, giver) for taker in last.values() for giver in givers]
            self.rng.shuffle(moves)
            for taker, card, giver in moves[:REPAIR_TRIES]:
                change = {taker: (who, card)}
                if giver is not None:
                    change[giver] = (outcomes[giver][0], outcomes[taker][1])
                moved = _replay(self.game, state.history(), change)
                if moved is not None and moved.information_state_string(self.seat) == info:
                    state = moved
                    break
            else:
                return None
            if self._next(state, events) is not None:
                return state
        return None

    def _check(self, hand: list[str] | None, legal: list[str] | None) -> None:
        state, seat = self.state, self.seat
        if legal is not None:
            ours = [state.action_to_string(seat, a) for a in state.legal_actions(seat)]
            if sorted(ours) != sorted(legal):
                raise RebuildError(f"the legal actions told ({', '.join(legal[:8])}) are not this seat's "
                                   f"after these events ({', '.join(ours[:8])})")
        if hand is not None:
            from games.view import seat_view
            ours = [c["text"] for c in seat_view(self.game, state, seat)["hand"]]
            if sorted(ours) != sorted(hand):
                raise RebuildError(f"the hand told ({' '.join(hand)}) is not this seat's after these events "
                                   f"({' '.join(ours)})")


def _replay(game: pyspiel.Game, history: list[int], change: dict[int, tuple[str, str]],
            said: dict[int, tuple[str, str]] | None = None) -> pyspiel.State | None:
    """`history` replayed with the chance outcomes at the positions of `change` replaced by the
    outcome whose words give that receiver and card; None where one is not offered there or an
    action is no longer legal (or the history never replayed: a resampled world may not).
    `said` gets the receiver and card of every chance outcome whose words say them, by position."""
    state = game.new_initial_state()
    for k, a in enumerate(history):
        if state.is_chance_node():
            offered = [b for b, p in state.chance_outcomes() if p > 0]
            if k in change:
                a = next((b for b in offered if _receiver_card(state.action_to_string(CHANCE, b)) == change[k]), None)
                if a is None:
                    return None
            elif a not in offered:
                return None
            if said is not None and (words := _receiver_card(state.action_to_string(CHANCE, a))) is not None:
                said[k] = words
        elif a not in state.legal_actions():
            return None
        state.apply_action(a)
    return state


def _receiver_card(words: str) -> tuple[str, str] | None:
    """A chance outcome's receiver and card, where its words say them: "p2 dealt 9♥" -> (p2, 9♥)."""
    parts = words.split()
    if len(parts) >= 2 and parts[0][:1] == "p" and parts[0][1:].isdigit():
        return parts[0], parts[-1]
    return None


def _named_later(events: list[str]) -> set[tuple[str, str]]:
    """(seat, word) for every word of an event that starts with that seat ("p2 plays 9♥")."""
    out = set()
    for line in events:
        parts = line.split()
        if len(parts) >= 2 and parts[0][:1] == "p" and parts[0][1:].isdigit():
            out.update((parts[0], w.rstrip(":,")) for w in parts[1:])
    return out


def _named_in(words: str, line: str) -> bool:
    """Whether an outcome's words appear in a line as a whole word (a card: "Q♣", "10")."""
    return bool(words) and f" {words} " in f" {line} "


def _quote(events: list[str], i: int) -> str:
    return repr(events[i]) if i < len(events) else "the seat's turn"
