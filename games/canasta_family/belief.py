"""What a Canasta player can infer about the cards it has not seen, and resampling:
the part every game of the family shares.

A world is an assignment of every card the player has not seen to the other
players' hidden hands and the stock. The player sees its own hand, every meld,
the whole pile (it lies face up), every 3 laid down as it came, and the cards
each other player is known to hold: those it took with the pile, or showed in an
initial meld it withdrew, and has not played since. What the public play says
of the rest is a set of "acquired when" windows over each player's hidden deals
and draws: a card laid down as it comes is never kept hidden; a card played from
hiding (melded, discarded, or used to take the pile) came from a hidden deal or
draw before that moment, and after the last moment the player showed it held
none of that kind (a game whose discard rules show that logs it). That is the
setting of games.sampling, which draws a world uniformly among the consistent
ones (cards of a kind told apart as the physical cards are, so every physical
deal is equally likely). The hidden deals and draws in the log are then rewritten
to produce the drawn world, so the new state never holds the real hidden cards.

Each game's BeliefView subclasses FamilyBelief: it reads its own events (what a
meld, a discard or a take played from hiding, what it showed) in read_events,
and adds what only it needs (the modern game's replayed "yes" answers).
"""

from __future__ import annotations

from typing import Callable

from games.canasta_family.cards import NUM_KINDS
from games.canasta_family.core import CanastaFamilyState
from games.eventlog import Event
from games.sampling import ConstrainedDeal, HiddenHand, Interval, acquisition_window, cached_view, match_slots


class HiddenAcquisitions:
    """One other player's hidden deals and draws and what the public play says of them.

    Times are doubled log indexes: an event at index i plays cards at 2 * i, and a
    void it shows (kinds the hand lacked just before) holds from 2 * i - 1."""

    def __init__(self) -> None:
        self.slot_events: list[int] = []        # log index of each hidden deal or draw
        self.slot_epochs: list[int] = []        # all 0: the stock is never rebuilt
        self.voids: list[tuple[int, int]] = []   # (time, mask of kinds it showed it lacked)
        self.played: list[tuple[int, int]] = []  # (time, kind) played from hiding
        self.known = [0] * NUM_KINDS

    def acquire(self, index: int) -> None:
        """A hidden deal or draw at log index `index`."""
        self.slot_events.append(index)
        self.slot_epochs.append(0)

    def play(self, time: int, kind: int, count: int) -> None:
        from_known = min(self.known[kind], count)
        self.known[kind] -= from_known
        self.played.extend((time, kind) for _ in range(count - from_known))

    def window(self, kind: int, until: int) -> Interval:
        """The slots a card of `kind`, gone from hiding at `until`, could come from."""
        last_void = max((t for t, mask in self.voids if t < until and mask >> kind & 1), default=-1)
        return acquisition_window(self.slot_events, self.slot_epochs, last_void, 0, until)


class FamilyBelief:
    """The constraints that one player's information puts on the unseen cards."""

    def __init__(self, state: CanastaFamilyState, player: int):
        events = state.events()
        self.events = events
        self.player = player
        self.others = [s for s in range(state.n) if s != player]
        hidden = {s: HiddenAcquisitions() for s in self.others}
        self.read_events(events, hidden)
        self.hidden = hidden
        for s in self.others:
            if hidden[s].known != state.known[s]:
                raise AssertionError(f"belief: p{s}'s known cards disagree with the state")

        unseen = state.unseen_counts(player)
        now = 2 * len(events) + 1
        by_class = {k: [k * 8 + c for c in range(unseen[k])] for k in range(NUM_KINDS) if unseen[k]}
        hands = []
        self.played_windows: list[list[Interval]] = []
        for s in self.others:
            h = hidden[s]
            windows = [h.window(kind, t) for t, kind in h.played]
            self.played_windows.append(windows)
            hands.append(HiddenHand(h.slot_epochs, windows))
            size = state.sizes[s] - sum(state.known[s])
            if hands[-1].size != size:
                raise AssertionError(f"belief: p{s} has {hands[-1].size} hidden slots for {size} cards")
        laid_down = state.LAID_DOWN
        self.class_windows = {k: [(0, 0) if laid_down[k] else hidden[s].window(k, now)
                                  for s in self.others] for k in by_class}
        self.deal = ConstrainedDeal(by_class, hands, self.class_windows, set(by_class))

    def read_events(self, events: list[Event], hidden: dict[int, HiddenAcquisitions]) -> None:
        """Reads the log into each other seat's hidden acquisitions (the game's)."""
        raise NotImplementedError

    def sample(self, state: CanastaFamilyState, uniform: Callable[[], float]) -> CanastaFamilyState:
        return self.draw_world(state, uniform)

    def draw_world(self, state: CanastaFamilyState, uniform: Callable[[], float],
                   timed: bool = False) -> CanastaFamilyState:
        """A world; `timed`: which hidden deal or draw brought each card is drawn at
        random too (else the first that fits), for a game whose later rules depend
        on the hand a player held at some moment."""
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
            slots = ((match_slots(len(info.slot_events), windows, uniform=uniform) if timed else None)
                     or match_slots(len(info.slot_events), windows))
            for kind, slot in zip(identities, slots):
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


def add_counts(a: list[int], b: list[int]) -> None:
    for k in range(NUM_KINDS):
        a[k] += b[k]


def resample(view: type[FamilyBelief], state: CanastaFamilyState, player: int,
             probability_sampler: Callable[[], float]) -> CanastaFamilyState:
    """A world drawn for `player` with the game's BeliefView (cached per information state)."""
    if state.is_terminal():
        return state.clone()
    return cached_view(state, player, view).sample(state, probability_sampler)


__all__ = ["FamilyBelief", "HiddenAcquisitions", "add_counts", "resample"]
