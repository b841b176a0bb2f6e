"""What a Canasta player can infer about the cards it has not seen, and resampling.

A world is an assignment of every card the player has not seen to the other
players' hidden hands and the stock. The player sees its own hand, every meld,
the whole pile (it lies face up), every 3 (laid down as it comes), and the cards
each other player is known to hold: those it took with the pile, or showed in an
initial meld it withdrew, and has not played since. What the public play says of
the rest:

* a card dealt or drawn and kept hidden is never a 3 (a 3 goes down at once);
* the cards a player melds or discards, beyond its known ones, came from its
  hidden deals and draws before that moment;
* some discards are allowed only when the hand lacks certain kinds (a wild card
  only from a hand of wild cards; on an empty pile an Ace or a 7 only with no
  other natural card, a card of a closed rank only when no other can go): the
  core logs those kinds with the discard, and every card of them held or played
  later came from a deal or draw after it;
* a player told "yes" who did not go out could not have gone out then.

The first three are "acquired when" windows over each player's hidden deals and
draws, exactly the setting of games.sampling, which draws a world uniformly
among the consistent ones (cards of a kind are told apart as the physical cards
are, so every physical deal is equally likely). The last, rare, is enforced by
rejection: the world's history is replayed through the rules, which refuse an
inconsistent one. It depends on the hand the asker held at the "yes", so there
the deal or draw that brought each card is drawn at random as well; after
MAX_REJECTIONS refusals the information state's worlds are drawn without it, a
rare approximation rather than a failed move: such a world waives the others'
past "yes" answers (CanastaState.waived_yes), so that it is still a state the
rules reach, replayed from its history (as the OpenSpiel wrapper rebuilds it)
under the same waiver. Then the hidden deals and draws in the log are rewritten
to produce the drawn world, so the new state never holds the real hidden cards.
"""

from __future__ import annotations

import warnings
from typing import Callable

from games.modern_canasta.actions import MELD_PARTS
from games.canasta_family.cards import DECK, JOKER, NUM_KINDS, PLAYABLE, TWO, WILD_SLOT, unpack
from games.modern_canasta.core import (EV_ANSWER, EV_COMMIT, EV_DEAL, EV_DISCARD, EV_DRAW, EV_MELD,
                                       EV_TAKE, EV_WITHDRAW, OVER, PLAYERS, CanastaState)
from games.sampling import ConstrainedDeal, HiddenHand, Interval, acquisition_window, cached_view, match_slots

MAX_REJECTIONS = 2_000


class _Hidden:
    """One other player's hidden acquisitions and what the public play says of them."""

    def __init__(self) -> None:
        self.slot_events: list[int] = []        # log index of each hidden deal or draw
        self.slot_epochs: list[int] = []        # all 0: the stock is never rebuilt
        self.voids: list[tuple[int, int]] = []   # (time, mask of kinds it showed it lacked)
        self.played: list[tuple[int, int]] = []  # (time, kind) played from hiding
        self.known = [0] * NUM_KINDS

    def play(self, time: int, kind: int, count: int) -> None:
        from_known = min(self.known[kind], count)
        self.known[kind] -= from_known
        self.played.extend((time, kind) for _ in range(count - from_known))

    def window(self, kind: int, until: int) -> Interval:
        """The slots a card of `kind`, gone from hiding at `until`, could come from."""
        last_void = max((t for t, mask in self.voids if t < until and mask >> kind & 1), default=-1)
        return acquisition_window(self.slot_events, self.slot_epochs, last_void, 0, until)


class BeliefView:
    """The constraints that one player's information puts on the unseen cards."""

    def __init__(self, state: CanastaState, player: int):
        events = state.events()
        self.events = events
        self.player = player
        self.others = [s for s in range(PLAYERS) if s != player]
        hidden = {s: _Hidden() for s in self.others}
        self.checked_by_replay = False
        self.waived_yes: tuple[int, int] | None = None     # set by the fallback (sample)
        for i, (kind, seat, value) in enumerate(events):
            h = hidden.get(seat)
            if kind == EV_ANSWER and (seat + 2) % PLAYERS != player and value:
                self.checked_by_replay = True     # a "yes": see the module docstring
            if h is None:
                continue
            if kind == EV_DEAL or kind == EV_DRAW:
                if value < PLAYABLE:
                    h.slot_events.append(i)
                    h.slot_epochs.append(0)
            elif kind == EV_MELD:
                slot, n, t, j = MELD_PARTS[value]
                if n:
                    h.play(2 * i, slot, n)
                if t:
                    h.play(2 * i, TWO, t)
                if j:
                    h.play(2 * i, JOKER, j)
            elif kind == EV_DISCARD:
                h.play(2 * i, value & 15, 1)
                if value >> 4:
                    h.voids.append((2 * i - 1, value >> 4))
            elif kind == EV_TAKE:
                h.play(2 * i, value & 15, 2)
                _add(h.known, unpack(value >> 4))
            elif kind == EV_COMMIT or kind == EV_WITHDRAW:
                _add(h.known, unpack(value))
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
        for side in (0, 1):
            for slot, (n, t, j) in enumerate(state.open_melds(side)):
                _sub_meld(unseen, slot, n, t, j)
            for slot, n, t, j in state.canastas[side]:
                _sub_meld(unseen, slot, n, t, j)
            unseen[13] -= state.threes[2 * side]
            unseen[14] -= state.threes[2 * side + 1]
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
        self.class_windows = {k: [hidden[s].window(k, now) if k < PLAYABLE else (0, 0)
                                  for s in self.others] for k in by_class}
        self.deal = ConstrainedDeal(by_class, hands, self.class_windows, set(by_class))

    def sample(self, state: CanastaState, uniform: Callable[[], float]) -> CanastaState:
        if self.waived_yes is not None:
            return self._waived_world(state, uniform)
        if not self.checked_by_replay:
            return self._draw_world(state, uniform)
        for _ in range(MAX_REJECTIONS):
            replayed = _replay(self._draw_world(state, uniform, timed=True))
            if replayed is not None:
                return replayed
        # None of MAX_REJECTIONS worlds agreed with the "yes": rather than fail the
        # player's move, this information state's worlds are drawn without it.
        warnings.warn(f"Canasta resampling for p{self.player}: none of {MAX_REJECTIONS} worlds agreed "
                      "with a partner's 'yes'; this information state's worlds ignore it", RuntimeWarning)
        self.waived_yes = (len(self.events), 0b1111 & ~(1 << self.player))
        return self._waived_world(state, uniform)

    def _waived_world(self, state: CanastaState, uniform: Callable[[], float]) -> CanastaState:
        """A world in which the others' past "yes" answers oblige nobody, rebuilt by
        replaying its history under that waiver: every entry point (this core, the
        OpenSpiel wrapper's replay) gets the same state, one the rules reach."""
        world = self._draw_world(state, uniform)
        world.waived_yes = self.waived_yes
        replayed = _replay(world)
        if replayed is None:
            raise AssertionError(f"Canasta resampling for p{self.player}: a world that waives the "
                                 "'yes' answers does not replay")
        return replayed

    def _draw_world(self, state: CanastaState, uniform: Callable[[], float],
                    timed: bool = False) -> CanastaState:
        """A world; `timed`: which hidden deal or draw brought each card is drawn at
        random too (else the first that fits), since a replayed "yes" depends on the
        hand the asker held at that moment."""
        hidden_cards, stock = self.deal.sample(uniform)
        world = state.clone()
        world.cache = None
        world.out_memo = None
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


def _replay(world: CanastaState) -> CanastaState | None:
    """The world rebuilt by replaying its history through the rules, or None when
    some action in it is illegal there."""
    state = world.replay_start()
    try:
        for action in world.history():
            state.apply_action(action)
    except ValueError:
        return None
    return state


def _add(a: list[int], b: list[int]) -> None:
    for k in range(NUM_KINDS):
        a[k] += b[k]


def _sub(a: list[int], b: list[int]) -> None:
    for k in range(NUM_KINDS):
        a[k] -= b[k]


def _sub_meld(unseen: list[int], slot: int, n: int, t: int, j: int) -> None:
    if slot != WILD_SLOT:
        unseen[slot] -= n
    unseen[TWO] -= t
    unseen[JOKER] -= j


def resample(state: CanastaState, player: int,
             probability_sampler: Callable[[], float]) -> CanastaState:
    if state.phase == OVER:
        return state.clone()
    return cached_view(state, player, BeliefView).sample(state, probability_sampler)


__all__ = ["BeliefView", "resample"]


def hidden_cards(state: CanastaState, player: int) -> list[list[int]]:
    """The hidden cards' places for `player` (the core's `hidden_cards`): rows for
    the seats after it in turn order (its hand less the cards known to be there),
    then the stock; a column per card kind."""
    n = len(state.hands)
    rows = []
    for k in range(1, n):
        seat = (player + k) % n
        rows.append([h - s for h, s in zip(state.hands[seat], state.known[seat])])
    rows.append(list(state.stock))
    return rows

