"""The referee: the one place a game is played, for the harness and for the table.

A `Referee` holds one deal's state, its chance and the seats' bots, and alone plays
on the state. A seat without a bot is a human's: the caller feeds its actions to
`apply`. The tournament harness (eval/play.py) runs every seat's bot to the end of
the deal (`run_until_human`); the table (play/session.py) steps it a move at a
time, asking its bots in a thread of its own (`ask` on a copy, then `decide`) and
feeding the human's moves to `apply`. Both therefore judge a move the same way: a
bot that raises (SystemExit included: a bot's `sys.exit` is its own fault; in a
worker a KeyboardInterrupt too, since only a bot can raise one there), answers
anything but a legal action id, takes longer than the time limit over any call
(`restart_at`, `step`, `inform_action`), or changes the state it is handed forfeits
the game (docs/tournament.md, "Faults"): `BotFault` names the seat and the kind
(agents/faults.py), `forfeit_returns` what the sides get. The referee says which
bot it is calling in `probe`, shared memory that the harness's parent process
reads, so a bot that kills its whole process, or cuts its worker off from the
parent, is blamed too (eval/workers.py).

A `Match` holds what runs from one deal to the next: the deals' records and the next
deal's parameters from the game's match format (games.protocol.MatchFormat: the table
takes the one the game declares in games/registry.py, the harness the one `--match`
names); `seat_seed` gives each deal's seed from the match's.

This module imports no play/ and no scripts/: the table imports it, not the other way.
"""

from __future__ import annotations

import functools
import operator
import signal
import time
import traceback
from typing import Any, Callable, Mapping, MutableSequence, NamedTuple, Sequence

import pyspiel

from agents.base import CardBot, rules_core
from agents.faults import ILLEGAL, RAISED, TIMEOUT
from games.protocol import IllegalActionError, MatchFormat, deal_record
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
_clock = time.monotonic


class BotFault(Exception):
    """A seat's bot broke the rules of play: `kind` is one of agents/faults.py's
    names, `reason` the message without the seat (the table words it its own way);
    an exception the bot raised is the fault's __cause__."""

    def __init__(self, seat: int, kind: str, reason: str):
        super().__init__(f"seat {seat} {reason}")
        self.seat, self.kind, self.reason = seat, kind, reason


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


class Tampered(BotFault):
    """A bot changed the state it was handed; `history` is the game's as the
    referee had played it before that call (the state's own then holds the bot's
    moves too, which are no part of the game)."""

    def __init__(self, seat: int, what: str, state: pyspiel.State, seal: _Seal):
        super().__init__(seat, ILLEGAL, f"changed the game state it was handed in {what} "
                                        f"(played on it, or replaced its core); only the referee plays on it")
        if seal.core is None:
            self.history = list(state.history())[:seal.moves]
        else:                       # a core's history is read from its log alone (games/eventlog.py)
            before = seal.core.clone()
            before.log = seal.log
            self.history = list(before.history())


def call_bot(probe: MutableSequence[float], seat: int, what: str, kind: float, time_limit: float | None,
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
        raise BotFault(seat, getattr(e, "fault_kind", RAISED), f"{what}: {describe(e)}") from e
    finally:
        probe[PROBE_SEAT] = -1
        if after_call is not None:      # whether the call returned or raised
            after_call(seat)
    elapsed = time.monotonic() - start
    if seal is not None and not _unchanged(state, seal):
        raise Tampered(seat, what, state, seal)
    if time_limit is not None and kind != CALL_MAKE and elapsed > time_limit:
        raise BotFault(seat, TIMEOUT, f"took {elapsed:.3f} s in {what} (limit {time_limit:g} s)")
    return result


def _is_ctrl_c(e: BaseException) -> bool:
    """Whether `e` is the user's Ctrl-C, which stops the run rather than forfeit a
    game: a KeyboardInterrupt where SIGINT is heard. A worker ignores SIGINT (its
    parent handles it), so there a KeyboardInterrupt can only be a bot's own."""
    return isinstance(e, KeyboardInterrupt) and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN


def describe(e: BaseException) -> str:
    """An exception in one line, with the file and line it came from."""
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


class Referee:
    """One deal, played by the rules: chance from `chance`, each seat's move from its
    bot (`bots[seat]`), or from the caller where a seat has none (a human's).

    Bots are handed the referee's state itself, not a clone (a clone a move costs a
    cheap game a tenth of its time): the state's seal is read around every call, and
    a bot that changed the state forfeits (`Tampered`, with the history from before
    that call). After each decision the other bots are told of it with
    inform_action; chance outcomes are not announced (a bot reads what it may see
    from the state). CardBot's no-op hooks are not called. `seconds` holds each
    decision's time in order, `moves` the per-seat totals of the bots' moves;
    `after_call` is told the seat after every call into a bot. Construction calls
    no bot: `start` does. With `chance` None the caller plays the chance outcomes
    (`apply_chance`: a record's deal replayed) until it sets one.
    """

    def __init__(self, game: pyspiel.Game, bots: Sequence[pyspiel.Bot | None],
                 chance: Callable[[pyspiel.State], int] | None, *, time_limit: float | None = None,
                 probe: MutableSequence[float] | None = None, moves: Moves | None = None,
                 after_call: AfterCall | None = None):
        self.game = game
        self.bots = list(bots)
        self.chance = chance
        self.time_limit = time_limit
        self.probe = probe if probe is not None else [0.0] * PROBE_SIZE
        self.moves = moves if moves is not None else Moves(game.num_players())
        self.after_call = after_call
        self.state = game.new_initial_state()
        self.seconds: list[float | None] = []     # each decision's seconds (None: a replayed move's unknown)
        self.decisions = 0
        self.listeners = [(s, b) for s, b in enumerate(self.bots)
                          if b is not None and type(b).inform_action is not CardBot.inform_action]
        # Legality: where the game refuses illegal actions itself (games.protocol,
        # `checks_actions`) and no bot hears of a move before it is applied, the
        # game's IllegalActionError is the check; else the legal actions are asked.
        self._num_actions = game.num_distinct_actions()
        self._ask_legal = bool(self.listeners) or not getattr(rules_core(self.state), "checks_actions", False)

    def start(self) -> None:
        """Tells each bot the deal starts (restart_at, under the time limit), then deals."""
        for seat, bot in enumerate(self.bots):
            if bot is not None and type(bot).restart_at is not CardBot.restart_at:
                call_bot(self.probe, seat, "restart_at", CALL_HOOK, self.time_limit, self.state, self.after_call,
                         bot.restart_at, self.state)
        self.play_chance()

    def play_chance(self) -> None:
        """Plays chance until a seat is to move or the deal is over (none while the
        caller plays it)."""
        state, chance = self.state, self.chance
        while chance is not None and state.is_chance_node():
            state.apply_action(chance(state))

    def apply_chance(self, outcome: int) -> None:
        """Plays a chance outcome the caller chose (a recorded deal's), which it has
        checked is possible."""
        self.state.apply_action(outcome)

    def release(self) -> None:
        """Lets the bots go (the deal is over, or abandoned): an engine's process goes
        back to its pool, and a finished game keeps none."""
        self.bots = [None] * len(self.bots)
        self.listeners = []

    def ask(self, seat: int, state: pyspiel.State | None = None) -> tuple[Any, float]:
        """The answer of `seat`'s bot on `state` (the referee's own by default; the
        table hands a copy, so its page can read the state meanwhile) and the seconds
        it took. BotFault when the bot raised or changed the state."""
        if state is None:
            state = self.state
        probe, after_call = self.probe, self.after_call
        core = getattr(state, "core", None)         # the seal (_Seal), read inline: this is every move's path
        if core is not None:
            log = core.log
        else:
            moves = state.move_number()
        probe[PROBE_CALL] = CALL_MOVE
        probe[PROBE_SINCE] = start = _clock()      # before the seat: the parent reads seat, then time
        probe[PROBE_SEAT] = seat
        try:
            answer = self.bots[seat].step(state)
        except BaseException as e:  # SystemExit too; an exception may name its kind (agents/engine.py)
            if _is_ctrl_c(e):
                raise
            raise BotFault(seat, getattr(e, "fault_kind", RAISED), f"step: {describe(e)}") from e
        finally:
            probe[PROBE_SEAT] = -1
            if after_call is not None:
                after_call(seat)
        elapsed = _clock() - start
        if (state.core is not core or core.log is not log) if core is not None else state.move_number() != moves:
            raise Tampered(seat, "step", state, _Seal(core, log, 0) if core is not None else _Seal(None, None, moves))
        return answer, elapsed

    def decide(self, seat: int, answer: Any, seconds: float) -> int:
        """Judges `seat`'s bot's `answer`, given after `seconds`, and plays it (`apply`);
        BotFault when it came too late or is not a legal action id. Returns the action."""
        moves = self.moves
        moves.counts[seat] += 1
        moves.seconds[seat] += seconds
        if seconds > moves.longest[seat]:
            moves.longest[seat] = seconds
        self.seconds.append(seconds)
        limit = self.time_limit
        if limit is not None and seconds > limit:
            raise BotFault(seat, TIMEOUT, f"took {seconds:.3f} s over a move (limit {limit:g} s)")
        action = answer if type(answer) is int else _action_id(answer)
        if action is None:
            raise BotFault(seat, ILLEGAL, f"answered {answer!r} ({type(answer).__name__}), not an action id (an int)")
        if (self._ask_legal or not 0 <= action < self._num_actions) and action not in self.state.legal_actions():
            raise BotFault(seat, ILLEGAL, f"played illegal action {action!r}")
        self._play(seat, action)
        return action

    def apply(self, seat: int, action: int, seconds: float | None) -> None:
        """Plays the caller's decision for `seat` (a human's, or a recorded move),
        which the caller has checked is legal; `seconds` is its time, if known."""
        self.seconds.append(seconds)
        self._play(seat, action)

    def _play(self, seat: int, action: int) -> None:
        """Tells the listening bots of the decision, applies it, then plays chance."""
        state, probe = self.state, self.probe
        for s, bot in self.listeners:
            if s != seat:
                call_bot(probe, s, "inform_action", CALL_HOOK, self.time_limit, state, self.after_call,
                         bot.inform_action, state, seat, action)
        try:
            state.apply_action(action)
        except IllegalActionError as e:
            raise BotFault(seat, ILLEGAL, f"played illegal action {action!r}: {e}") from e
        self.decisions += 1
        self.play_chance()

    def run_until_human(self) -> int:
        """Plays bots' moves, each asked, judged and played (`ask`, `decide`), until a seat
        without a bot is to move or the deal is over; returns the decisions played so far."""
        state, bots, ask, decide = self.state, self.bots, self.ask, self.decide
        while not state.is_terminal():
            seat = state.current_player()
            if bots[seat] is None:
                break
            answer, seconds = ask(seat)
            decide(seat, answer, seconds)
        return self.decisions


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


@functools.lru_cache(maxsize=256)
def _load(name: str, params: tuple) -> pyspiel.Game:
    """A deal's game, loaded once per worker or table for each set of parameters."""
    return pyspiel.load_game(name, dict(params))


class Match:
    """The deals of one game: a MatchFormat's (`format`), or `deals` deals of the same
    game, each loaded as `name` with `params` and what the format sets for it (`game`,
    when given, is the deal whose parameters are `params`, already loaded). `history`
    holds what the match keeps of each finished deal: `keeps`'s record (a format that
    keeps points where no match is played), else the format's, else the deal's returns."""

    def __init__(self, name: str, params: Mapping[str, Any], format: MatchFormat | None = None, *,
                 deals: int = 1, keeps: MatchFormat | None = None, history: Sequence[Sequence[float]] = (),
                 game: pyspiel.Game | None = None):
        self.name = name
        self.params = dict(params)
        self.format = format
        self.deals = deals
        self.keeps = keeps if keeps is not None else format
        self.history: list[list[float]] = [list(r) for r in history]
        self.game = game

    def next_params(self) -> dict[str, Any] | None:
        """The next deal's game parameters, or None when the match is over."""
        if self.format is not None:
            extra = self.format.next_deal(self.history)
            return None if extra is None else {**self.params, **extra}
        return dict(self.params) if len(self.history) < self.deals else None

    def next_game(self) -> pyspiel.Game | None:
        """The next deal's game, or None when the match is over."""
        params = self.next_params()
        if params is None:
            return None
        if self.game is not None and params == self.params:
            return self.game
        return _load(self.name, tuple(sorted(params.items())))

    def record(self, state: pyspiel.State) -> list[float]:
        """What the match keeps of the finished deal `state`."""
        return deal_record(self.keeps, state) if self.keeps is not None else list(state.returns())

    def finish(self, state: pyspiel.State) -> None:
        """Keeps the finished deal's record; the next deal follows from it."""
        self.history.append(self.record(state))

    def result(self) -> list[float]:
        """The match's returns per seat: the format's from every deal's record, else
        the deals' records added up (a single deal's as they are)."""
        if self.format is not None:
            return list(self.format.result(self.history))
        return [functools.reduce(operator.add, column) for column in zip(*self.history)]
