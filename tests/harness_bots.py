"""Bots and a match format that the harness tests register by name
(TournamentConfig bot_modules / `cardarena --register`): misbehaving bots, one
per fault the harness must survive, and a slow bot to interrupt a run."""

from __future__ import annotations

import os
import signal
import time
from typing import Any, Sequence

from agents.random_bot import RandomBot


class RaisingBot(RandomBot):
    def step(self, state) -> int:
        raise RuntimeError("this bot always fails")


class IllegalBot(RandomBot):
    def step(self, state) -> int:
        return -7


class IllegalCardBot(RandomBot):
    """Plays the first action id that is not legal: in range, so only the game
    itself can refuse it (the harness leaves the check to games that promise it)."""

    def step(self, state) -> int:
        legal = set(state.legal_actions())
        return next(a for a in range(state.get_game().num_distinct_actions()) if a not in legal)


class ListeningIllegalCardBot(IllegalCardBot):
    """The same, with an inform_action hook: its opponents hear of a move before
    it is applied, so the harness must check the move first."""

    def inform_action(self, state, player: int, action: int) -> None:
        assert action in state.legal_actions(), "told of an illegal move"


class SlowMoveBot(RandomBot):
    """Finishes its move, but too late (the soft time limit)."""

    def __init__(self, game, player: int, seed: int, seconds: float = 0.2):
        super().__init__(game, player, seed)
        self.seconds = seconds

    def step(self, state) -> int:
        time.sleep(self.seconds)
        return super().step(state)


class HangingBot(RandomBot):
    """Never returns from a move (the parent must kill its worker)."""

    def step(self, state) -> int:
        while True:
            time.sleep(1.0)


class ExitingBot(RandomBot):
    """Takes its whole worker process down, skipping every cleanup."""

    def step(self, state) -> int:
        os._exit(3)


class KilledBot(RandomBot):
    def step(self, state) -> int:
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")


class DiesOnceBot(RandomBot):
    """Kills its worker with SIGKILL at its first move of the whole run (the first
    to create `marker` does), then plays as the random bot: a worker killed from
    outside, once."""

    def __init__(self, game, player: int, seed: int, marker: str = ""):
        super().__init__(game, player, seed)
        self.marker = marker

    def step(self, state) -> int:
        try:
            os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            return super().step(state)
        os.kill(os.getpid(), signal.SIGKILL)
        raise AssertionError("unreachable")


class SleepyBot(RandomBot):
    """A random bot that takes a little time per move, so a run lasts long
    enough to be killed in the middle."""

    def step(self, state) -> int:
        time.sleep(0.002)
        return super().step(state)


def first_seat_only(game, player: int, seed: int) -> RandomBot | None:
    """A factory that makes a bot for seat 0 only, and returns None for the others."""
    return RandomBot(game, player, seed) if player == 0 else None


TEST_BOTS = {
    "t_raises": "tests.harness_bots:RaisingBot",
    "t_illegal": "tests.harness_bots:IllegalBot",
    "t_illegal_card": "tests.harness_bots:IllegalCardBot",
    "t_listening_illegal_card": "tests.harness_bots:ListeningIllegalCardBot",
    "t_slow": "tests.harness_bots:SlowMoveBot",
    "t_hangs": "tests.harness_bots:HangingBot",
    "t_exits": "tests.harness_bots:ExitingBot",
    "t_killed": "tests.harness_bots:KilledBot",
    "t_sleepy": "tests.harness_bots:SleepyBot",
    "t_dies_once": "tests.harness_bots:DiesOnceBot",
    "t_not_a_bot": "tests.harness_bots:first_seat_only",
}


class FixedDeals:
    """A match of a fixed number of deals, scored by the sum of their returns;
    the last deal is played with the high-card rule for the first leader."""

    def __init__(self, deals: int):
        self.deals = deals

    def next_deal(self, history: Sequence[Sequence[float]]) -> dict[str, Any] | None:
        if len(history) >= self.deals:
            return None
        return {"first_leader": "high_card"} if len(history) == self.deals - 1 else {}

    def result(self, history: Sequence[Sequence[float]]) -> list[float]:
        return [sum(deal[s] for deal in history) for s in range(len(history[0]))]


def fixed_deals(game, deals: int = 3) -> FixedDeals:
    return FixedDeals(deals)
