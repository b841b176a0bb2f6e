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
player's hidden deals and draws, drawn as the Canasta family draws them
(games.canasta_family.belief: exactly uniformly among the consistent worlds).
"""

from __future__ import annotations

from typing import Callable

from games.canasta_family import belief as family
from games.canasta_family.belief import FamilyBelief, HiddenAcquisitions, add_counts
from games.canasta_family.cards import BLACK_THREE, JOKER, RED_THREE, TWO, unpack
from games.classic_canasta.actions import BLACK_SLOT, MELD_PARTS, TAKE_JOKER, TAKE_PAIR, TAKE_TWO
from games.classic_canasta.core import (EV_COMMIT, EV_DEAL, EV_DISCARD, EV_DRAW, EV_MELD, EV_TAKE,
                                        EV_WITHDRAW, ClassicState)
from games.eventlog import Event


class BeliefView(FamilyBelief):
    """The constraints that one player's information puts on the unseen cards."""

    def read_events(self, events: list[Event], hidden: dict[int, HiddenAcquisitions]) -> None:
        for i, (kind, seat, value) in enumerate(events):
            h = hidden.get(seat)
            if h is None:
                continue
            if kind == EV_DEAL or kind == EV_DRAW:
                if value != RED_THREE:
                    h.acquire(i)
            elif kind == EV_MELD:
                slot, n, t, j = MELD_PARTS[value]
                if n:
                    h.play(2 * i, BLACK_THREE if slot == BLACK_SLOT else slot, n)
                if t:
                    h.play(2 * i, TWO, t)
                if j:
                    h.play(2 * i, JOKER, j)
            elif kind == EV_DISCARD:
                h.play(2 * i, value, 1)
            elif kind == EV_TAKE:
                action, top = value & 3, value >> 2 & 15
                h.play(2 * i, top, 2 if action == TAKE_PAIR else 1)
                if action == TAKE_TWO:
                    h.play(2 * i, TWO, 1)
                elif action == TAKE_JOKER:
                    h.play(2 * i, JOKER, 1)
                rest = unpack(value >> 6)
                rest[RED_THREE] = 0
                add_counts(h.known, rest)
            elif kind == EV_COMMIT or kind == EV_WITHDRAW:
                back = unpack(value)
                back[RED_THREE] = 0
                add_counts(h.known, back)


def resample(state: ClassicState, player: int,
             probability_sampler: Callable[[], float]) -> ClassicState:
    return family.resample(BeliefView, state, player, probability_sampler)


__all__ = ["BeliefView", "resample"]
