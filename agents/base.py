"""The base of our bots: a pyspiel.Bot that works with OpenSpiel's evaluate_bots."""

from __future__ import annotations

import pyspiel


def rules_core(state):
    """The fast rules core behind one of our pyspiel states, or the state itself."""
    return getattr(state, "core", state)


class CardBot(pyspiel.Bot):
    """A bot for one seat. Subclasses implement `step`; the hooks below are no-ops
    for bots that keep no state between moves.

    `any_seat`: the bot decides for whichever seat is to move and keeps nothing
    private to its seat, so one instance can play every seat (search rollouts
    then make one bot instead of one per seat)."""

    any_seat = False

    def __init__(self, player: int):
        pyspiel.Bot.__init__(self)
        self.player = player

    def restart_at(self, state) -> None:
        pass

    def inform_action(self, state, player_id: int, action: int) -> None:
        pass

    def step(self, state) -> int:
        raise NotImplementedError
