"""The base of our bots: a pyspiel.Bot that works with OpenSpiel's evaluate_bots,
and the time limit a harness holds the bots it makes to."""

from __future__ import annotations

import contextlib
import contextvars
import math
from typing import Iterator

import pyspiel

# The seconds a harness allows each call into the bots made under it (math.inf:
# no limit); None outside any harness. A context variable, so that a bot made in
# one harness's context never sees another's limit.
_HARNESS_LIMIT: contextvars.ContextVar[float | None] = contextvars.ContextVar("harness_limit", default=None)


@contextlib.contextmanager
def harness_limit(seconds: float | None) -> Iterator[None]:
    """Bots made inside are held to `seconds` a call (None: no limit): a bot that
    must tell another program its limit (an engine, agents/engine.py) reads it
    with `current_harness_limit` instead of guessing the harness's default."""
    token = _HARNESS_LIMIT.set(math.inf if seconds is None else float(seconds))
    try:
        yield
    finally:
        _HARNESS_LIMIT.reset(token)


def current_harness_limit() -> float | None:
    """The per-call limit of the harness making a bot now (math.inf: none), or
    None when no harness is making it."""
    return _HARNESS_LIMIT.get()


def rules_core(state):
    """The fast rules core behind one of our pyspiel states, or the state itself."""
    return getattr(state, "core", state)


class CardBot(pyspiel.Bot):
    """A bot for one seat. Subclasses implement `step`; the hooks below are no-ops
    for bots that keep no state between moves.

    `any_seat`: the bot decides for whichever seat is to move and keeps nothing
    private to its seat, so one instance can play every seat (search rollouts
    then make one bot instead of one per seat).

    `declared_settings`: the settings its constructor takes beyond (game, player, seed), typed
    (games.registry.Param), for agents.bot_settings and `cardarena list`; none by default.

    `states_policy`: `known_policy` says the bot's policy (agents.stated_policy reads it
    without making any other bot)."""

    any_seat = False
    declared_settings: tuple = ()
    states_policy = False

    def __init__(self, player: int):
        pyspiel.Bot.__init__(self)
        self.player = player

    def restart_at(self, state) -> None:
        pass

    def inform_action(self, state, player_id: int, action: int) -> None:
        pass

    def step(self, state) -> int:
        raise NotImplementedError

    def known_policy(self, state) -> list[tuple[int, float]] | None:
        """The bot's policy at `state`, (action, probability) over its legal actions,
        where the bot states it and it depends on the state alone (not on what the
        bot saw before nor on its seed); None where it is not stated. The luck
        adjustment (eval/luck.py) takes a stated policy's random choices out of the
        score as it takes the cards' (AIVAT's action terms). A deterministic bot need
        not state one: its choices carry no luck."""
        return None
