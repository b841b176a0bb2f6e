"""Playing one game of a tournament: bots, chance, time per move, and faults.

The loop is the referee: it alone plays on the game's state. A bot that raises
(SystemExit included: a bot's `sys.exit` is its own fault; in a worker a
KeyboardInterrupt too, since only a bot can raise one there), answers anything
but a legal action id, takes longer than the time limit over any call
(`restart_at`, `step`, `inform_action`), or changes the state it is handed
forfeits the game (docs/tournament.md, "Faults"). The loop says which bot it is
calling in `probe`, shared memory that the parent process reads, so a bot that
kills its whole process, or cuts its worker off from the parent, is blamed too
(eval/workers.py).
"""

from __future__ import annotations

import operator
import signal
import struct
import time
import traceback
from array import array
from dataclasses import dataclass
from typing import Any, Callable, MutableSequence, NamedTuple, Sequence

import pyspiel

from agents import make_bot
from agents.base import CardBot, harness_limit, rules_core
from agents.faults import CRASHED, GAME_ERROR, ILLEGAL, RAISED, TIMEOUT
from eval.config import TournamentConfig, match_format, register_bots
from eval.schedule import GameTask, side_of_seat
from games.chance import DealChance
from games.load import load_game
from games.protocol import IllegalActionError, deal_record
from games.seeding import derive_seed

# probe slots: the task being played, the seat whose bot is being called (-1 for
# none), which kind of call it is (CALL_*), and when it began (time.monotonic()).
PROBE_TASK, PROBE_SEAT, PROBE_CALL, PROBE_SINCE = range(4)
PROBE_SIZE = 4
# Kinds of call: making the bot (may load a network or start an engine: not held
# to the per-move limit), a move, and the other calls (restart_at, inform_action),
# which the limit bounds as it bounds a move.
CALL_MAKE, CALL_MOVE, CALL_HOOK = 0.0, 1.0, 2.0

AfterCall = Callable[[int], None]       # told the seat after each call into a bot (eval.workers' pipe check)


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


class BotFault(Exception):
    def __init__(self, seat: int, kind: str, message: str):
        super().__init__(message)
        self.seat, self.kind = seat, kind


class Moves:
    """Per-seat count, total and longest time of the moves made so far."""

    def __init__(self, n: int):
        self.counts, self.seconds, self.longest = [0] * n, [0.0] * n, [0.0] * n


class _Seal(NamedTuple):
    """What any play on a state changes: its rules core and the core's event log
    (immutable cells: an action extends the log, and a wrapper whose core is
    shared copies the core first), or for a state without a core (`core` None)
    its move number. Read before and after each call into a bot: cheaper than
    handing every call a clone of the state."""
    core: Any
    log: Any
    moves: int


def _seal(state: pyspiel.State) -> _Seal:
    core = getattr(state, "core", None)
    return _Seal(core, core.log, 0) if core is not None else _Seal(None, None, state.move_number())


def _unchanged(state: pyspiel.State, seal: _Seal) -> bool:
    if seal.core is None:
        return state.move_number() == seal.moves
    return state.core is seal.core and seal.core.log is seal.log


class _Tampered(BotFault):
    """A bot changed the state it was handed; `history` is the game's as the
    referee had played it before that call."""

    def __init__(self, seat: int, what: str, state: pyspiel.State, seal: _Seal):
        super().__init__(seat, ILLEGAL, f"seat {seat} changed the game state it was handed in {what} "
                                        f"(played on it, or replaced its core); only the referee plays on it")
        if seal.core is None:
            self.history = list(state.history())[:seal.moves]
        else:                       # a core's history is read from its log alone (games/eventlog.py)
            before = seal.core.clone()
            before.log = seal.log
            self.history = list(before.history())


def _call(probe: MutableSequence[float], seat: int, what: str, kind: float, time_limit: float | None,
          state: pyspiel.State | None, after_call: AfterCall | None, fn: Callable, *args) -> Any:
    """Calls a bot's method (or its factory), blaming `seat` for whatever goes wrong
    inside it: an exception or sys.exit, a call past the time limit (all but making
    the bot), a change to `state`."""
    seal = _seal(state) if state is not None else None
    probe[PROBE_CALL] = kind
    probe[PROBE_SINCE] = start = time.monotonic()
    probe[PROBE_SEAT] = seat
    try:
        result = fn(*args)
    except BaseException as e:      # SystemExit too: a bot's sys.exit ends its game, not the worker
        if _is_ctrl_c(e):
            raise
        raise BotFault(seat, getattr(e, "fault_kind", RAISED), f"seat {seat} {what}: {_describe(e)}") from e
    finally:
        probe[PROBE_SEAT] = -1
        if after_call is not None:      # whether the call returned or raised
            after_call(seat)
    elapsed = time.monotonic() - start
    if seal is not None and not _unchanged(state, seal):
        raise _Tampered(seat, what, state, seal)
    if time_limit is not None and kind != CALL_MAKE and elapsed > time_limit:
        raise BotFault(seat, TIMEOUT, f"seat {seat} took {elapsed:.3f} s in {what} (limit {time_limit:g} s)")
    return result


def _is_ctrl_c(e: BaseException) -> bool:
    """Whether `e` is the user's Ctrl-C, which stops the run rather than forfeit a
    game: a KeyboardInterrupt where SIGINT is heard. A worker ignores SIGINT (its
    parent handles it), so there a KeyboardInterrupt can only be a bot's own."""
    return isinstance(e, KeyboardInterrupt) and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN


def _describe(e: BaseException) -> str:
    frame = traceback.extract_tb(e.__traceback__)[-1:] if e.__traceback__ else []
    where = f" ({frame[0].filename.rsplit('/', 1)[-1]}:{frame[0].lineno})" if frame else ""
    if isinstance(e, SystemExit):
        return f"called sys.exit({e.code!r}){where}"
    return f"{type(e).__name__}: {e}{where}"


def _action_id(action: Any) -> int | None:
    """`action` as an int when it is an integer (numpy's too), else None: 3.0 or
    True equal an action id but are not one."""
    if type(action) is int:
        return action
    if isinstance(action, (bool, float)):
        return None
    try:
        return operator.index(action)
    except TypeError:
        return None


def play_deal(game: pyspiel.Game, bots: Sequence[pyspiel.Bot], chance: Callable[[pyspiel.State], int],
              moves: Moves, probe: MutableSequence[float], time_limit: float | None,
              trace: Trace | None = None, after_call: AfterCall | None = None) -> tuple[pyspiel.State, int]:
    """Plays one deal to the end; returns (the final state, decisions).

    Chance outcomes come from `chance`. After each decision the other bots are
    told of it with inform_action; chance outcomes are not announced (a bot reads
    what it may see from the state). CardBot's no-op hooks are not called. A
    `trace` gets the state (its history is the game's record) and every
    decision's time; `after_call` is told the seat after every call into a bot.

    Bots are handed the referee's state itself, not a clone (a clone a move
    costs a cheap game a tenth of its time): the state's seal (_Seal) is read
    around every call, and a bot that changed the state forfeits; the trace then
    keeps the history from before that call.
    """
    state = game.new_initial_state()
    if trace is not None:
        trace.state = state
    try:
        return _referee(game, bots, chance, moves, probe, time_limit, state,
                        trace.seconds.append if trace is not None else None, after_call)
    except _Tampered as fault:
        if trace is not None:
            trace.actions = fault.history
        raise


def _referee(game: pyspiel.Game, bots: Sequence[pyspiel.Bot], chance: Callable[[pyspiel.State], int],
             moves: Moves, probe: MutableSequence[float], time_limit: float | None, state: pyspiel.State,
             times: Callable[[float], None] | None, after_call: AfterCall | None) -> tuple[pyspiel.State, int]:
    """play_deal's loop, on `state`; `times` is given each decision's seconds."""
    for seat, bot in enumerate(bots):
        if type(bot).restart_at is not CardBot.restart_at:
            _call(probe, seat, "restart_at", CALL_HOOK, time_limit, state, after_call, bot.restart_at, state)
    listeners = [(s, b) for s, b in enumerate(bots) if type(b).inform_action is not CardBot.inform_action]
    # Legality: where the game refuses illegal actions itself (games.protocol,
    # `checks_actions`) and no bot hears of a move before it is applied, the
    # game's IllegalActionError is the check; else the legal actions are asked.
    num_actions = game.num_distinct_actions()
    ask_legal = bool(listeners) or not getattr(rules_core(state), "checks_actions", False)
    has_core = getattr(state, "core", None) is not None
    clock = time.monotonic
    counts, seconds, longest = moves.counts, moves.seconds, moves.longest
    decisions = 0
    probe[PROBE_CALL] = CALL_MOVE
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(chance(state))
            continue
        seat = state.current_player()
        if has_core:
            core = state.core
            log = core.log
        else:
            moves_before = state.move_number()
        probe[PROBE_SINCE] = start = clock()      # before the seat: the parent reads seat, then time
        probe[PROBE_SEAT] = seat
        try:
            answer = bots[seat].step(state)
        except BaseException as e:  # SystemExit too; an exception may name its kind (agents/engine.py)
            if _is_ctrl_c(e):
                raise
            raise BotFault(seat, getattr(e, "fault_kind", RAISED), f"seat {seat} step: {_describe(e)}") from e
        finally:
            probe[PROBE_SEAT] = -1
            if after_call is not None:
                after_call(seat)
        elapsed = clock() - start
        if (state.core is not core or core.log is not log) if has_core else state.move_number() != moves_before:
            raise _Tampered(seat, "step", state, _Seal(core, log, 0) if has_core else _Seal(None, None, moves_before))
        counts[seat] += 1
        seconds[seat] += elapsed
        if elapsed > longest[seat]:
            longest[seat] = elapsed
        if times is not None:
            times(elapsed)
        if time_limit is not None and elapsed > time_limit:
            raise BotFault(seat, TIMEOUT, f"seat {seat} took {elapsed:.3f} s over a move "
                                          f"(limit {time_limit:g} s)")
        action = answer if type(answer) is int else _action_id(answer)
        if action is None:
            raise BotFault(seat, ILLEGAL, f"seat {seat} answered {answer!r} ({type(answer).__name__}), "
                                          f"not an action id (an int)")
        if (ask_legal or not 0 <= action < num_actions) and action not in state.legal_actions():
            raise BotFault(seat, ILLEGAL, f"seat {seat} played illegal action {action!r}")
        for s, bot in listeners:
            if s != seat:
                _call(probe, s, "inform_action", CALL_HOOK, time_limit, state, after_call,
                      bot.inform_action, state, seat, action)
                probe[PROBE_CALL] = CALL_MOVE
        try:
            state.apply_action(action)
        except IllegalActionError as e:
            raise BotFault(seat, ILLEGAL, f"seat {seat} played illegal action {action!r}: {e}") from e
        decisions += 1
    return state, decisions


def forfeit_returns(game: pyspiel.Game, sides: Sequence[int], faulty_seat: int) -> list[float]:
    """Returns when `faulty_seat` forfeits: its side gets the game's minimum; the
    other seats share what keeps a zero- or constant-sum game's sum (0 each in a
    general-sum game), so they tie with one another."""
    n = len(sides)
    losers = [s for s in range(n) if sides[s] == sides[faulty_seat]]
    low = game.min_utility()
    utility = game.get_type().utility
    if utility in (pyspiel.GameType.Utility.ZERO_SUM, pyspiel.GameType.Utility.CONSTANT_SUM):
        other = (game.utility_sum() - low * len(losers)) / (n - len(losers))
    else:
        other = 0.0
    return [low if s in losers else other for s in range(n)]


def seat_seed(base: int, deal_index: int) -> int:
    """The seed of deal `deal_index` of a match from the task's seed (the task's own for the first)."""
    return base if deal_index == 0 else derive_seed(base, deal_index)


class GamePlayer:
    """Plays a tournament's tasks; one per worker process, built from the config."""

    def __init__(self, config: TournamentConfig):
        register_bots(config.bot_modules)
        self.config = config
        self.game = load_game(config.game)
        self.specs = [spec for _, spec in config.agents]
        self.sides = side_of_seat(self.game.num_players(), config.teams)
        self.match = match_format(self.game, config.match) if config.match is not None else None
        self._deal_games: dict[tuple, pyspiel.Game] = {}

    def _deal_game(self, params: dict) -> pyspiel.Game:
        key = tuple(sorted(params.items()))
        if key not in self._deal_games:
            base = self.game.get_parameters()
            self._deal_games[key] = pyspiel.load_game(self.game.get_type().short_name, {**base, **params})
        return self._deal_games[key]

    def play(self, task: GameTask, probe: MutableSequence[float], after_call: AfterCall | None = None) -> GameRecord:
        """Plays `task`; a fault becomes part of the record, never an exception.
        `after_call` is told the seat after every call into a bot."""
        started = time.perf_counter()
        n = self.game.num_players()
        moves = Moves(n)
        record = GameRecord(task.deal, task.rotation, task.seats, task.chance_seed, None, 0,
                            moves.counts, moves.seconds, moves.longest)
        history: list[list[float]] = []
        traces: list[Trace] = []
        try:
            if self.match is None:
                state, record.length = self._play_one(self.game, task, 0, moves, probe, traces, after_call)
                record.returns = state.returns()
            else:
                record.deal_records = history
                while (params := self.match.next_deal(history)) is not None:
                    state, length = self._play_one(self._deal_game(params), task, len(history), moves, probe,
                                                   traces, after_call)
                    history.append(deal_record(self.match, state))
                    record.length += length
                record.returns = list(self.match.result(history))
        except BotFault as fault:
            record.fault_seat, record.fault_kind, record.error = fault.seat, fault.kind, str(fault)
            record.returns = forfeit_returns(self.game, self.sides, fault.seat)
        except Exception as e:
            record.fault_kind, record.error, record.returns = GAME_ERROR, f"game: {_describe(e)}", None
        if self.config.keep_history:        # encoded here, in the worker, so the parent only stores bytes
            record.history = encode_history([t.history() for t in traces])
        record.wall_seconds = time.perf_counter() - started
        return record

    def _play_one(self, game: pyspiel.Game, task: GameTask, index: int, moves: Moves,
                  probe: MutableSequence[float], traces: list[Trace],
                  after_call: AfterCall | None) -> tuple[pyspiel.State, int]:
        """Plays deal `index` of the task's match (0 for a single deal)."""
        def seed(base: int) -> int:
            return seat_seed(base, index)
        trace = Trace() if self.config.keep_history else None
        if trace is not None:
            traces.append(trace)
        limit = self.config.time_limit
        with harness_limit(limit):          # an engine is told this limit (agents/engine.py)
            bots = [_call(probe, s, "make_bot", CALL_MAKE, limit, None, after_call, make_bot, self.specs[a], game, s,
                          seed(task.bot_seeds[s]))
                    for s, a in enumerate(task.seats)]
        return play_deal(game, bots, DealChance(seed(task.chance_seed)), moves, probe, limit, trace, after_call)
