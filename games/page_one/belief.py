"""What a Page One player can infer about the cards it has not seen, and resampling.

A world is an assignment of every card the player has not seen to the
opponents' hidden hands and the stock. It is consistent when some history of
deals and draws produces it and shows the player exactly what it saw. The
public play constrains the opponents:

* a follower who draws, passes or takes the trick had no card of the led suit
  and no joker at that moment, and each card it drew and kept was not of the
  led suit either (it went on drawing);
* the card played right after a run of draws is the last card drawn;
* a card taken with the trick (`take`) is known until it is played;
* after a reshuffle the stock is the known discard pile, so a card drawn from
  it comes from that known set, and the old stock is all in hands.

`resample` draws exactly uniformly among consistent worlds (games.sampling),
then rewrites the opponents' hidden deals and draws in the log so that they
produce the drawn world: the new state never holds the real hidden cards.
"""

from __future__ import annotations

from typing import Callable

from games.cards import JOKER_MASK, NUM_RANKS, SUIT_MASKS, cards_of
from games.page_one.core import (CHOOSE_LEADER, DRAW, EV_DEAL, EV_DRAW, EV_FOLLOW, EV_LEAD,
                                 EV_PASS, EV_RESHUFFLE, EV_TAKE, HIGH_CARD, PLAY,
                                 PageOneState, played_card, played_suit)
from games.sampling import ConstrainedDeal, HiddenHand, Interval, acquisition_window, cached_view, match_slots

JOKER = 4   # the suit class of jokers: any shown void rules them out


def suit_class(card: int) -> int:
    return JOKER if card >= 52 else card // NUM_RANKS


class _Opponent:
    """One opponent's hidden acquisitions and what the public play says of them."""

    def __init__(self) -> None:
        self.slot_events: list[int] = []   # log index of each hidden deal / kept draw
        self.slot_epochs: list[int] = []
        self.voids: list[tuple[int, int]] = []           # (time, suit) it showed it lacked
        self.played: list[tuple[int, int]] = []          # (time, card) played from hiding
        self.known = 0                                   # cards known to be in its hand

    def window(self, card_class: int, epoch: int, until: int) -> Interval:
        """The slots a card of this class and stock epoch, gone at `until`, could come from."""
        last_void = max((t for t, s in self.voids
                         if t < until and (s == card_class or card_class == JOKER)), default=-1)
        return acquisition_window(self.slot_events, self.slot_epochs, last_void, epoch, until)


class BeliefView:
    """The constraints that one player's information puts on the unseen cards."""

    def __init__(self, state: PageOneState, player: int):
        events = state.events()
        self.events = events
        self.opponents = [s for s in range(state.n) if s != player]
        opp = {s: _Opponent() for s in self.opponents}
        card_epoch: dict[int, int] = {}
        epoch = 0
        led = -1
        for i, (kind, seat, value) in enumerate(events):
            if kind == EV_LEAD:
                led = played_suit(value)
            elif kind == EV_RESHUFFLE:
                epoch += 1
                for c in cards_of(value):
                    card_epoch[c] = epoch
            o = opp.get(seat)
            if o is None:          # the viewer's own events and public bookkeeping
                continue
            if kind == EV_DEAL:
                o.slot_events.append(i)
                o.slot_epochs.append(0)
            elif kind == EV_DRAW:
                o.voids.append((2 * i - 1, led))
                final = (i + 1 < len(events) and events[i + 1][0] == EV_FOLLOW
                         and events[i + 1][1] == seat)
                if not final:
                    o.slot_events.append(i)
                    o.slot_epochs.append(epoch)
            elif kind == EV_LEAD or kind == EV_FOLLOW:
                if events[i - 1][0] == EV_DRAW and events[i - 1][1] == seat:
                    continue       # the card just drawn, seen as it was played
                card = played_card(value)
                if o.known >> card & 1:
                    o.known &= ~(1 << card)
                else:
                    o.played.append((2 * i, card))
            elif kind == EV_PASS:
                o.voids.append((2 * i, value))
            elif kind == EV_TAKE:
                o.voids.append((2 * i - 1, led))
                o.known |= value
        # Whose turn it is is public too: a follower waiting to play holds the led
        # suit or a joker (else it would be drawing or passing), and one about to
        # draw holds neither.
        now = 2 * len(events) + 1
        actor = opp.get(state.actor)
        must_hold: dict[int, frozenset] = {}
        if actor is not None and state.led >= 0:
            if state.phase == PLAY and not actor.known & (SUIT_MASKS[state.led] | JOKER_MASK):
                must_hold[state.actor] = frozenset({state.led, JOKER})
            elif state.phase == DRAW:
                actor.voids.append((now, state.led))
        self.opp = opp

        seen = state.hands[player] | state.table | state.discard
        for o in opp.values():
            seen |= o.known
        by_class: dict[tuple[int, int], list[int]] = {}
        self.unseen = state.rules.deck & ~seen     # the opponents' hidden cards and the stock
        for c in cards_of(self.unseen):
            by_class.setdefault((suit_class(c), card_epoch.get(c, 0)), []).append(c)
        now += 1
        hands = []
        self.played_windows: list[list[Interval]] = []
        self.played_ids = [[c for _, c in opp[s].played] for s in self.opponents]
        for s in self.opponents:
            o = opp[s]
            windows = [o.window(suit_class(c), card_epoch_at(events, c, t), t) for t, c in o.played]
            self.played_windows.append(windows)
            suits = must_hold.get(s, frozenset())
            hands.append(HiddenHand(o.slot_epochs, windows,
                                    frozenset(k for k in by_class if k[0] in suits)))
        self.class_windows = {key: [opp[s].window(key[0], key[1], now) for s in self.opponents]
                              for key in by_class}
        self.class_of = {c: key for key, cards in by_class.items() for c in cards}
        # Per unseen card, its window in each opponent's hand; and the slots that
        # match_slots gave each opponent's windows (the same windows, in the same
        # order, always get the same slots), so that a search's thousands of
        # samples from one view match each arrangement once.
        self.card_windows = {c: self.class_windows[key] for c, key in self.class_of.items()}
        self.slot_memo: dict[tuple, list[int] | None] = {}
        stock_classes = {key for key in by_class if key[1] == epoch}
        self.deal = ConstrainedDeal(by_class, hands, self.class_windows, stock_classes)

    def sample(self, state: PageOneState, uniform: Callable[[], float]) -> PageOneState:
        hidden, _ = self.deal.sample(uniform)
        world = state.clone()
        world.cache = None
        events = self.events[:]
        held = 0
        hands = world.hands
        card_windows, memo = self.card_windows, self.slot_memo
        for h, s in enumerate(self.opponents):
            o = self.opp[s]
            cards = hidden[h]
            bits = 0
            for c in cards:
                bits |= 1 << c
            hands[s] = o.known | bits
            held |= bits
            # Rewrite this opponent's hidden deals and draws so they produce `cards`.
            key = (h, *[card_windows[c][h] for c in cards])
            slots = memo.get(key)
            if slots is None:
                slots = memo[key] = match_slots(len(o.slot_events), self.played_windows[h] + list(key[1:]))
            slot_events = o.slot_events
            for card, slot in zip(self.played_ids[h] + cards, slots):
                i = slot_events[slot]
                kind, seat, _ = events[i]
                events[i] = (kind, seat, card)
        world.stock = self.unseen & ~held
        log = None
        for kind, seat, value in events:
            log = (log, kind, seat, value)
        world.log = log
        return world


def card_epoch_at(events: list[tuple[int, int, int]], card: int, time: int) -> int:
    """The stock epoch a card played at `time` was drawn from: the number of the
    last reshuffle before then that put it back in the stock (0: the first stock)."""
    epoch = 0
    found = 0
    for i, (kind, _, value) in enumerate(events):
        if 2 * i >= time:
            break
        if kind == EV_RESHUFFLE:
            epoch += 1
            if value >> card & 1:
                found = epoch
    return found


def resample(state: PageOneState, player: int,
             probability_sampler: Callable[[], float]) -> PageOneState:
    if state.phase in (CHOOSE_LEADER, HIGH_CARD):
        return state.clone()      # nobody holds a card yet
    return cached_view(state, player, BeliefView).sample(state, probability_sampler)
