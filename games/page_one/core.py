"""Page One (ページワン) rules core: one explicit state machine, no OpenSpiel.

The leader plays any card; the others in turn must follow the led suit if they
can, and only then; a follower who cannot draws from the stock one card at a
time until a card of the led suit (or a joker) comes, and plays it. The highest
card of the led suit wins the trick and leads next. A player whose hand empties
wins at once. docs/rules/page_one.md gives every rule with the page's sentence.

Cards are ints (games.cards) and hands are bitmasks. Every deal, draw and
leader choice is an explicit chance event. The state keeps a public/private
event log as an immutable cons list, so clones share it and the information
state, the resampler and the action history are all read from it.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable, Mapping

from games.eventlog import LoggedCore, values_of
from games.cards import (FULL_DECK, JOKER_IDS, JOKER_MASK, NUM_RANKS, SUIT_CARDS,
                         SUIT_SYMBOLS, card_str, cards_of, cards_str)
from games.params import bool_param, choice_param, int_param
from games.protocol import CHANCE, TERMINAL, IllegalActionError

# Actions: 0..51 play that card; 52 + 4 * j + s plays joker j (0 or 1) standing
# for suit s. The two jokers are told apart, as the two jokers of most decks are.
PLAY_JOKER = 52
NUM_ACTIONS = 60
JOKER_RANK = NUM_RANKS  # a joker beats every card (the page's local rule)

EMPTY_STOCK_RULES = ("pass", "reshuffle", "take")
FIRST_LEADER_RULES = ("random", "high_card")

DEFAULT_PARAMS: dict[str, Any] = {
    "players": 4,
    "hand_size": 4,
    "jokers": 0,
    "empty_stock": "pass",
    "first_leader": "random",
    "until_last": False,
    "max_tricks": 3000,
}

# Phases of the state machine.
CHOOSE_LEADER, HIGH_CARD, DEAL, PLAY, DRAW, OVER = range(6)

# Event kinds in the log. Each log cell is (previous cell, kind, seat, value).
EV_LEADER = 0    # chance chose `seat` to lead first (value: seat)
EV_HIGH = 1      # seat turned `value` face up to decide the first leader (public)
EV_DEAL = 2      # seat was dealt card `value` (seen by seat only)
EV_LEAD = 3      # seat led with action `value` (public)
EV_FOLLOW = 4    # seat followed with action `value` (public)
EV_DRAW = 5      # seat drew card `value` (seen by seat only)
EV_PASS = 6      # seat could not follow with an empty stock and passed (public)
EV_RESHUFFLE = 7  # the discards (mask `value`) became the new stock (public)
EV_TAKE = 8      # seat took the trick's cards (mask `value`) and leads next (public)
EV_TIMEOUT = 9   # the max_tricks cap ended the game (public)

CHANCE_EVENTS = (EV_LEADER, EV_HIGH, EV_DEAL, EV_DRAW)
_SPADES, _HEARTS, _DIAMONDS, _CLUBS = SUIT_CARDS
PLAY_EVENTS = (EV_LEAD, EV_FOLLOW)
_HISTORY_EVENTS = frozenset(CHANCE_EVENTS + PLAY_EVENTS)   # the events whose values are pyspiel's history
# _UNIFORM_PAIRS[n][c] = (c, 1 / n): the chance outcomes of a stock of n cards.
_UNIFORM_PAIRS = tuple(tuple((c, 1.0 / n) for c in range(54)) if n else () for n in range(55))


@dataclass(frozen=True)
class PageOneRules:
    """The validated parameters of one Page One variant."""

    players: int = 4
    hand_size: int = 4
    jokers: int = 0
    empty_stock: str = "pass"
    first_leader: str = "random"
    until_last: bool = False
    max_tricks: int = 3000

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> "PageOneRules":
        unknown = set(params) - set(DEFAULT_PARAMS)
        if unknown:
            raise ValueError(f"unknown Page One parameter(s) {sorted(unknown)}; "
                             f"known: {sorted(DEFAULT_PARAMS)}")
        p = {**DEFAULT_PARAMS, **params}
        return cls(players=int_param(p, "players", 2, 6),
                   hand_size=int_param(p, "hand_size", 4, 7),
                   jokers=int_param(p, "jokers", 0, 2),
                   empty_stock=choice_param(p, "empty_stock", EMPTY_STOCK_RULES),
                   first_leader=choice_param(p, "first_leader", FIRST_LEADER_RULES),
                   until_last=bool_param(p, "until_last"),
                   max_tricks=int_param(p, "max_tricks", 1, 1_000_000))

    @cached_property
    def deck(self) -> int:
        """Every card in play as a bitmask (read at every rule-bot lead: computed once)."""
        return FULL_DECK | sum(1 << j for j in JOKER_IDS[:self.jokers])

    @property
    def deck_size(self) -> int:
        return 52 + self.jokers

    @property
    def max_decisions(self) -> int:
        return self.max_tricks * self.players


def action_to_string(action: int) -> str:
    if action >= PLAY_JOKER:
        joker, suit = divmod(action - PLAY_JOKER, 4)
        return f"{card_str(52 + joker)}={SUIT_SYMBOLS[suit]}"
    return card_str(action)


def played_suit(action: int) -> int:
    """The suit a play counts as (a joker counts as the suit it stands for)."""
    return (action - PLAY_JOKER) % 4 if action >= PLAY_JOKER else action // NUM_RANKS


def played_card(action: int) -> int:
    return 52 + (action - PLAY_JOKER) // 4 if action >= PLAY_JOKER else action


class PageOneState(LoggedCore):
    """A Page One position. Satisfies games.protocol.GameState."""

    checks_actions = True          # apply_action raises IllegalActionError (games.protocol)

    __slots__ = ("rules", "n", "phase", "to_move", "actor", "hands", "stock",
                 "discard", "table", "led", "leader", "best", "best_rank",
                 "tricks", "out", "to_deal", "setup", "log", "result", "cache", "shared")

    def __init__(self, rules: PageOneRules = PageOneRules()):
        self.rules = rules
        self.n = rules.players
        self.hands = [0] * rules.players
        self.stock = rules.deck
        self.discard = 0
        self.table = 0
        self.led = -1
        self.leader = -1
        self.best = -1
        self.best_rank = -1
        self.tricks = 0
        self.out = ()          # seats that have gone out, in order (until_last)
        self.to_deal = rules.players * rules.hand_size
        self.log = None
        self.result = None
        self.cache = None      # the resampler's per-information-state tables
        self.shared = False    # set by the OpenSpiel wrapper's copy-on-write clone
        self.actor = 0
        self.to_move = CHANCE
        if rules.first_leader == "random":
            self.phase = CHOOSE_LEADER
            self.setup = None
        else:
            self.phase = HIGH_CARD
            # (seats still drawing, index of the next drawer, (seat, rank) drawn this round)
            self.setup = (tuple(range(self.n)), 0, ())

    # ----------------------------------------------------------------- protocol
    def clone(self) -> "PageOneState":
        c = PageOneState.__new__(PageOneState)
        c.rules = self.rules
        c.n = self.n
        c.phase = self.phase
        c.to_move = self.to_move
        c.actor = self.actor
        c.hands = self.hands[:]
        c.stock = self.stock
        c.discard = self.discard
        c.table = self.table
        c.led = self.led
        c.leader = self.leader
        c.best = self.best
        c.best_rank = self.best_rank
        c.tricks = self.tricks
        c.out = self.out
        c.to_deal = self.to_deal
        c.setup = self.setup
        c.log = self.log
        c.result = self.result
        c.cache = self.cache
        c.shared = False
        return c

    def legal_actions(self, player: int | None = None) -> list[int]:
        p = self.to_move
        if p < 0 or (player is not None and player != p):
            return []
        hand = self.hands[p]
        led = self.led
        if led < 0:
            acts = cards_of(hand & FULL_DECK)
            if hand & JOKER_MASK:
                if hand >> 52 & 1:
                    acts += (52, 53, 54, 55)
                if hand >> 53 & 1:
                    acts += (56, 57, 58, 59)
            return acts
        acts = list(SUIT_CARDS[led][(hand >> (NUM_RANKS * led)) & 0x1FFF])
        if hand & JOKER_MASK:
            if hand >> 52 & 1:
                acts.append(52 + led)
            if hand >> 53 & 1:
                acts.append(56 + led)
        return acts

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.to_move != CHANCE:
            return []
        if self.phase == CHOOSE_LEADER:
            p = 1.0 / self.n
            return [(s, p) for s in range(self.n)]
        stock = self.stock
        # The same (card, 1 / cards) pairs, in card order, from a table made once per
        # stock size: no tuple is made per call (the standard loop's hot path).
        pairs = _UNIFORM_PAIRS[stock.bit_count()]
        out = [pairs[c] for c in (*_SPADES[stock & 0x1FFF], *_HEARTS[stock >> 13 & 0x1FFF],
                                  *_DIAMONDS[stock >> 26 & 0x1FFF], *_CLUBS[stock >> 39 & 0x1FFF])]
        if stock >> 52:
            out += [pairs[j] for j in JOKER_IDS if stock >> j & 1]
        return out

    def play_out(self, rand: Callable[[], float]) -> list[float]:
        """Uniformly random play to the end, in place; returns the returns. The
        search's rollout fast path (games.protocol): the same moves as the
        protocol's loop would make with the same `rand`, without its per-step
        method dispatch."""
        sample = self.sample_chance_outcome
        while True:
            p = self.to_move
            if p >= 0:
                legal = self.legal_actions()
                self._play(legal[int(rand() * len(legal))])
            elif p == CHANCE:
                if self.phase == DRAW:
                    self._draw(sample(rand()))
                else:
                    self.apply_action(sample(rand()))
            else:
                return self.returns()

    def sample_chance_outcome(self, u: float) -> int:
        """The chance outcome at cumulative probability u (all are equally likely)."""
        if self.phase == CHOOSE_LEADER:
            return int(u * self.n)
        stock = self.stock
        k = int(u * stock.bit_count())
        m = stock & 0x1FFF                  # unrolled over the suits: the hottest loop
        c = m.bit_count()
        if k < c:
            return _SPADES[m][k]
        k -= c
        m = (stock >> 13) & 0x1FFF
        c = m.bit_count()
        if k < c:
            return _HEARTS[m][k]
        k -= c
        m = (stock >> 26) & 0x1FFF
        c = m.bit_count()
        if k < c:
            return _DIAMONDS[m][k]
        k -= c
        m = (stock >> 39) & 0x1FFF
        c = m.bit_count()
        if k < c:
            return _CLUBS[m][k]
        k -= c
        if stock >> 52 & 1:
            if k == 0:
                return 52
            k -= 1
        return 53

    def apply_action(self, action: int) -> None:
        phase = self.phase
        if phase == PLAY:
            self._play(action)
        elif phase == DRAW:
            self._draw(action)
        elif phase == DEAL:
            self._deal(action)
        elif phase == CHOOSE_LEADER:
            self.log = (self.log, EV_LEADER, action, action)
            self.leader = action
            self.phase = DEAL
        elif phase == HIGH_CARD:
            self._high_card(action)
        else:
            raise ValueError("the game is over: no action can be applied")

    def action_to_string(self, player: int, action: int) -> str:
        if player == CHANCE:
            if self.phase == CHOOSE_LEADER:
                return f"p{action} leads first"
            if self.phase == HIGH_CARD:
                return f"p{self.actor} turns {card_str(action)}"
            verb = "dealt" if self.phase == DEAL else "draws"
            return f"p{self.actor} {verb} {card_str(action)}"
        return action_to_string(action)

    # ------------------------------------------------------------- transitions
    def _high_card(self, card: int) -> None:
        seats, i, drawn = self.setup
        seat = seats[i]
        if not self.stock >> card & 1:
            raise ValueError(f"chance outcome {card_str(card)} is not in the stock")
        self.stock &= ~(1 << card)
        self.log = (self.log, EV_HIGH, seat, card)
        drawn += ((seat, JOKER_RANK if card >= 52 else card % NUM_RANKS),)
        if i + 1 < len(seats):
            self.setup = (seats, i + 1, drawn)
            self.actor = seats[i + 1]
            return
        top = max(rank for _, rank in drawn)
        tied = tuple(s for s, rank in drawn if rank == top)
        if len(tied) > 1:  # the tied players draw again
            self.setup = (tied, 0, ())
            self.actor = tied[0]
            return
        self.leader = tied[0]
        self.stock = self.rules.deck   # the turned cards go back before the deal
        self.setup = None
        self.phase = DEAL
        self.actor = 0

    def _deal(self, card: int) -> None:
        seat = self.actor
        if not self.stock >> card & 1:
            raise ValueError(f"chance outcome {card_str(card)} is not in the stock")
        self.stock &= ~(1 << card)
        self.hands[seat] |= 1 << card
        self.log = (self.log, EV_DEAL, seat, card)
        self.to_deal -= 1
        if self.to_deal:
            self.actor = (seat + 1) % self.n
        else:
            self._start_trick(self.leader)

    def _start_trick(self, leader: int) -> None:
        self.led = -1
        self.leader = leader
        self.best = leader
        self.best_rank = -1
        self.phase = PLAY
        self.actor = leader
        self.to_move = leader

    def _play(self, action: int) -> None:
        seat = self.actor
        hands = self.hands
        hand = hands[seat]
        led = self.led
        if action < PLAY_JOKER:
            card = action
            suit = action // NUM_RANKS
            rank = action % NUM_RANKS
        else:
            card, suit = divmod(action - PLAY_JOKER, 4)
            card += 52
            rank = JOKER_RANK
        bit = 1 << card
        if not hand & bit or (led >= 0 and suit != led):
            raise IllegalActionError(f"illegal action {action_to_string(action)} for p{seat}: "
                             f"legal are {[action_to_string(a) for a in self.legal_actions()]}")
        hand ^= bit
        hands[seat] = hand
        self.table |= bit
        if led < 0:
            self.led = led = suit
            self.best_rank = rank
            self.log = (self.log, EV_LEAD, seat, action)
        else:
            if rank > self.best_rank:
                self.best = seat
                self.best_rank = rank
            self.log = (self.log, EV_FOLLOW, seat, action)
        if not hand and self._goes_out(seat):
            return
        # The next seat still in this trick (inlined: this is the hottest path).
        n, out, leader = self.n, self.out, self.leader
        while True:
            seat += 1
            if seat == n:
                seat = 0
            if seat == leader:
                self._end_trick(self.best)
                return
            if not out or seat not in out:
                break
        self.actor = seat
        hand = hands[seat]
        if hand & JOKER_MASK or (hand >> (NUM_RANKS * led)) & 0x1FFF:
            self.to_move = seat
        else:
            self._cannot_follow(seat)

    def _goes_out(self, seat: int) -> bool:
        """Records that `seat` emptied its hand; True when that ends the game."""
        if not self.rules.until_last:
            self._finish((seat,))
            return True
        self.out += (seat,)
        if len(self.out) == self.n - 1:
            last = next(s for s in range(self.n) if s not in self.out)
            self._finish(self.out + (last,))
            return True
        return False

    def _next_turn(self, seat: int) -> None:
        """Moves to the next seat still in this trick, or ends the trick."""
        n, out, leader = self.n, self.out, self.leader
        while True:
            seat = (seat + 1) % n
            if seat == leader:
                self._end_trick(self.best)
                return
            if seat not in out:
                break
        self.actor = seat
        hand = self.hands[seat]
        if hand & JOKER_MASK or (hand >> (NUM_RANKS * self.led)) & 0x1FFF:
            self.phase = PLAY
            self.to_move = seat
        else:
            self._cannot_follow(seat)

    def _cannot_follow(self, seat: int) -> None:
        """`seat` holds neither the led suit nor a joker: it draws, or the
        empty-stock rule applies."""
        if not self.stock:
            rule = self.rules.empty_stock
            if rule == "take":
                self._take(seat)
                return
            if rule == "pass" or not self.discard:
                # With nothing to reshuffle, `reshuffle` falls back to passing.
                self.log = (self.log, EV_PASS, seat, self.led)
                self._next_turn(seat)
                return
            self.log = (self.log, EV_RESHUFFLE, -1, self.discard)
            self.stock = self.discard
            self.discard = 0
        self.phase = DRAW
        self.to_move = CHANCE

    def _draw(self, card: int) -> None:
        seat = self.actor
        stock = self.stock
        if not stock >> card & 1:
            raise ValueError(f"chance outcome {card_str(card)} is not in the stock")
        self.stock = stock & ~(1 << card)
        self.hands[seat] |= 1 << card
        self.log = (self.log, EV_DRAW, seat, card)
        if card >= 52 or card // NUM_RANKS == self.led:
            self.phase = PLAY        # it was void before: this card is its only play
            self.to_move = seat
        elif not self.stock:
            self._cannot_follow(seat)

    def _take(self, seat: int) -> None:
        taken = self.table
        self.log = (self.log, EV_TAKE, seat, taken)
        self.hands[seat] |= taken
        self.table = 0
        self._trick_done(seat)

    def _end_trick(self, winner: int) -> None:
        self.discard |= self.table
        self.table = 0
        self._trick_done(winner)

    def _trick_done(self, winner: int) -> None:
        self.tricks += 1
        if self.tricks >= self.rules.max_tricks:
            self.log = (self.log, EV_TIMEOUT, -1, self.tricks)
            self._finish(self.out)
            return
        while winner in self.out:   # a winner who went out passes the lead on
            winner = (winner + 1) % self.n
        self._start_trick(winner)

    def _finish(self, order: tuple[int, ...]) -> None:
        """Ends the game: `order` lists the seats placed first, in order; the rest
        rank by cards left (fewer is better, equal counts tie)."""
        n = self.n
        keys = [0] * n
        for place, seat in enumerate(order):
            keys[seat] = place - 1000
        for seat in range(n):
            if seat not in order:
                keys[seat] = self.hands[seat].bit_count()
        # A seat scores (seats ranked below it - seats ranked above it) / (n - 1).
        ranked = sorted(keys)
        self.result = [(n - bisect_right(ranked, k) - bisect_left(ranked, k)) / (n - 1) for k in keys]
        self.phase = OVER
        self.to_move = TERMINAL

    # ------------------------------------------------------------ information
    def public_memory(self) -> "PublicMemory":
        """What every player knows from the public play (see PublicMemory)."""
        memory = PublicMemory(self.n)
        memory.update(self)
        return memory

    def history(self) -> list[int]:
        """Every action applied so far (chance outcomes included), as pyspiel records them."""
        return values_of(self.log, _HISTORY_EVENTS)

    def private_view(self, player: int) -> tuple[int, int]:
        """What `player` knows beyond the public actions and the number of chance
        events since an earlier state: its hand, since every card it ever saw is
        in its hand or was played in public, and the trick count, which tells
        whether a follower took the trick (empty_stock=take) or played to it.
        The search keys nodes with it (games.protocol, search.keys)."""
        return self.hands[player], self.tricks

    def information_state_string(self, player: int) -> str:
        """Everything `player` has seen, in order (perfect recall)."""
        parts = [f"p{player} hand: {cards_str(self.hands[player])}"]
        for kind, seat, value in self.events():
            parts.append(_event_str(kind, seat, value, player))
        return "\n".join(p for p in parts if p)

    def observation_string(self, player: int) -> str:
        """What `player` sees now: own hand, the trick on the table, counts."""
        lines = [f"p{player} hand: {cards_str(self.hands[player])}",
                 f"trick {self.tricks + 1}: " + self._table_str(),
                 "cards: " + " ".join(f"p{s}={self.hands[s].bit_count()}" for s in range(self.n)),
                 f"stock: {self.stock.bit_count()}  discards: {self.discard.bit_count()}"]
        if self.out:
            lines.append("out: " + " ".join(f"p{s}" for s in self.out))
        if self.phase == OVER:
            lines.append("result: " + " ".join(f"{r:+.3f}" for r in self.result))
        return "\n".join(lines)

    def _table_str(self) -> str:
        if self.phase < PLAY or self.led < 0:
            return f"p{self.leader} to lead" if self.leader >= 0 else "-"
        plays = []
        cell = self.log
        while cell is not None:
            cell, kind, seat, value = cell
            if kind == EV_FOLLOW:
                plays.append(f"p{seat}:{action_to_string(value)}")
            elif kind == EV_PASS:
                plays.append(f"p{seat}:pass")
            elif kind == EV_LEAD:
                plays.append(f"p{seat}:{action_to_string(value)}")
                break
        return " ".join(reversed(plays))

    def resample_from_infostate(self, player: int,
                                probability_sampler: Callable[[], float]) -> "PageOneState":
        """A state drawn uniformly from those `player` cannot tell from this one.

        See games.page_one.belief for what "consistent" and "uniform" mean here.
        """
        from games.page_one.belief import resample
        return resample(self, player, probability_sampler)

    def hidden_cards(self, player: int) -> list[list[int]]:
        """Where the cards `player` cannot see lie (games.protocol): a row for each
        other seat in turn order after it (its hand less the cards every seat knows
        it holds, taken with a trick), then the stock; a column per card (52 and
        the jokers in play), each 0 or 1."""
        held = PublicMemory(self.n).update(self).held
        size = self.rules.deck_size
        rows = []
        for k in range(1, self.n):
            seat = (player + k) % self.n
            hidden = self.hands[seat] & ~held[seat]
            rows.append([hidden >> c & 1 for c in range(size)])
        rows.append([self.stock >> c & 1 for c in range(size)])
        return rows

    def __str__(self) -> str:
        lines = [f"phase {('choose leader', 'high card', 'deal', 'play', 'draw', 'over')[self.phase]}"
                 f"  to move: {self.to_move}"]
        lines += [f"p{s}: {cards_str(self.hands[s])}" for s in range(self.n)]
        lines += [f"stock: {cards_str(self.stock)}", f"discards: {cards_str(self.discard)}",
                  f"trick {self.tricks + 1}: {self._table_str()}"]
        if self.out:
            lines.append("out: " + " ".join(f"p{s}" for s in self.out))
        if self.result is not None:
            lines.append("result: " + " ".join(f"{r:+.3f}" for r in self.result))
        return "\n".join(lines)


class PublicMemory:
    """What every player knows from the public play, per seat: `played`, the cards
    it has played; `held`, the cards known to be in its hand (taken with a trick);
    `lacks`, the suits it is known to lack now (bit s for suit s, bit 4 for jokers).

    `update(state)` reads only the events logged since the last update, so a bot
    that keeps one across a game pays for each event once."""

    __slots__ = ("played", "held", "lacks", "cell", "led", "after_draw")

    def __init__(self, players: int):
        self.played = [0] * players
        self.held = [0] * players
        self.lacks = [0] * players
        self.cell = None          # the last log cell taken in
        self.led = -1
        self.after_draw = None    # (seat, its lacks before its last draw)

    def update(self, state: "PageOneState") -> "PublicMemory":
        new = []
        cell = state.log
        while cell is not self.cell:
            if cell is None:      # another game or branch: start again
                self.__init__(len(self.played))
                return self.update(state)
            new.append(cell)
            cell = cell[0]
        for _, kind, seat, value in reversed(new):
            self._take_in(kind, seat, value)
        self.cell = state.log
        return self

    def _take_in(self, kind: int, seat: int, value: int) -> None:
        lacks = self.lacks
        if kind == EV_LEAD:
            self.led = played_suit(value)
        if kind == EV_LEAD or kind == EV_FOLLOW:
            card = played_card(value)
            self.played[seat] |= 1 << card
            self.held[seat] &= ~(1 << card)
            if self.after_draw is not None and self.after_draw[0] == seat:
                # The card just drawn, played at once: the hand is as before the draw.
                lacks[seat] = self.after_draw[1] | 1 << self.led | 16
        elif kind == EV_DRAW:
            before = lacks[seat]
            # Until it is played, the new card may be of any suit but the led one.
            lacks[seat] = 1 << self.led | 16
            self.after_draw = (seat, before)
            return
        elif kind == EV_PASS:
            lacks[seat] |= 1 << value | 16
        elif kind == EV_TAKE:
            lacks[seat] = (lacks[seat] | 1 << self.led | 16) & ~_suits_of(value)
            self.held[seat] |= value
        self.after_draw = None


def _suits_of(mask: int) -> int:
    """Bit s set when `mask` holds a card of suit s; bit 4 for a joker."""
    bits = 16 if mask & JOKER_MASK else 0
    for s in range(4):
        if mask >> (NUM_RANKS * s) & 0x1FFF:
            bits |= 1 << s
    return bits


def dealt_position(rules: PageOneRules, hands: list[list[int]], leader: int) -> PageOneState:
    """A position right after the deal: `hands[s]` are seat s's cards, `leader`
    leads first (rules.first_leader must be "random"). The chance events are
    applied in order, so the log and history are those of a real game."""
    if rules.first_leader != "random":
        raise ValueError("dealt_position needs first_leader=random")
    if any(len(h) != rules.hand_size for h in hands) or len(hands) != rules.players:
        raise ValueError(f"need {rules.players} hands of {rules.hand_size} cards")
    state = PageOneState(rules)
    state.apply_action(leader)
    for k in range(rules.hand_size):
        for seat in range(rules.players):
            state.apply_action(hands[seat][k])
    return state


def set_up(rules: PageOneRules, hands: list[list[int]], leader: int,
           discard: list[int] = ()) -> PageOneState:
    """A position set up directly, for puzzles and rule tests: seat s holds
    `hands[s]`, `discard` lies in the discard pile, every other card is in the
    stock, and `leader` is to lead. The log starts empty (no deal is recorded)."""
    state = PageOneState(rules)
    placed = 0
    for cards in list(hands) + [list(discard)]:
        for card in cards:
            if not rules.deck >> card & 1 or placed >> card & 1:
                raise ValueError(f"card {card_str(card)} is not in the deck or placed twice")
            placed |= 1 << card
    state.hands = [sum(1 << c for c in h) for h in hands]
    state.discard = sum(1 << c for c in discard)
    state.stock = rules.deck & ~placed
    state.to_deal = 0
    state.setup = None
    state._start_trick(leader)
    return state


_FOLLOWS = ("follows the trick with a card of the led suit: its hand loses it, the trick gains it. When every "
            "player still in has played or passed, the trick's highest card of the led suit (a joker above all, "
            "the first of two) wins: the trick's cards go to the discards and its player leads next. A hand "
            "that empties is out (the winner; with until_last, the next place)")
_DRAWS = ("had no card of the led suit (nor a joker): one card from the stock into its hand (hand +1, stock -1); "
          "it draws again until a card of the led suit (or a joker) comes, which it then plays (the next line)")
# How each event (its words with the protocol's placeholders: docs/protocol/page_one.md) changes
# the table a seat keeps: declared here, beside `_event_str`, which says them.
EVENTS: tuple[tuple[str, str], ...] = (
    ("<seat> leads first", "chosen to lead the first trick (first_leader=random); nothing else changes"),
    ("<seat> turns <card>", "first_leader=high_card: it turned this card from the deck to choose the first leader "
                            "(the highest rank leads; a tie turns again); the card goes back before the deal"),
    ("dealt <card>", "this seat was dealt the card: into its hand, out of the stock. The other seats' deals are "
                     "not told: every seat is dealt hand_size cards, the rest is the stock"),
    ("dealt <joker>", "the same, a joker"),
    ("<seat> leads <card>", "starts a trick with the card: its hand loses it, the trick holds it, its suit is "
                            "the led suit"),
    ("<seat> leads <joker>", "starts a trick with a joker standing for the suit after `=`: that suit is led"),
    ("<seat> plays <card>", _FOLLOWS),
    ("<seat> plays <joker>", "follows with a joker (it stands for the led suit); the rest as a card played"),
    ("<seat> draws", _DRAWS),
    ("<seat> draws <card>", "this seat's own draw, the card named: " + _DRAWS),
    ("<seat> draws <joker>", "this seat's own draw, a joker: into its hand, and it must play it"),
    ("<seat> passes", "the stock is empty (empty_stock=pass, or reshuffle with no discards): it plays no card "
                      "to this trick, and is known to hold none of the led suit"),
    ("discards reshuffled: <card>", "empty_stock=reshuffle: the discards (the cards named) become the stock; "
                                    "the discards are then empty"),
    ("discards reshuffled: <card> ...", "the same, several cards"),
    ("<seat> takes <card>", "empty_stock=take: it takes the trick's cards (named) into its hand, the trick "
                            "ends at once and it leads the next"),
    ("<seat> takes <card> ...", "the same, several cards"),
    ("game stopped after <n> tricks", "max_tricks reached: the game ends, players ranked by cards left"),
)


def _event_str(kind: int, seat: int, value: int, viewer: int) -> str:
    if kind == EV_LEADER:
        return f"p{seat} leads first"
    if kind == EV_HIGH:
        return f"p{seat} turns {card_str(value)}"
    if kind == EV_DEAL:
        return f"dealt {card_str(value)}" if seat == viewer else ""
    if kind == EV_LEAD:
        return f"p{seat} leads {action_to_string(value)}"
    if kind == EV_FOLLOW:
        return f"p{seat} plays {action_to_string(value)}"
    if kind == EV_DRAW:
        return f"p{seat} draws {card_str(value)}" if seat == viewer else f"p{seat} draws"
    if kind == EV_PASS:
        return f"p{seat} passes"
    if kind == EV_RESHUFFLE:
        return f"discards reshuffled: {cards_str(value)}"
    if kind == EV_TAKE:
        return f"p{seat} takes {cards_str(value)}"
    return f"game stopped after {value} tricks"
