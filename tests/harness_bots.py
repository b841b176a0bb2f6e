"""Bots and a match format that the harness tests register by name
(TournamentConfig bot_modules / `cardarena --register`): misbehaving bots, one
per fault the harness must survive, and a slow bot to interrupt a run."""

from __future__ import annotations

import os
import signal
import sys
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
    """Finishes its move, but too late (the soft time limit): its first `moves`
    moves (every move when 0) take `seconds` each."""

    def __init__(self, game, player: int, seed: int, seconds: float = 0.2, moves: int = 0):
        super().__init__(game, player, seed)
        self.seconds, self.moves, self.made = seconds, moves, 0

    def step(self, state) -> int:
        if not self.moves or self.made < self.moves:
            time.sleep(self.seconds)
        self.made += 1
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


class FloatBot(RandomBot):
    """Answers a legal action as a float (3.0): not an action id, though equal to one."""

    def step(self, state) -> int:
        return float(super().step(state))


class SysExitBot(RandomBot):
    """Calls sys.exit (SystemExit, a BaseException) in the method `where` names:
    restart_at, inform_action or step; `sys_exit_bot(where=make)` in its factory."""

    def __init__(self, game, player: int, seed: int, where: str = "step"):
        super().__init__(game, player, seed)
        self.where = where

    def restart_at(self, state) -> None:
        if self.where == "restart_at":
            sys.exit(0)

    def inform_action(self, state, player: int, action: int) -> None:
        if self.where == "inform_action":
            sys.exit(0)

    def step(self, state) -> int:
        if self.where == "step":
            sys.exit(0)
        return super().step(state)


class InterruptingBot(RandomBot):
    """Raises KeyboardInterrupt at its first move, as a Ctrl-C would (a worker ignores SIGINT)."""

    def step(self, state) -> int:
        raise KeyboardInterrupt


def sys_exit_bot(game, player: int, seed: int, where: str = "step") -> SysExitBot:
    """SysExitBot's factory, which itself exits when `where` is make, for every
    seat but 0 (the tournament's check of its agents makes seat 0, in the parent)."""
    if where == "make" and player != 0:
        sys.exit(0)
    return SysExitBot(game, player, seed, where)


class SlowHookBot(RandomBot):
    """Sleeps `seconds` in restart_at or inform_action (`where`), by default for
    ever (the parent must kill its worker); its moves are quick."""

    def __init__(self, game, player: int, seed: int, where: str = "restart_at", seconds: float = float("inf")):
        super().__init__(game, player, seed)
        self.where, self.seconds = where, seconds

    def _sleep(self) -> None:
        end = time.monotonic() + self.seconds
        while (left := end - time.monotonic()) > 0:
            time.sleep(min(left, 1.0))

    def restart_at(self, state) -> None:
        if self.where == "restart_at":
            self._sleep()

    def inform_action(self, state, player: int, action: int) -> None:
        if self.where == "inform_action":
            self._sleep()


class FdClosingBot(RandomBot):
    """Closes every file descriptor it inherited (all but 0, 1 and 2) at its first
    move in a process, the pipe to the tournament's parent among them, then plays
    on, or with `raises` raises."""

    closed = False

    def __init__(self, game, player: int, seed: int, raises: bool = False):
        super().__init__(game, player, seed)
        self.raises = raises

    def step(self, state) -> int:
        if not FdClosingBot.closed:
            FdClosingBot.closed = True
            os.closerange(3, os.sysconf("SC_OPEN_MAX"))
            if self.raises:
                raise RuntimeError("closed every descriptor")
        return super().step(state)


class TamperingBot(RandomBot):
    """Plays a move for itself on the state it is handed (the referee's), then
    answers a legal action of whoever is to move after it: moves for another seat."""

    def step(self, state) -> int:
        state.apply_action(super().step(state))
        while state.is_chance_node():
            state.apply_action(state.legal_actions()[0])
        return state.legal_actions()[0] if not state.is_terminal() else 0


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
    "t_float": "tests.harness_bots:FloatBot",
    "t_sys_exit": "tests.harness_bots:sys_exit_bot",
    "t_interrupts": "tests.harness_bots:InterruptingBot",
    "t_slow_hook": "tests.harness_bots:SlowHookBot",
    "t_closes_fds": "tests.harness_bots:FdClosingBot",
    "t_tampers": "tests.harness_bots:TamperingBot",
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
