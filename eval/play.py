"""Playing one game of a tournament: its deals, each played to the end by the referee.

The referee (eval/referee.py) plays a deal and blames a seat for whatever goes
wrong in its bot (docs/tournament.md, "Faults"); this module plays a task's deals
with it in a worker process (eval/workers.py), makes each deal's bots, turns a
fault into the forfeit its record stores, and keeps every deal's history for the
results file (`encode_history`).
"""

from __future__ import annotations

import struct
import time
from array import array
from dataclasses import dataclass
from typing import Callable, MutableSequence, Sequence

import pyspiel

from agents import make_bot
from agents.base import harness_limit
from agents.faults import GAME_ERROR
from eval.config import TournamentConfig, match_format, register_bots
from eval.referee import (CALL_MAKE, AfterCall, BotFault, Match, Moves, Referee, Tampered, call_bot, describe,
                          forfeit_returns, seat_seed)
from eval.schedule import GameTask, side_of_seat
from games.chance import DealChance
from games.load import load_game


@dataclass
class GameRecord:
    """One played game, as stored. `returns` are the game's returns per seat, or
    the forfeit scores when a bot faulted; None when the game is void (a fault
    no bot is to blame for)."""
    deal: int
    rotation: int
    seats: tuple[int, ...]
    chance_seed: int
    returns: list[float] | None
    length: int
    move_counts: list[int]
    move_seconds: list[float]
    move_max: list[float]
    deal_records: list[list[float]] | None = None     # a match's record of each deal
    history: bytes | None = None       # every deal's actions, encode_history's bytes (None: not kept)
    fault_seat: int | None = None
    fault_kind: str | None = None
    error: str | None = None
    wall_seconds: float = 0.0

    @property
    def key(self) -> tuple[int, int]:
        return self.deal, self.rotation

    def deal_histories(self) -> list["DealHistory"] | None:
        """Each deal's actions and decision times (None for a game stored without them)."""
        return None if self.history is None else decode_history(self.history)


@dataclass
class DealHistory:
    """One deal's actions, chance outcomes included, and each decision's seconds
    (in order; chance outcomes take none): what records.record rebuilds a game from."""
    actions: list[int]
    seconds: list[float]


class Trace:
    """What play_deal leaves behind even when a bot faults: the state as far as it
    got and each decision's time. When a bot tampered with the state, `actions`
    holds the history as the referee had played it before (the state's own then
    holds the bot's moves too, which are no part of the game)."""

    def __init__(self):
        self.state: pyspiel.State | None = None
        self.seconds: list[float] = []
        self.actions: list[int] | None = None

    def history(self) -> DealHistory:
        if self.actions is not None:
            return DealHistory(self.actions, self.seconds)
        return DealHistory(list(self.state.history()) if self.state is not None else [], self.seconds)


# A history: "H1", the number of deals as uint16, then per deal the counts
# (actions, decisions) as two uint32, the actions as uint8 when every one is below
# 256 (a flag byte says which) or else uint16, and each decision's seconds as a
# 16-bit float (three significant digits), little-endian. Not compressed: zlib's
# setup alone cost more than playing a cheap game's moves; this way a Canasta
# hand's row stays small enough for SQLite to keep it within its page.
_HISTORY_MAGIC = b"H1"
_MAX_HALF = 65504.0          # the largest 16-bit float: a longer move is stored as this


def encode_history(history: Sequence[DealHistory]) -> bytes:
    parts = [_HISTORY_MAGIC, struct.pack("<H", len(history))]
    for deal in history:
        try:
            actions, narrow = bytes(deal.actions), True            # every action below 256
        except ValueError:
            actions, narrow = array("H", deal.actions).tobytes(), False
        m = len(deal.seconds)
        try:
            seconds = struct.pack(f"<{m}e", *deal.seconds)
        except (OverflowError, struct.error):                       # a move longer than 65504 s
            seconds = struct.pack(f"<{m}e", *(min(t, _MAX_HALF) for t in deal.seconds))
        parts += (struct.pack("<IIB", len(deal.actions), m, narrow), actions, seconds)
    return b"".join(parts)


def decode_history(blob: bytes) -> list[DealHistory]:
    """The deals of `encode_history`'s bytes; ValueError for bytes it did not write."""
    if not blob.startswith(_HISTORY_MAGIC):
        raise ValueError("a stored game history is not in a format this cardarena reads")
    try:
        (deals,) = struct.unpack_from("<H", blob, 2)
        at, out = 4, []
        for _ in range(deals):
            n, m, narrow = struct.unpack_from("<IIB", blob, at)
            at += 9
            actions = array("B" if narrow else "H")
            actions.frombytes(blob[at:at + actions.itemsize * n])
            at += actions.itemsize * n
            seconds = struct.unpack_from(f"<{m}e", blob, at)
            at += 2 * m
            if len(actions) != n:
                raise ValueError
            out.append(DealHistory(actions.tolist(), list(seconds)))
        if at != len(blob):
            raise ValueError
    except (struct.error, ValueError):
        raise ValueError("a stored game history is cut short or corrupt") from None
    return out


def play_deal(game: pyspiel.Game, bots: Sequence[pyspiel.Bot], chance: Callable[[pyspiel.State], int],
              moves: Moves, probe: MutableSequence[float], time_limit: float | None,
              trace: Trace | None = None, after_call: AfterCall | None = None) -> tuple[pyspiel.State, int]:
    """Plays one deal to the end with the referee; returns (the final state, decisions).

    Chance outcomes come from `chance`; `moves` gets each seat's move times, and a
    `trace` the state (its history is the game's record) and every decision's
    time, even when a bot faults (BotFault); `after_call` is told the seat after
    every call into a bot. When a bot tampered with the state, the trace keeps the
    history from before that call.
    """
    referee = Referee(game, bots, chance, time_limit=time_limit, probe=probe, moves=moves, after_call=after_call)
    if trace is not None:
        trace.state, trace.seconds = referee.state, referee.seconds
    try:
        referee.start()
        return referee.state, referee.run_until_human()
    except Tampered as fault:
        if trace is not None:
            trace.actions = fault.history
        raise


class GamePlayer:
    """Plays a tournament's tasks; one per worker process, built from the config."""

    def __init__(self, config: TournamentConfig):
        register_bots(config.bot_modules)
        self.config = config
        self.game = load_game(config.game)
        self.specs = [spec for _, spec in config.agents]
        self.sides = side_of_seat(self.game.num_players(), config.teams)
        self.match = match_format(self.game, config.match) if config.match is not None else None

    def play(self, task: GameTask, probe: MutableSequence[float], after_call: AfterCall | None = None) -> GameRecord:
        """Plays `task`, deal after deal of its match; a fault becomes part of the
        record, never an exception. `after_call` is told the seat after every call
        into a bot."""
        started = time.perf_counter()
        n = self.game.num_players()
        moves = Moves(n)
        record = GameRecord(task.deal, task.rotation, task.seats, task.chance_seed, None, 0,
                            moves.counts, moves.seconds, moves.longest)
        match = Match(self.game.get_type().short_name, self.game.get_parameters(), self.match, game=self.game)
        traces: list[Trace] = []
        try:
            if self.match is not None:
                record.deal_records = match.history
            while (game := match.next_game()) is not None:
                state, length = self._play_one(game, task, len(match.history), moves, probe, traces, after_call)
                match.finish(state)
                record.length += length
            record.returns = match.result()
        except BotFault as fault:
            record.fault_seat, record.fault_kind, record.error = fault.seat, fault.kind, str(fault)
            record.returns = forfeit_returns(self.game, self.sides, fault.seat)
        except Exception as e:
            record.fault_kind, record.error, record.returns = GAME_ERROR, f"game: {describe(e)}", None
        if self.config.keep_history:        # encoded here, in the worker, so the parent only stores bytes
            record.history = encode_history([t.history() for t in traces])
        record.wall_seconds = time.perf_counter() - started
        return record

    def _play_one(self, game: pyspiel.Game, task: GameTask, index: int, moves: Moves,
                  probe: MutableSequence[float], traces: list[Trace],
                  after_call: AfterCall | None) -> tuple[pyspiel.State, int]:
        """Plays deal `index` of the task's match (0 for a single deal)."""
        trace = Trace() if self.config.keep_history else None
        if trace is not None:
            traces.append(trace)
        limit = self.config.time_limit
        with harness_limit(limit):          # an engine is told this limit (agents/engine.py)
            bots = [call_bot(probe, s, "make_bot", CALL_MAKE, limit, None, after_call, make_bot, self.specs[a], game,
                             s, seat_seed(task.bot_seeds[s], index))
                    for s, a in enumerate(task.seats)]
        return play_deal(game, bots, DealChance(seat_seed(task.chance_seed, index)), moves, probe, limit, trace,
                         after_call)
