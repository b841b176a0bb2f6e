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
draws, drawn as the Canasta family draws them (games.canasta_family.belief,
uniformly among the consistent worlds). The last, rare, is enforced by
rejection: the world's history is replayed through the rules, which refuse an
inconsistent one. It depends on the hand the asker held at the "yes", so there
the deal or draw that brought each card is drawn at random as well; after
MAX_REJECTIONS refusals the information state's worlds are drawn without it, a
rare approximation rather than a failed move: such a world waives the others'
past "yes" answers (CanastaState.waived_yes), so that it is still a state the
rules reach, replayed from its history (as the OpenSpiel wrapper rebuilds it)
under the same waiver.
"""

from __future__ import annotations

import warnings
from typing import Callable

from games.canasta_family import belief as family
from games.canasta_family.belief import FamilyBelief, HiddenAcquisitions, add_counts
from games.canasta_family.cards import JOKER, PLAYABLE, TWO, unpack
from games.eventlog import Event
from games.modern_canasta.actions import MELD_PARTS
from games.modern_canasta.core import (EV_ANSWER, EV_COMMIT, EV_DEAL, EV_DISCARD, EV_DRAW, EV_MELD,
                                       EV_TAKE, EV_WITHDRAW, PLAYERS, CanastaState)

MAX_REJECTIONS = 2_000


class BeliefView(FamilyBelief):
    """The constraints that one player's information puts on the unseen cards."""

    def __init__(self, state: CanastaState, player: int):
        self.checked_by_replay = False                     # set by read_events
        self.waived_yes: tuple[int, int] | None = None     # set by the fallback (sample)
        super().__init__(state, player)

    def read_events(self, events: list[Event], hidden: dict[int, HiddenAcquisitions]) -> None:
        player = self.player
        for i, (kind, seat, value) in enumerate(events):
            h = hidden.get(seat)
            if kind == EV_ANSWER and (seat + 2) % PLAYERS != player and value:
                self.checked_by_replay = True     # a "yes": see the module docstring
            if h is None:
                continue
            if kind == EV_DEAL or kind == EV_DRAW:
                if value < PLAYABLE:
                    h.acquire(i)
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
                add_counts(h.known, unpack(value >> 4))
            elif kind == EV_COMMIT or kind == EV_WITHDRAW:
                add_counts(h.known, unpack(value))

    def sample(self, state: CanastaState, uniform: Callable[[], float]) -> CanastaState:
        if self.waived_yes is not None:
            return self._waived_world(state, uniform)
        if not self.checked_by_replay:
            return self.draw_world(state, uniform)
        for _ in range(MAX_REJECTIONS):
            replayed = _replay(self.draw_world(state, uniform, timed=True))
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
        world = self.draw_world(state, uniform)
        world.waived_yes = self.waived_yes
        replayed = _replay(world)
        if replayed is None:
            raise AssertionError(f"Canasta resampling for p{self.player}: a world that waives the "
                                 "'yes' answers does not replay")
        return replayed

    def draw_world(self, state: CanastaState, uniform: Callable[[], float],
                   timed: bool = False) -> CanastaState:
        """The family's world, without the turn's going-out answers of the real one;
        `timed` for a replayed "yes", which depends on the hand the asker held then."""
        world = super().draw_world(state, uniform, timed)
        world.out_memo = None
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


def resample(state: CanastaState, player: int,
             probability_sampler: Callable[[], float]) -> CanastaState:
    return family.resample(BeliefView, state, player, probability_sampler)


__all__ = ["BeliefView", "resample"]
