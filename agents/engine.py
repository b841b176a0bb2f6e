"""A bot in another program, any language, that speaks docs/engine_protocol.md.

The harness side of the engine protocol, `engine(cmd=...)`: a bot whose moves
come from another program, in any language, that speaks one
JSON object a line over its standard input and output. The harness starts the
program, says hello, and at each turn sends what the seat may see. Version 2 (offered at hello beside version 1;
the engine picks): the turn's id, which the reply names, the legal actions with
their words and what the view says of them, the seat's events since its last turn
(its information-state lines) and the seat view (games.view.seat_view: the table's
view of that seat, in its game's schema), so that an engine needs no text parsing
and no ids (it may answer by an action's words); what else it asks for at hello
(the information-state string and tensor, a world: one full history consistent
with what the seat saw). Version 1: the information state, the legal actions with
their words, the public moves since the engine's last turn, the view and what it
asked for. Nothing
else reaches the engine: `turn_message` is built from the seat's view only
(tests/test_engine.py checks it gives the same message on the true state and on
a resampled world).

A process is kept for as long as its program may be reused: when a bot is let go
(the harness makes bots per deal) its process goes back to a pool in this process
and the next bot of the same command takes it, so a tournament starts one process
per seat and worker, not one per game; one that ended after its deal is started
again. Each runs in a session of its own, so that killing it kills whatever it
started too. An engine that misbehaves raises an `EngineFault` carrying the
harness's fault kind (agents/faults.py: raised, illegal, timeout, crashed), the
reason and the tail of its stderr; its process is killed.
"""

from __future__ import annotations

import atexit
import ctypes
import json
import math
import os
import random
import re
import selectors
import shlex
import signal
import subprocess
import tempfile
import threading
import time
import weakref
from typing import Any

import pyspiel

from agents.base import CardBot, current_harness_limit, rules_core
from agents.faults import CRASHED, ILLEGAL, RAISED, TIMEOUT
from games import registry
from games.registry import Param
from games.view import seat_view

PROTOCOL = 2               # the newest version this harness speaks
VERSIONS = (1, 2)          # every version it speaks: offered at hello, the engine picks one
MARGIN = 0.05              # seconds of a move's limit kept for the pipes: a v2 engine is told the rest
HELLO_SECONDS = 60.0        # an engine's start, to its hello (a Python engine imports torch; a loaded machine)
GOODBYE_SECONDS = 2.0       # a quitting engine's time to exit before it is killed
STDERR_TAIL = 600           # characters of the engine's stderr in a fault report
STDERR_KEPT = 1 << 20       # bytes of stderr kept between deals, at most
MAX_LINE = 16 << 20         # a longer line from an engine is malformed
IDLE_PER_KEY = 8            # idle processes kept per command
DEFAULT_TIME_LIMIT = 60.0   # told an engine made outside a harness that gives none (the harness's own default)
EXIT_WAIT = 1.0             # how long an engine that closed its pipes is given to exit, for its exit status


class EngineFault(RuntimeError):
    """An engine broke the protocol; `fault_kind` is the harness's kind for it."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.fault_kind = kind


def _encode(message: dict) -> bytes:
    return (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


try:                                # loaded here: the child runs as little as it can between fork and exec
    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl
except (OSError, AttributeError):    # not Linux
    _PRCTL = None
_PR_SET_PDEATHSIG = 1


def _on_parent_death() -> None:
    """In the engine's child, before exec: die with the process that started it
    (a worker killed by the watchdog must not leave a stuck engine behind)."""
    _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL)


class EngineProcess:
    """One running engine: its pipes, its stderr (a temporary file, read for a
    fault report) and what it said at hello."""

    def __init__(self, cmd: str, cwd: str | None, hello: dict):
        argv = shlex.split(cmd)
        if not argv:
            raise ValueError("engine: cmd is empty")
        self.cmd = cmd
        self.stderr = tempfile.TemporaryFile()
        # The death signal follows the thread that forks: set it only from the main thread,
        # whose end is the process's (the play table makes bots in short-lived threads).
        preexec = (_on_parent_death if _PRCTL is not None and threading.current_thread() is threading.main_thread()
                   else None)
        # A session of its own: its process group is everything it starts, killed with it.
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.stderr,
                                     cwd=cwd, bufsize=0, preexec_fn=preexec, close_fds=True,
                                     start_new_session=True)
        self.out_fd = self.proc.stdout.fileno()
        self.in_fd = self.proc.stdin.fileno()
        os.set_blocking(self.in_fd, False)
        self.buffer = bytearray()
        self.reader = selectors.DefaultSelector()
        self.reader.register(self.out_fd, selectors.EVENT_READ)
        self.writer = selectors.DefaultSelector()
        self.writer.register(self.in_fd, selectors.EVENT_WRITE)
        self.owner = os.getpid()
        self.closed = False             # its pipes are closed: their numbers may name another file now
        self.between_deals = False      # told deal_end, and nothing heard since: it may end there
        try:
            self.send(hello, time.monotonic() + HELLO_SECONDS)
            reply = self.receive(time.monotonic() + HELLO_SECONDS, "hello")
        except EngineFault as e:
            self.kill()
            raise ValueError(f"engine {cmd!r} failed at hello: {e}") from None
        if reply.get("type") == "error":
            self.kill()
            raise ValueError(f"engine {cmd!r} refused hello: {str(reply.get('message'))[:300]}")
        if reply.get("type") != "hello" or not isinstance(reply.get("name"), str):
            self.kill()
            raise ValueError(f"engine {cmd!r} answered hello with {json.dumps(reply)[:200]}; expected "
                             '{"type":"hello","name":...,"version":...}')
        version = reply.get("protocol", 1)
        if version not in VERSIONS:
            self.kill()
            raise ValueError(f"engine {cmd!r} answered hello with protocol {version!r}; this harness speaks "
                             f"{', '.join(map(str, VERSIONS))}")
        self.name = reply["name"]
        self.version = str(reply.get("version", ""))
        self.protocol: int = version
        self.wants_tensor = reply.get("tensor") is True
        self.wants_world = reply.get("world") is True
        self.wants_info_state = version == 1 or reply.get("info_state") is True
        self.turns = 0                  # turn ids given (version 2): one more at every turn
        self.last_turn: int | None = None

    # ------------------------------------------------------------ pipes
    def send(self, message: dict, deadline: float) -> None:
        """Writes one line; an engine that stops reading until `deadline` has hung."""
        if self.closed:         # never write to a number a later engine's pipe may have taken
            raise EngineFault(CRASHED, f"engine was stopped already [{self.cmd}]")
        data = memoryview(_encode(message))
        while data:
            try:
                written = os.write(self.in_fd, data)
            except BlockingIOError:
                written = 0
            except OSError:
                self._exited(EXIT_WAIT)
                raise self.fault(CRASHED, "engine exited") from None
            data = data[written:]
            if data:
                left = deadline - time.monotonic()
                if left <= 0 or not self.writer.select(left):
                    raise self.fault(TIMEOUT, "engine stopped reading its input")

    def receive(self, deadline: float, what: str) -> dict:
        """The next line, as a JSON object; the engine's faults as EngineFault."""
        if self.closed:
            raise EngineFault(CRASHED, f"engine was stopped already [{self.cmd}]")
        line = self._line(deadline, what)
        if line.lstrip().startswith(b"Traceback"):
            rest = self._rest(time.monotonic() + 0.2)
            last = [t for t in (line + b"\n" + rest).decode(errors="replace").splitlines() if t.strip()]
            raise self.fault(RAISED, f"engine printed a traceback on stdout at {what}: {last[-1].strip()}")
        try:
            message = json.loads(line)
        except (ValueError, UnicodeDecodeError):
            raise self.fault(RAISED, f"engine wrote a malformed line at {what}: "
                                     f"{line[:120].decode(errors='replace')!r}") from None
        if not isinstance(message, dict):
            raise self.fault(RAISED, f"engine wrote {line[:120].decode(errors='replace')!r} at {what}, "
                                     "not a JSON object")
        self.between_deals = False
        return message

    def expect_silence(self, what: str) -> None:
        """Before a message that wants a reply: the engine has nothing to say
        unasked. A line already waiting (a second answer to the last turn, say)
        would be read as this message's reply, so it is a protocol fault; an
        engine that has exited is found here too."""
        if not self.buffer:
            if not self.reader.select(0):
                return
            chunk = os.read(self.out_fd, 1 << 16)
            if not chunk:
                raise self.fault(CRASHED, f"engine exited before {what} ({self._exit_status()})")
            self.buffer += chunk
        line = bytes(self.buffer).split(b"\n", 1)[0]
        again = ""
        if self.protocol >= 2 and self.last_turn is not None and _turn_id(line) == self.last_turn:
            again = f" (a second answer to turn {self.last_turn})"
        raise self.fault(RAISED, f"protocol fault: engine wrote a line that no message asked for, before {what}"
                                 f"{again}: {line[:120].decode(errors='replace')!r} (one line answers each hello "
                                 f"and turn; nothing else is read)")

    def quiet(self) -> bool:
        """Whether the engine has written nothing unasked (checked before it is pooled)."""
        return not self.closed and not self.buffer and not self.reader.select(0)

    def _line(self, deadline: float, what: str) -> bytes:
        buffer = self.buffer
        while True:
            end = buffer.find(b"\n")
            if end >= 0:
                line = bytes(buffer[:end])
                del buffer[:end + 1]
                return line
            if len(buffer) > MAX_LINE:
                raise self.fault(RAISED, f"engine wrote a line of over {MAX_LINE} bytes at {what}")
            left = deadline - time.monotonic()
            if left <= 0 or not self.reader.select(left):
                raise self.fault(TIMEOUT, f"engine was silent past the time limit at {what}")
            chunk = os.read(self.out_fd, 1 << 16)
            if not chunk:
                raise self.fault(CRASHED, f"engine exited at {what} ({self._exit_status()})")
            buffer += chunk

    def _exit_status(self) -> str:
        if not self._exited(EXIT_WAIT):
            return "it closed its output"
        self._end()
        code = self.proc.returncode
        if code < 0:
            return f"killed by {signal.Signals(-code).name}"
        return f"exit code {code}"

    def _exited(self, wait: float = 0.0) -> bool:
        """Whether the engine's process has exited, waiting up to `wait` seconds.
        It is not reaped here: until it is, its pid (its process group's id) is
        not reused, so `_end` can still kill what it left running."""
        if self.proc.returncode is not None:
            return True
        deadline = time.monotonic() + wait
        while True:
            try:
                if os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                    return True
            except ChildProcessError:            # reaped already
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)

    def _end(self) -> None:
        """Kills the engine's process group (the engine and anything it started
        that is still running) and reaps the engine."""
        if self.proc.returncode is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.wait()

    def _rest(self, deadline: float) -> bytes:
        """What the engine writes until `deadline` (the end of a traceback)."""
        out = bytes(self.buffer)
        self.buffer.clear()
        while len(out) < 1 << 16 and (left := deadline - time.monotonic()) > 0 and self.reader.select(left):
            chunk = os.read(self.out_fd, 1 << 16)
            if not chunk:
                break
            out += chunk
        return out

    # ------------------------------------------------------------ faults and ends
    def trim_stderr(self) -> None:
        """Empties a long stderr (called between deals): a chatty engine must not fill
        the disk over a tournament. The engine shares the file's offset, so it writes on
        from the start."""
        if os.fstat(self.stderr.fileno()).st_size > STDERR_KEPT:
            self.stderr.truncate(0)
            self.stderr.seek(0)

    def stderr_tail(self) -> str:
        try:
            size = self.stderr.seek(0, os.SEEK_END)
            self.stderr.seek(max(0, size - STDERR_TAIL))
            text = self.stderr.read().decode(errors="replace").strip()
        except (OSError, ValueError):
            return ""
        return text

    def fault(self, kind: str, reason: str) -> EngineFault:
        """The fault, with the engine's stderr; the process is killed (it is never reused)."""
        self._end()
        tail = self.stderr_tail()
        self._close()
        return EngineFault(kind, f"{reason} [{self.cmd}]" + (f"; its stderr ends: {' | '.join(tail.splitlines()[-6:])}"
                                                             if tail else ""))

    def ended_after_deal(self, fault: EngineFault) -> bool:
        """Whether `fault` is this engine ending cleanly (exit code 0) after a
        deal_end, before its next reply: an engine may end with its deal, so the
        next deal starts it again rather than forfeit."""
        return fault.fault_kind == CRASHED and self.between_deals and self.proc.returncode == 0

    def alive(self) -> bool:
        return not self.closed and not self._exited()

    def kill(self) -> None:
        self._end()
        self._close()

    def ask_to_quit(self) -> None:
        """Sends quit (no wait): `quit` or `close_engines` gives it time to exit."""
        if not self._exited():
            try:
                self.send({"type": "quit"}, time.monotonic() + GOODBYE_SECONDS)
            except EngineFault:
                pass

    def quit(self, deadline: float | None = None) -> None:
        """Asks the engine to exit and gives it until `deadline` (GOODBYE_SECONDS
        from now by default); then kills its process group, the engine with it if
        it has not exited, and whatever it left running."""
        self.ask_to_quit()
        if deadline is None:
            deadline = time.monotonic() + GOODBYE_SECONDS
        self._exited(max(0.0, deadline - time.monotonic()))
        self.kill()

    def _close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for f in (self.proc.stdin, self.proc.stdout, self.stderr):
            try:
                f.close()
            except OSError:
                pass
        self.reader.close()
        self.writer.close()


def _turn_id(line: bytes) -> Any:
    """The `id` a reply line names, if it is a JSON object that names one."""
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    return message.get("id") if isinstance(message, dict) else None


# ---------------------------------------------------------------- the pool
_idle: dict[tuple, list[EngineProcess]] = {}
_lock = threading.Lock()


def _acquire(key: tuple, cmd: str, cwd: str | None, hello: dict) -> EngineProcess:
    """An idle process of this command (one left by an earlier bot), or a new one."""
    with _lock:
        idle = _idle.get(key, [])
        while idle:
            proc = idle.pop()
            if proc.owner == os.getpid() and proc.alive():
                return proc
    return EngineProcess(cmd, cwd, hello)


def _release(key: tuple, proc: EngineProcess) -> None:
    if proc.owner != os.getpid():
        return
    if not proc.alive() or not proc.quiet():       # it wrote what nobody asked for: not reused
        proc.kill()
        return
    with _lock:
        idle = _idle.setdefault(key, [])
        if len(idle) < IDLE_PER_KEY:
            idle.append(proc)
            return
    proc.quit()


@atexit.register
def close_engines() -> None:
    """Quits every idle engine of this process, all at once: each is sent quit,
    given GOODBYE_SECONDS in all to exit, then its process group is killed (at
    exit, and when a tournament's worker ends; a test may call it)."""
    with _lock:
        procs = [p for idle in _idle.values() for p in idle if p.owner == os.getpid()]
        _idle.clear()
    for proc in procs:
        proc.ask_to_quit()
    deadline = time.monotonic() + GOODBYE_SECONDS
    for proc in procs:
        proc.quit(deadline)


# ---------------------------------------------------------------- messages
class SeatCursor:
    """Where one seat's next turn message starts in a deal: a replica of the deal
    that has applied every action told so far (it names the player of each new one
    without asking the state for its whole history) and the information-state
    lines sent so far."""

    def __init__(self, state: pyspiel.State):
        core = getattr(state, "core", None)
        self.replica = core.replay_start() if core is not None else state.get_game().new_initial_state()
        self.told = 0           # actions applied to the replica
        self.last = -1          # the last of them
        self.lines = 1          # information-state lines sent (the first, the hand, is rewritten: never in "seen")
        self.world = None       # the last world sent, as the engine holds it (the seat's moves since applied)

    def continues(self, history: list[int]) -> bool:
        """Whether `history` goes on from what was told (else it is another game)."""
        told = self.told
        return len(history) >= told and (told == 0 or history[told - 1] == self.last)

    def catch_up(self, history: list[int]) -> list[dict]:
        """The player actions of `history` (the state's) since the last call, with their words."""
        replica = self.replica
        moves = []
        for action in history[self.told:]:
            player = replica.current_player()
            if player >= 0:
                moves.append({"seat": player, "action": action, "text": replica.action_to_string(player, action)})
            replica.apply_action(action)
            self.told += 1
            self.last = action
        return moves


_SEAT = re.compile(r"^p(\d+)\b")


def events_of(lines: list[str], start: int) -> list[dict]:
    """Information-state lines from `start` on (the first line, the hand, is never one) as the
    version-2 events: index among the seat's events, the seat the line tells of (null: none), words."""
    out = []
    for j in range(max(1, start), len(lines)):
        m = _SEAT.match(lines[j])
        out.append({"i": j - 1, "seat": int(m.group(1)) if m else None, "text": lines[j]})
    return out


def _legal(state: pyspiel.State, seat: int, view: dict | None) -> list[dict]:
    """The legal actions, each with its words and (a registered game) what the view says of it."""
    described = {a["action"]: a for a in view["actions"]} if view is not None else {}
    out = []
    for a in state.legal_actions(seat):
        entry = {"action": a, "text": state.action_to_string(seat, a)}
        entry.update({k: v for k, v in described.get(a, {}).items() if k != "action"})
        out.append(entry)
    return out


def turn_message(state: pyspiel.State, seat: int, cursor: SeatCursor, *, tensor: bool = False,
                 world_rng: random.Random | None = None, time_left: float | None = None,
                 history: list[int] | None = None, version: int = 1, turn_id: int | None = None,
                 info_state: bool = True) -> dict:
    """The turn message for `seat`; moves `cursor` on to this turn.

    Built from the seat's view only: its information state (string and tensor),
    its legal actions, the player actions since its last turn (every player action
    of our games is public; tests/test_engine.py checks it), the information-state
    lines added since then, the seat view the table would show that seat (null for a
    game with no registered view: an engine that parses one format for every game
    need not parse each game's information state) and, with `world_rng`, one world
    drawn from the seat's information by the game's own resampler (None when only
    the seat's own moves came since its last one: that world, extended by them,
    still is one).

    Version 2 (`version=2`): the turn's `id`, the legal actions with what the view says of each,
    the seat's `events` since its last turn in place of `seen` and `moves` (ids), and the
    information-state string only where `info_state` (asked at hello)."""
    info = state.information_state_string(seat)
    lines = info.split("\n")
    before = cursor.told
    moves = cursor.catch_up(state.history() if history is None else history)
    game = state.get_game()
    view = seat_view(game, state, seat) if registry.of_game(game) is not None else None
    if version >= 2:
        message: dict[str, Any] = {"type": "turn", "id": turn_id, "legal": _legal(state, seat, view),
                                   "events": events_of(lines, cursor.lines), "time_left": time_left, "view": view}
        if info_state:
            message["info_state"] = info
        if world_rng is not None:
            message["moves"] = moves
    else:
        legal = [{"action": a, "text": state.action_to_string(seat, a)} for a in state.legal_actions(seat)]
        message = {"type": "turn", "info_state": info, "legal": legal, "moves": moves,
                   "seen": lines[cursor.lines:], "time_left": time_left, "view": view}
    cursor.lines = max(1, len(lines))
    if tensor:
        message["tensor"] = [float(x) for x in state.information_state_tensor(seat)]
    if world_rng is not None:
        own_only = before > 0 and cursor.told - before == len(moves) and all(m["seat"] == seat for m in moves)
        if own_only and _extends(cursor, moves, seat, info):
            message["world"] = None
        else:
            cursor.world = draw_world(state, seat, world_rng)
            message["world"] = list(cursor.world.history())
    return message


def _extends(cursor: SeatCursor, moves: list[dict], seat: int, info: str) -> bool:
    """Whether the last world sent, with the seat's own moves since applied (as
    the engine applies them), is still one: the seat to move with the same
    information state. Not always so: what happens without an action after a
    move (Page One's automatic passes) can tell the seat more than that world
    agreed with. Depends on the seat's view only (the world was drawn from it)."""
    world = cursor.world
    if world is None:
        return False
    try:
        for m in moves:
            world.apply_action(m["action"])
    except ValueError:            # an action that world does not take: a new world is drawn instead
        cursor.world = None
        return False
    if world.current_player() == seat and world.information_state_string(seat) == info:
        return True
    cursor.world = None
    return False


def draw_world(state: pyspiel.State, seat: int, rng: random.Random):
    """One world that `seat` cannot tell from the true state (a rules core),
    drawn by the game's resampler from the seat's information alone."""
    return rules_core(state).resample_from_infostate(seat, rng.random)


def deal_message(game: pyspiel.Game, seat: int, seed: int) -> dict:
    """A deal's start: its game (a match's running scores are among its parameters), the seat, a seed."""
    params = {k: v for k, v in game.get_parameters().items() if isinstance(v, (bool, int, float, str))}
    entry = registry.of_game(game)
    sides = entry.sides(game.num_players()) if entry is not None else list(range(game.num_players()))
    return {"type": "deal", "game": str(game), "parameters": params, "seat": seat, "seed": seed, "sides": sides}


# ---------------------------------------------------------------- the bot
class _Lease:
    """A bot's hold on its process; given back when the bot is let go (weakref.finalize)."""

    def __init__(self, key: tuple, cmd: str, cwd: str | None, hello: dict):
        self.key, self.cmd, self.cwd, self.hello = key, cmd, cwd, hello
        self.proc = _acquire(key, cmd, cwd, hello)
        self.state: pyspiel.State | None = None      # the deal's state, as restart_at gave it
        self.cursor: SeatCursor | None = None        # the seat's cursor in it (version 2: the last events)
        self.seat = -1
        self.in_deal = False

    def restart(self) -> None:
        """A new process in place of one that ended after its deal."""
        self.proc = EngineProcess(self.cmd, self.cwd, self.hello)

    def end_deal(self) -> None:
        if not self.in_deal:
            return
        self.in_deal = False
        state = self.state
        returns = list(state.returns()) if state is not None and state.is_terminal() else None
        self.state = None
        if self.proc.closed:            # stopped by a fault: nobody to tell
            return
        message: dict[str, Any] = {"type": "deal_end", "returns": returns}
        if self.proc.protocol >= 2 and state is not None and self.cursor is not None:
            message["events"] = events_of(state.information_state_string(self.seat).split("\n"), self.cursor.lines)
        self.proc.send(message, time.monotonic() + GOODBYE_SECONDS)
        self.proc.between_deals = True

    def release(self) -> None:
        try:
            self.end_deal()
        except EngineFault:
            return                      # killed already
        _release(self.key, self.proc)


class EngineBot(CardBot):
    """A seat played by an engine program (docs/engine_protocol.md)."""

    def __init__(self, game: pyspiel.Game, player: int, seed: int, cmd: str,
                 time_limit: float | None = DEFAULT_TIME_LIMIT, cwd: str | None = None,
                 clock: float | None = None):
        super().__init__(player)
        if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                       or not 0 < time_limit < math.inf):
            raise ValueError(f"engine: time_limit={time_limit!r}: must be a positive number of seconds")
        if not isinstance(cmd, str):
            raise ValueError(f"engine: cmd={cmd!r}: must be a command line")
        self.game = game
        self.seed = seed
        if clock is not None and (isinstance(clock, bool) or not isinstance(clock, (int, float))
                                  or not 0 < clock < math.inf):
            raise ValueError(f"engine: clock={clock!r}: must be a positive number of seconds")
        self.time_limit = None if time_limit is None else float(time_limit)
        self.clock = None if clock is None else float(clock)     # seconds for all its moves of a deal
        self.clock_left = self.clock
        # `protocol` 1 for version-1 engines (which check it); `versions` offers the rest.
        hello = {"type": "hello", "protocol": 1, "versions": list(VERSIONS), "game": str(game),
                 "players": game.num_players(), "seat": player, "time_limit": self.time_limit,
                 "clock": self.clock, "margin": MARGIN}
        key = (cmd, cwd, self.time_limit, self.clock, game.get_type().short_name, game.num_players())
        self._lease = _Lease(key, cmd, cwd, hello)
        weakref.finalize(self, self._lease.release)
        self._cursor: SeatCursor | None = None
        self._world_rng = random.Random(seed ^ 0x5EED) if self.proc.wants_world else None

    @property
    def proc(self) -> EngineProcess:
        """The engine process this bot talks to now."""
        return self._lease.proc

    def restart_at(self, state) -> None:
        self._start(state)

    def _start(self, state) -> None:
        lease = self._lease
        if lease.proc.closed or (lease.in_deal and not lease.proc.quiet()):
            lease.proc.kill()            # stopped by a fault, or it wrote what nobody asked for after its last turn
            lease.in_deal = False
            lease.restart()
        else:
            lease.end_deal()
        lease.state = state
        lease.in_deal = True
        self._cursor = lease.cursor = SeatCursor(state)
        self.clock_left = self.clock
        lease.seat = self.player
        lease.proc.trim_stderr()
        self._tell_deal(self._deadline())

    def _tell_deal(self, deadline: float) -> None:
        try:
            self.proc.send(deal_message(self.game, self.player, self.seed), deadline)
        except EngineFault as fault:
            if not self.proc.ended_after_deal(fault):
                raise
            self._lease.restart()
            self.proc.send(deal_message(self.game, self.player, self.seed), deadline)

    def _deadline(self) -> float:
        return time.monotonic() + (self.time_limit if self.time_limit is not None else 3600.0)

    def _ask(self, message: dict, deadline: float, what: str) -> dict:
        """The engine's reply to `message`. An engine found ended cleanly since its
        last deal_end is started again, told the deal, and asked again."""
        try:
            self.proc.expect_silence(what)
            self.proc.send(message, deadline)
            return self.proc.receive(deadline, what)
        except EngineFault as fault:
            if not self.proc.ended_after_deal(fault):
                raise
        self._lease.restart()
        if message.get("id") is not None:        # the new process answers this turn by its id
            self.proc.turns = self.proc.last_turn = message["id"]
        self.proc.send(deal_message(self.game, self.player, self.seed), deadline)
        self.proc.send(message, deadline)
        return self.proc.receive(deadline, what)

    def step(self, state) -> int:
        history = state.history()
        if not self._lease.in_deal or not self._cursor.continues(history):
            self._start(state)          # a first move without restart_at, or a state of another game
        proc = self.proc
        started = time.monotonic()
        deadline = self._deadline()
        if self.clock_left is not None:
            deadline = min(deadline, started + self.clock_left)
        what = f"move {len(history)}"
        if proc.protocol >= 2:
            proc.turns += 1
            message = turn_message(state, self.player, self._cursor, tensor=proc.wants_tensor,
                                   world_rng=self._world_rng, history=history, version=2, turn_id=proc.turns,
                                   info_state=proc.wants_info_state)
            # What is left of the limit once the message is built, less the pipes' margin: an
            # engine that answers within it is never late.
            message["time_left"] = (None if self.time_limit is None and self.clock_left is None
                                    else round(max(0.0, deadline - time.monotonic() - MARGIN), 3))
            message["clock_left"] = (None if self.clock_left is None
                                     else round(max(0.0, started + self.clock_left - time.monotonic()), 3))
            what = f"turn {proc.turns} (move {len(history)})"
        else:
            message = turn_message(state, self.player, self._cursor, tensor=proc.wants_tensor,
                                   world_rng=self._world_rng, time_left=self.time_limit, history=history)
        try:
            reply = self._ask(message, deadline, what)
        except EngineFault as fault:
            if fault.fault_kind == TIMEOUT and self.clock_left is not None and deadline == started + self.clock_left:
                raise EngineFault(TIMEOUT, f"engine ran out of its clock ({self.clock:g} s a deal) at {what}: "
                                           f"{fault}") from None
            raise
        if self.clock_left is not None:
            self.clock_left -= time.monotonic() - started
        proc = self.proc
        legal = [a["action"] for a in message["legal"]]
        if proc.protocol >= 2:
            proc.last_turn = message["id"]          # a line that answers it again is named so
            return self._v2_action(reply, message, legal)
        action = reply.get("action")
        if type(action) is not int:
            raise proc.fault(RAISED, f"engine answered {json.dumps(reply)[:120]}, not "
                                     '{"action": <a legal action id>}')
        if action not in legal:
            shown = ", ".join(map(str, legal[:20])) + (f", ... ({len(legal)} in all)" if len(legal) > 20 else "")
            raise proc.fault(ILLEGAL, f"engine answered illegal action {action} (legal: {shown})")
        return action

    def _v2_action(self, reply: dict, message: dict, legal: list[int]) -> int:
        """A version-2 reply's action: it names this turn's id and one legal action, by id or by words."""
        proc, turn = self.proc, message["id"]
        said = reply.get("id")
        if said != turn:
            if type(said) is int and 0 < said < turn:
                raise proc.fault(RAISED, f"engine answered turn {said} at turn {turn}: a stale line (an answer "
                                         f"to an earlier turn), not this turn's answer")
            raise proc.fault(RAISED, f"engine answered {json.dumps(reply)[:120]} at turn {turn}, without "
                                     f'this turn\'s id ({{"id": {turn}, "action": ...}})')
        action = reply.get("action")
        if action is None and isinstance(reply.get("text"), str):
            named = [a["action"] for a in message["legal"] if a["text"] == reply["text"]]
            if len(named) != 1:
                texts = ", ".join(repr(a["text"]) for a in message["legal"][:12])
                raise proc.fault(ILLEGAL, f"engine answered {reply['text']!r}, not the words of one legal "
                                          f"action (legal: {texts})")
            return named[0]
        if type(action) is not int:
            raise proc.fault(RAISED, f"engine answered {json.dumps(reply)[:120]}, not "
                                     '{"id": <the turn\'s id>, "action": <a legal action id>} or "text": <its words>')
        if action not in legal:
            shown = ", ".join(map(str, legal[:20])) + (f", ... ({len(legal)} in all)" if len(legal) > 20 else "")
            raise proc.fault(ILLEGAL, f"engine answered illegal action {action} (legal: {shown})")
        return action


def make_engine_bot(game: pyspiel.Game, player: int, seed: int = 0, cmd: str | None = None,
                    time_limit: float | str | None = None, cwd: str | None = None,
                    clock: float | None = None) -> EngineBot:
    """The make_bot factory for `engine(cmd=...,time_limit=...,cwd=...)`.

    `cmd` is the engine's command line (split as a shell would, not run by one);
    `cwd` its folder. The engine is told, at hello and each turn, the seconds it
    may take a move: the harness's own limit when a harness makes it
    (agents.base.harness_limit: the tournament's --time-limit), or `time_limit`
    where that is smaller; outside a harness, `time_limit` (60 s when not given;
    `none` for no limit). `clock`: seconds for all its moves of a deal, beside the per-move
    limit (told at hello; each version-2 turn tells what is left of it)."""
    if cmd is None:
        raise ValueError("engine: cmd is required, e.g. engine(cmd=./mybot)")
    if isinstance(time_limit, str) and time_limit.lower() == "none":
        own: float | None = math.inf
    elif time_limit is None:
        own = None
    elif isinstance(time_limit, bool) or not isinstance(time_limit, (int, float)) or not time_limit > 0:
        raise ValueError(f"engine: time_limit={time_limit!r}: must be a positive number of seconds, or none")
    else:
        own = float(time_limit)
    harness = current_harness_limit()
    if harness is None:
        limit = DEFAULT_TIME_LIMIT if own is None else own
    else:
        limit = harness if own is None else min(own, harness)
    return EngineBot(game, player, seed, str(cmd), None if limit == math.inf else limit, cwd, clock)


make_engine_bot.declared_settings = (
    Param("cmd", "str", None, "the engine's command line (split as a shell would, not run by one); required"),
    Param("time_limit", "str", None, "seconds a move (60 outside a harness), or none"),
    Param("cwd", "str", None, "the engine's folder"),
    Param("clock", "float", None, "seconds for all its moves of a deal, beside the per-move limit (none: no clock)"),
)
