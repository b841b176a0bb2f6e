"""What a classic Canasta player can infer about the cards it has not seen, and resampling.

A world is an assignment of every card the player has not seen to the other
players' hidden hands and the stock. The player sees its own hand, every meld,
the whole pile (it lies face up), every red 3 (laid down as it comes) and the
cards each other player is known to hold: those it took with the pile, or showed
in an initial meld it withdrew, and has not played since. What the public play
says of the rest:

* a card dealt or drawn and kept hidden is never a red 3 (a black 3 may be);
* the cards a player melds, discards or takes the pile with, beyond its known
  ones, came from its hidden deals and draws before that moment.

Any card may be discarded and nothing else in classic Canasta depends on a
hidden hand, so these are all the constraints: "acquired when" windows over each
player's hidden deals and draws, the setting of games.sampling, which draws a
world exactly uniformly among the consistent ones (cards of a kind told apart as
the physical cards are). The hidden deals and draws in the log are then rewritten
to produce the drawn world, so the new state never holds the real hidden cards.
"""

from __future__ import annotations

from typing import Callable

from games.classic_canasta.actions import BLACK_SLOT, MELD_PARTS, TAKE_JOKER, TAKE_PAIR, TAKE_TWO
from games.classic_canasta.core import (EV_COMMIT, EV_DEAL, EV_DISCARD, EV_DRAW, EV_MELD, EV_TAKE,
                                        EV_WITHDRAW, OVER, ClassicState)
from games.canasta_family.cards import BLACK_THREE, DECK, JOKER, NUM_KINDS, RED_THREE, TWO, unpack
from games.sampling import ConstrainedDeal, HiddenHand, Interval, cached_view, match_slots


class _Hidden:
    """One other player's hidden acquisitions and what it played from them."""

    def __init__(self) -> None:
        self.slot_events: list[int] = []        # log index of each hidden deal or draw
        self.played: list[tuple[int, int]] = []  # (log index, kind) played from hiding
        self.known = [0] * NUM_KINDS

    def play(self, index: int, kind: int, count: int) -> None:
        from_known = min(self.known[kind], count)
        self.known[kind] -= from_known
        self.played.extend((index, kind) for _ in range(count - from_known))

    def window(self, until: int) -> Interval:
        """The slots a card gone from hiding at log index `until` could come from."""
        hi = 0
        while hi < len(self.slot_events) and self.slot_events[hi] < until:
            hi += 1
        return 0, hi


class BeliefView:
    """The constraints that one player's information puts on the unseen cards."""

    def __init__(self, state: ClassicState, player: int):
        events = state.events()
        self.events = events
        self.player = player
        self.others = [s for s in range(state.n) if s != player]
        hidden = {s: _Hidden() for s in self.others}
        for i, (kind, seat, value) in enumerate(events):
            h = hidden.get(seat)
            if h is None:
                continue
            if kind == EV_DEAL or kind == EV_DRAW:
                if value != RED_THREE:
                    h.slot_events.append(i)
            elif kind == EV_MELD:
                slot, n, t, j = MELD_PARTS[value]
                if n:
                    h.play(i, BLACK_THREE if slot == BLACK_SLOT else slot, n)
                if t:
                    h.play(i, TWO, t)
                if j:
                    h.play(i, JOKER, j)
            elif kind == EV_DISCARD:
                h.play(i, value, 1)
            elif kind == EV_TAKE:
                action, top = value & 3, value >> 2 & 15
                h.play(i, top, 2 if action == TAKE_PAIR else 1)
                if action == TAKE_TWO:
                    h.play(i, TWO, 1)
                elif action == TAKE_JOKER:
                    h.play(i, JOKER, 1)
                rest = unpack(value >> 6)
                rest[RED_THREE] = 0
                _add(h.known, rest)
            elif kind == EV_COMMIT or kind == EV_WITHDRAW:
                back = unpack(value)
                back[RED_THREE] = 0
                _add(h.known, back)
        self.hidden = hidden
        for s in self.others:
            if hidden[s].known != state.known[s]:
                raise AssertionError(f"belief: p{s}'s known cards disagree with the state")

        unseen = list(DECK)
        _sub(unseen, state.hands[player])
        for s in self.others:
            _sub(unseen, state.known[s])
        for kind in state.pile:
            unseen[kind] -= 1
        for side in range(state.sides):
            for slot, (n, t, j) in enumerate(state.open_melds(side)):
                unseen[BLACK_THREE if slot == BLACK_SLOT else slot] -= n
                unseen[TWO] -= t
                unseen[JOKER] -= j
            unseen[RED_THREE] -= state.threes[side]
        by_class = {k: [k * 8 + c for c in range(unseen[k])] for k in range(NUM_KINDS) if unseen[k]}
        hands = []
        self.played_windows: list[list[Interval]] = []
        for s in self.others:
            h = hidden[s]
            windows = [h.window(i) for i, _ in h.played]
            self.played_windows.append(windows)
            hands.append(HiddenHand([0] * len(h.slot_events), windows))
            size = state.sizes[s] - sum(state.known[s])
            if hands[-1].size != size:
                raise AssertionError(f"belief: p{s} has {hands[-1].size} hidden slots for {size} cards")
        self.class_windows = {k: [(0, len(hidden[s].slot_events)) if k != RED_THREE else (0, 0)
                                  for s in self.others] for k in by_class}
        self.deal = ConstrainedDeal(by_class, hands, self.class_windows, set(by_class))

    def sample(self, state: ClassicState, uniform: Callable[[], float]) -> ClassicState:
        hidden_cards, stock = self.deal.sample(uniform)
        world = state.clone()
        world.cache = None
        events = self.events[:]
        for h, s in enumerate(self.others):
            kinds = [c // 8 for c in hidden_cards[h]]
            hand = state.known[s][:]
            for k in kinds:
                hand[k] += 1
            world.hands[s] = hand
            info = self.hidden[s]
            windows = self.played_windows[h] + [self.class_windows[k][h] for k in kinds]
            identities = [k for _, k in info.played] + kinds
            for kind, slot in zip(identities, match_slots(len(info.slot_events), windows)):
                i = info.slot_events[slot]
                ev, seat, _ = events[i]
                events[i] = (ev, seat, kind)
        world.stock = [0] * NUM_KINDS
        for c in stock:
            world.stock[c // 8] += 1
        log = None
        for kind, seat, value in events:
            log = (log, kind, seat, value)
        world.log = log
        return world


def _add(a: list[int], b: list[int]) -> None:
    for k in range(NUM_KINDS):
        a[k] += b[k]


def _sub(a: list[int], b: list[int]) -> None:
    for k in range(NUM_KINDS):
        a[k] -= b[k]


def resample(state: ClassicState, player: int,
             probability_sampler: Callable[[], float]) -> ClassicState:
    if state.phase == OVER:
        return state.clone()
    return cached_view(state, player, BeliefView).sample(state, probability_sampler)


__all__ = ["BeliefView", "resample"]


def hidden_cards(state: ClassicState, player: int) -> list[list[int]]:
    """The hidden cards' places for `player` (the core's `hidden_cards`): rows for
    the seats after it in turn order (its hand less the cards known to be there),
    then the stock; a column per card kind."""
    n = state.n
    rows = []
    for k in range(1, n):
        seat = (player + k) % n
        rows.append([h - s for h, s in zip(state.hands[seat], state.known[seat])])
    rows.append(list(state.stock))
    return rows

