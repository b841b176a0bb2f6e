"""The local backend: games played by a pool of worker processes.

Each worker plays the tasks it is sent in order; tasks go out and records come
back in small batches (cheap games would otherwise spend more time waking the
parent than playing). The parent keeps enough tasks queued per worker for about
QUEUE_SECONDS of play, so a worker never waits for it, and knows from the
worker's probe (shared memory written by eval.referee) which game and which seat's
bot is running. So when a worker dies (a bot called os._exit, or something
outside killed it) the parent starts a new worker and plays the game it died in
once more there, first; only if the worker dies in that game again is the game
recorded as lost by the bot it was running. The worker's other tasks are
requeued (games are deterministic, so one finished but not yet sent is simply
played again). With a time limit it also kills a worker whose bot overruns a
call by far (a bot stuck where Python cannot interrupt it); that game is lost at
once. No other game is affected. A call that has run WAIT_SHOWN_SECONDS is told
to `run`'s on_wait (the progress line names the game and how long it waits).

A bot may also cut its worker off from the parent by closing (or reopening) the
file descriptors the worker inherited, its pipe among them. The worker checks
its pipe after every game and exits with PIPE_LOST_EXIT, naming that game, when
the pipe is gone; the parent, which sees the pipe close at once but cannot tell
which call closed it, waits for that exit rather than blaming whichever bot is
running. The game is played once more in a fresh worker that checks the pipe
after every call into a bot (`careful`), so the second loss names the seat.

Workers are started by the "forkserver" method: forked from a clean server
process, never from the parent (which may hold threads: Ray, torch). The server
imports once what every worker needs (`worker_modules`: the main module, the
games, the agents' modules), so a worker starts in milliseconds instead of
importing them itself.
"""

from __future__ import annotations

import gc
import multiprocessing as mp
import os
import signal
import sys
import time
import types
from collections import Counter, deque
from multiprocessing.connection import Connection, wait
from typing import Callable, Generator, Iterable, Iterator

from agents import BOT_FACTORIES, parse_spec
from eval.config import TournamentConfig
from agents.faults import CRASHED, TIMEOUT
from eval.play import GamePlayer, GameRecord
from eval.referee import (CALL_MAKE, CALL_MOVE, PROBE_CALL, PROBE_SEAT, PROBE_SINCE, PROBE_SIZE, PROBE_TASK, AfterCall,
                          forfeit_returns)
from eval.schedule import GameTask

QUEUE_SECONDS = 0.2          # tasks queued per worker: about this much play, 2 to 64 games
SEND_GAMES, SEND_SECONDS = 16, 0.05   # a worker sends its records at least this often
WAIT_SHOWN_SECONDS = 5.0     # a bot call running this long is named to on_wait
TRIES = 2                    # plays of a game whose worker dies before it counts as the bot's fault
PIPE_LOST_EXIT = 86          # a worker's exit status when a bot closed or replaced its pipe to the parent
_CONTEXT = mp.get_context("forkserver")


def worker_modules(config: TournamentConfig) -> list[str]:
    """What a worker imports before its first game: the main module (every
    worker runs it as __mp_main__), the games, the harness's game loop and the
    modules of the tournament's bots (torch too, for neural ones).

    The server preloads a main module given as a path ("__main__"), but not
    one run with `python -m`, whose body every worker runs again: so what
    that module imported is preloaded too, and the worker's run of it finds
    its imports done (100 ms and more a worker otherwise)."""
    modules = ["__main__", "games", "agents", "eval.play", "eval.workers", *_main_module_imports()]
    factories = dict(BOT_FACTORIES) | dict(config.bot_modules)
    for _, agent in config.agents:
        target = factories.get(parse_spec(agent)[0])
        if target is not None:
            modules.append(target.split(":")[0])
    return list(dict.fromkeys(modules))


def _main_module_imports() -> list[str]:
    """The modules that a main module run with `python -m` took names from."""
    main = sys.modules.get("__main__")
    if getattr(main, "__spec__", None) is None:
        return []
    names = []
    for value in vars(main).values():
        name = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
        if isinstance(name, str) and name in sys.modules and name not in ("__main__", "builtins"):
            names.append(name)
    return names


def hard_deadline(time_limit: float, call: float) -> float:
    """Seconds after which a bot call (eval.referee's CALL_* kind) is stopped by
    killing its worker: well past the limit, since a call that ends late is
    already forfeited by the worker; generous for making a bot (it may load a
    network or start an engine), which the limit does not bound."""
    bounded = 2.0 * time_limit + 1.0
    return max(bounded, 60.0) if call == CALL_MAKE else bounded


def _pipe_check(conn: Connection, probe) -> AfterCall:
    """A check that the worker's pipe to the parent is still the one it started
    with (a bot may close or reopen the worker's file descriptors): when it is
    not, it names `seat` in the probe (-1: not known) and exits with PIPE_LOST_EXIT,
    since nothing can reach the parent any more."""
    fd = conn.fileno()
    first = os.fstat(fd)
    identity = (first.st_dev, first.st_ino)

    def check(seat: int) -> None:
        try:
            now = os.fstat(fd)
            if (now.st_dev, now.st_ino) == identity:
                return
        except OSError:
            pass
        probe[PROBE_SEAT] = seat
        os._exit(PIPE_LOST_EXIT)
    return check


def _worker_main(conn: Connection, probe, config: TournamentConfig, careful: int | None) -> None:
    """Plays the batches the parent sends; the game numbered `careful` (one its
    last worker died in) with the pipe checked after every call into a bot."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)    # the parent handles Ctrl-C
    probe = memoryview(probe).cast("B").cast("d")   # the same shared memory; writes cost less than ctypes's
    player = GamePlayer(config)
    pipe_intact = _pipe_check(conn, probe)
    gc.freeze()     # what the worker starts with lives as long as it: not scanned by collections
    done: list[GameRecord] = []
    first_done = 0.0
    while True:
        try:
            batch = conn.recv()
        except EOFError:                            # the parent is gone
            batch = None
        if batch is None:
            _close_engines()
            return
        for seq, task in batch:
            probe[PROBE_TASK] = seq
            if not done:
                first_done = time.monotonic()
            done.append(player.play(task, probe, pipe_intact if seq == careful else None))
            pipe_intact(-1)                         # this game lost the pipe: the parent plays it again
            if len(done) >= SEND_GAMES or time.monotonic() - first_done > SEND_SECONDS:
                conn.send(done)
                done = []
        if done and not conn.poll():                # about to wait: send what is done
            conn.send(done)
            done = []


def _close_engines() -> None:
    """Quits the engines this worker kept for its next games (agents/engine.py):
    a worker ends by os._exit, which runs no atexit handler."""
    engine = sys.modules.get("agents.engine")
    if engine is not None:
        engine.close_engines()


class _Worker:
    def __init__(self, config: TournamentConfig, ident: int, careful: int | None = None):
        self.ident = ident
        self.probe = _CONTEXT.RawArray("d", PROBE_SIZE)
        self.probe[PROBE_TASK] = -1
        self.probe[PROBE_SEAT] = -1
        self.conn, child = _CONTEXT.Pipe()
        self.process = _CONTEXT.Process(target=_worker_main, args=(child, self.probe, config, careful),
                                        name=f"cardarena-worker-{ident}", daemon=True)
        self.process.start()
        child.close()
        self.queue: deque[tuple[int, GameTask]] = deque()
        self.killed_for: str | None = None
        self.pipe_gone = False          # its pipe closed while it lives: a bot closed it; wait for its exit

    def stop(self) -> None:
        """Lets an idle worker exit (quitting its engines: up to 2 s); kills a busy
        one (its games are not wanted: the run was interrupted or stopped early)."""
        if self.process.is_alive() and not self.queue:
            try:
                self.conn.send(None)
            except OSError:
                pass
            self.process.join(timeout=3)
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.conn.close()


def _send(w: _Worker, batch: list[tuple[int, GameTask]]) -> None:
    """Sends a batch already in the worker's queue. A worker that died since it
    was last heard from (killed from outside) has a broken pipe: its death shows
    on its sentinel in the same round, and burying it puts the batch back."""
    try:
        w.conn.send(batch)
    except OSError:
        pass


class LocalPool:
    """Plays tasks on `workers` processes; `run` yields records as games end.

    Workers are started on first use and kept between runs until `close`.
    """

    def __init__(self, config: TournamentConfig, workers: int):
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.config = config
        self.size = workers
        self.workers: list[_Worker] = []
        self.started = 0
        self.failed_starts = 0
        self.game_seconds = 0.1      # running mean of a game's play time, for the queue depth
        self.player = GamePlayer(config)   # for forfeit scores in the parent
        _CONTEXT.set_forkserver_preload(worker_modules(config))   # used when the server starts

    def _start(self, careful: int | None = None) -> _Worker:
        self.started += 1
        return _Worker(self.config, self.started, careful)

    def close(self) -> None:
        for w in self.workers:
            w.stop()
        self.workers = []

    def __enter__(self) -> "LocalPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def run(self, tasks: Iterable[GameTask],
            on_wait: Callable[[str | None], None] | None = None) -> Iterator[GameRecord]:
        """Yields the record of each task as its game ends. `on_wait`, if given, is
        told at least once a second which bot call has run longest, once one has run
        WAIT_SHOWN_SECONDS (None when none has)."""
        todo: deque[tuple[int, GameTask]] = deque(enumerate(tasks))
        workers = self.workers
        while len(workers) < min(self.size, len(todo)):
            workers.append(self._start())
        limit = self.config.time_limit
        deaths: Counter[int] = Counter()      # task -> workers that died playing it
        timeout = 0.25 if limit else 1.0 if on_wait else None
        try:
            while todo or any(w.queue for w in workers):
                depth = max(2, min(64, int(QUEUE_SECONDS / self.game_seconds)))
                for w in workers:
                    if todo and len(w.queue) <= depth // 2 and not w.pipe_gone:
                        batch = [todo.popleft() for _ in range(min(len(todo), depth - len(w.queue)))]
                        w.queue.extend(batch)
                        _send(w, batch)
                by_handle = {w.conn: w for w in workers if not w.pipe_gone} | {w.process.sentinel: w for w in workers}
                dead: list[_Worker] = []
                for handle in wait(list(by_handle), timeout=timeout):
                    w = by_handle[handle]
                    if handle is not w.conn:
                        dead.append(w)
                        continue
                    try:
                        while w.queue and w.conn.poll():     # every batch that is ready
                            yield from self._received(w, w.conn.recv())
                    except (EOFError, OSError):
                        # Closed by a living worker's bot (its death, if dead, shows on the sentinel):
                        # the worker notices after the call or game and exits naming it.
                        w.pipe_gone = True
                if limit:
                    self._stop_overrunning(workers, limit)
                if on_wait:
                    on_wait(self._longest_call(workers))
                for w in dict.fromkeys(dead):
                    again = yield from self._bury(w, todo, deaths)
                    fresh = self._start(careful=again[0] if again is not None else None)
                    workers[workers.index(w)] = fresh
                    if again is not None:                 # played first, in the fresh worker
                        fresh.queue.append(again)
                        _send(fresh, [again])
                    if w.probe[PROBE_TASK] < 0:
                        self.failed_starts += 1
                        if self.failed_starts >= 3:
                            raise RuntimeError(f"worker processes die before playing a game (exit code "
                                               f"{w.process.exitcode}); see the errors printed above")
        finally:
            busy = [w for w in workers if w.queue]      # stopped early: their games are dropped
            for w in busy:
                w.stop()
                workers.remove(w)

    def _longest_call(self, workers: list[_Worker]) -> str | None:
        """The bot call that has run longest, if one has run WAIT_SHOWN_SECONDS:
        "deal 12 rotation 3: seat 2 (ismcts) has been moving for 75 s"."""
        now = time.monotonic()
        longest: tuple[float, GameTask, int, float] | None = None
        for w in workers:
            seat = int(w.probe[PROBE_SEAT])         # read before the time: the referee writes it after
            since = now - w.probe[PROBE_SINCE]
            if seat < 0 or since < WAIT_SHOWN_SECONDS or (longest and since <= longest[0]):
                continue
            task = next((t for seq, t in w.queue if seq == int(w.probe[PROBE_TASK])), None)
            if task is not None:
                longest = (since, task, seat, w.probe[PROBE_CALL])
        if longest is None:
            return None
        since, task, seat, call = longest
        agent = self.config.agent_names[task.seats[seat]]
        doing = {CALL_MOVE: "moving", CALL_MAKE: "starting (its bot being made)"}.get(call, "called")
        return f"deal {task.deal} rotation {task.rotation}: seat {seat} ({agent}) has been {doing} for {since:.0f} s"

    def _received(self, w: _Worker, records: list[GameRecord]) -> Iterator[GameRecord]:
        for record in records:
            w.queue.popleft()
            self.game_seconds += 0.05 * (record.wall_seconds - self.game_seconds)
            yield record

    def _stop_overrunning(self, workers: list[_Worker], limit: float) -> None:
        now = time.monotonic()
        for w in workers:
            seat = int(w.probe[PROBE_SEAT])
            if w.queue and seat >= 0 and w.killed_for is None:
                call = w.probe[PROBE_CALL]
                deadline = hard_deadline(limit, call)
                if now - w.probe[PROBE_SINCE] > deadline:
                    what = {CALL_MOVE: "move", CALL_MAKE: "making its bot"}.get(call, "restart_at or inform_action")
                    w.killed_for = (f"seat {seat} {what} ran past {deadline:g} s (limit {limit:g} s); "
                                    f"worker killed")
                    w.process.kill()

    def _bury(self, w: _Worker, todo: deque,
              deaths: Counter) -> Generator[GameRecord, None, tuple[int, GameTask] | None]:
        """A worker died: yields the records it sent, and the game it died in if
        that game is lost (killed for overrunning, or its worker's TRIES-th death);
        returns that game's task to play once more otherwise. Its other tasks,
        finished but unsent ones included, go back to the front of the queue."""
        while True:
            try:
                if not w.conn.poll():
                    break
                records = w.conn.recv()
            except (EOFError, OSError):
                break
            yield from self._received(w, records)
        w.process.join()
        seqs = [seq for seq, _ in w.queue]
        crashed = int(w.probe[PROBE_TASK])
        again = None
        if crashed in seqs:
            entry = w.queue[seqs.index(crashed)]
            del w.queue[seqs.index(crashed)]
            deaths[crashed] += 1
            if w.killed_for or deaths[crashed] >= TRIES:
                yield self._lost(entry[1], int(w.probe[PROBE_SEAT]), w.killed_for, w.process.exitcode,
                                 deaths[crashed])
            else:
                again = entry
        todo.extendleft(reversed(w.queue))
        w.queue.clear()
        w.conn.close()
        return again

    def _lost(self, task: GameTask, seat: int, killed_for: str | None, exitcode: int | None,
              tries: int) -> GameRecord:
        n = len(task.seats)
        record = GameRecord(task.deal, task.rotation, task.seats, task.chance_seed, None, 0,
                            [0] * n, [0.0] * n, [0.0] * n, fault_kind=CRASHED)
        how = (f"killed by {signal.Signals(-exitcode).name}" if exitcode and exitcode < 0
               else f"exit code {exitcode}")
        times = f", in each of {tries} plays of this game (the later ones in a fresh worker)" if tries > 1 else ""
        if killed_for:
            record.fault_kind, record.error = TIMEOUT, killed_for
        elif exitcode == PIPE_LOST_EXIT:
            record.error = (f"seat {seat}: its bot closed or replaced the worker's pipe to the tournament (a file "
                            f"descriptor the worker inherited){times}" if seat >= 0 else
                            f"the worker's pipe to the tournament was closed outside any bot{times}")
        elif seat >= 0:
            record.error = f"seat {seat}: worker process died ({how}) while its bot was running{times}"
        else:
            record.error = f"worker process died ({how}) outside any bot{times}"
        if seat >= 0:
            record.fault_seat = seat
            record.returns = forfeit_returns(self.player.game, self.player.sides, seat)
        return record
