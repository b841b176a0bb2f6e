"""The tournament harness's benchmark section (`python -m scripts.bench --only harness`).

Figures the harness promises (docs/tournament.md, "Benchmarks"): games/s with 2
workers against 1, the harness against a bare loop over the same games, and the
Elo interval with duplicate deals against the same number of games without.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import statistics
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import pyspiel

import games  # noqa: F401  (registers our games)
from agents import make_bot
from games.chance import DealChance
from eval.config import TournamentConfig
from eval.play import GamePlayer
from eval.referee import PROBE_SIZE
from eval.ratings import summarize
from eval.storage import ResultsDB
from eval.tournament import planned_games, play
from eval.workers import LocalPool


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a live process (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def history_bytes() -> None:
    """Bytes a stored game's history takes, for each game: rule bots at four
    players (Canasta: one hand), 40 games each, stored as a tournament stores them."""
    print("  bytes per stored game's history (rule bots, 40 games each; actions and decision times):")
    for game_string in ("python_page_one(players=4)", "python_american_page_one(players=4)",
                        "python_modern_canasta"):
        config = TournamentConfig.create(game_string, ["rules", "r2=rules"], deals=20)
        player = GamePlayer(config)
        records = [player.play(t, [0.0] * PROBE_SIZE) for t in planned_games(config)]
        sizes = [len(r.history) for r in records]
        actions = [sum(len(h.actions) for h in r.deal_histories()) for r in records]
        with tempfile.TemporaryDirectory() as tmp:
            with ResultsDB.open_for(Path(tmp) / "r.db", config) as db:
                for r in records:
                    db.add(r)
            whole = (Path(tmp) / "r.db").stat().st_size
        print(f"    {game_string.split('(')[0]:<26} {statistics.mean(sizes):7.0f} bytes a game "
              f"({statistics.mean(actions):.0f} actions, {8 * statistics.mean(sizes) / statistics.mean(actions):.1f} "
              f"bits an action); the results file {whole / len(records):.0f} bytes a game in all")


def bare_games(game_string: str, specs: list[str], tasks: list) -> tuple[list, float]:
    """The games with nothing but the bots and the game, driven as OpenSpiel's
    evaluate_bots drives them (restart_at, then step; these bots have no
    inform_action): no processes, storage, timing or fault guards. Returns each
    game's returns and the CPU seconds taken (module level: a process pool runs it)."""
    game = pyspiel.load_game(game_string)
    cpu = time.process_time()
    results = []
    for task in tasks:
        bots = [make_bot(specs[a], game, s, task.bot_seeds[s]) for s, a in enumerate(task.seats)]
        chance = DealChance(task.chance_seed)
        state = game.new_initial_state()
        for bot in bots:
            bot.restart_at(state)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(chance(state))
            else:
                state.apply_action(bots[state.current_player()].step(state))
        results.append(state.returns())
    return results, time.process_time() - cpu


def section_harness(seconds: float, repeats: int) -> None:
    """The tournament harness (docs/tournament.md) on the cheapest bots, random and
    rules at Page One, where its own cost shows most: games/s with 2 workers
    against 1, the harness against a bare loop over the same games (wall and CPU
    time), and the Elo interval with duplicate deals against the same number of
    games without."""
    game_string = "python_page_one(players=4)"
    deals = max(50, int(seconds * 400))
    config = TournamentConfig.create(game_string, ["random", "rules"], deals=deals)
    tasks = planned_games(config)
    game = pyspiel.load_game(game_string)
    specs = [spec for _, spec in config.agents]
    print(f"== Tournament harness: random vs rules, {game_string}, {len(tasks)} games "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs) ==")

    def bare_loop() -> tuple[float, float, list]:
        start = time.perf_counter()
        results, cpu = bare_games(game_string, specs, tasks)
        return time.perf_counter() - start, cpu, results

    def fresh_bare_loop() -> tuple[float, float, list]:
        """The bare loop in a process started for it, as a worker is: the same
        cold caches (the bare loop in this process runs warm after its first
        round); the start is timed too, as the harness's worker start is."""
        start = time.perf_counter()
        with ProcessPoolExecutor(1, mp_context=mp.get_context("forkserver")) as fresh:
            results, cpu = fresh.submit(bare_games, game_string, specs, tasks).result()
        return time.perf_counter() - start, cpu, results

    def two_bare_loops() -> tuple[float, float, list]:
        halves = [tasks[:len(tasks) // 2], tasks[len(tasks) // 2:]]
        start = time.perf_counter()
        done = list(bare_pool.map(bare_games, [game_string] * 2, [specs] * 2, halves))
        return time.perf_counter() - start, sum(cpu for _, cpu in done), done[0][0] + done[1][0]

    without_history = replace(config, keep_history=False)

    def harness(workers: int, config: TournamentConfig = config) -> tuple[float, tuple[float, float], list]:
        """What run_tournament does up to the summary: start the workers, play,
        store. Returns (wall, (CPU of the workers, CPU of the parent), returns)."""
        with tempfile.TemporaryDirectory() as tmp:
            db = ResultsDB.open_for(Path(tmp) / "r.db", config)
            pool = LocalPool(config, workers)
            start, cpu = time.perf_counter(), time.process_time()
            for _ in play(db, pool, tasks, len(tasks), progress=False):
                pass
            wall = time.perf_counter() - start
            parent = time.process_time() - cpu
            workers_cpu = sum(_cpu_seconds(w.process.pid) for w in pool.workers)
            pool.close()
            results = [g.returns for g in db.games()]
            db.close()
        return wall, (workers_cpu, parent), results

    def in_process(config: TournamentConfig = config) -> tuple[float, float, list]:
        """The harness's own game path (GamePlayer.play: per-move timing, the
        legality check, fault guards, the record) in this process: what the
        harness adds to a game, without processes or storage."""
        player = GamePlayer(config)
        probe = [0.0] * PROBE_SIZE
        start, cpu = time.perf_counter(), time.process_time()
        results = [player.play(task, probe).returns for task in tasks]
        return time.perf_counter() - start, time.process_time() - cpu, results

    # Starts the forkserver, once per process, with what the harness preloads for
    # its workers (eval.workers.worker_modules); a pool started before it would
    # start the server bare, and every worker would import the games itself.
    harness(1)

    # The machine's own ceiling for two processes: the bare loop, half the games
    # in each of two processes already started (what 2 workers can at best reach).
    bare_pool = ProcessPoolExecutor(2, mp_context=mp.get_context("forkserver"))
    list(bare_pool.map(bare_games, [game_string] * 2, [specs] * 2, [tasks[:2]] * 2))   # started, imported

    def worker_start() -> tuple[float, float]:
        """Wall and CPU seconds from starting a worker to its first record (a
        game of about 0.6 ms): what each worker costs once per tournament."""
        pool = LocalPool(config, 1)
        start = time.perf_counter()
        next(iter(pool.run(tasks[:1])))
        wall = time.perf_counter() - start
        cpu = _cpu_seconds(pool.workers[0].process.pid)
        pool.close()
        return wall, cpu
    runners = [("bare loop", bare_loop), ("bare loop, new process", fresh_bare_loop), ("in process", in_process), ("1 worker", lambda: harness(1)),
               ("2 workers", lambda: harness(2)), ("2 bare loops", two_bare_loops), ("no history", lambda: harness(1, without_history)),
               ("in process, no history", lambda: in_process(without_history))]
    runs: dict[str, list[tuple[float, tuple[float, float]]]] = {name: [] for name, _ in runners}
    expected = bare_loop()[2]
    for repeat in range(repeats):
        # A different order each round, so that no setting always runs first
        # (or always after the same neighbour) on a machine whose speed drifts.
        turn = repeat % len(runners)
        for name, run in runners[turn:] + runners[:turn]:
            wall, cpu, results = run()
            runs[name].append((wall, cpu if isinstance(cpu, tuple) else (cpu, 0.0)))
            assert results == expected, f"{name} played different games"
    starts = [worker_start() for _ in range(repeats)]
    n = len(tasks)
    wall = {k: statistics.median(w for w, _ in v) for k, v in runs.items()}
    play_cpu = {k: statistics.median(c[0] for _, c in v) / n for k, v in runs.items()}
    parent_cpu = {k: statistics.median(c[1] for _, c in v) / n for k, v in runs.items()}

    def share_of_bare(name: str, measure: str, reference: str = "bare loop") -> float:
        """Median over the rounds of this setting's `measure` ("wall", "worker"
        or "parent" CPU) over the `reference` bare loop's time in the same round
        (paired: the rounds' common drift cancels)."""
        def time_of(run: tuple[float, tuple[float, float]]) -> float:
            return run[0] if measure == "wall" else run[1][0 if measure == "worker" else 1]
        bare_of = (lambda run: run[0]) if measure == "wall" else (lambda run: run[1][0])
        return statistics.median(time_of(r) / bare_of(b) for r, b in zip(runs[name], runs[reference]))

    for k in runs:
        print(f"  {k:<22} {n / wall[k]:7.0f} games/s   {1e3 * wall[k] / n:6.3f} ms/game wall   CPU per game: "
              f"{1e3 * play_cpu[k]:6.3f} ms playing" + (f", {1e3 * parent_cpu[k]:.3f} ms in the parent"
                                                       if not k.startswith(("bare loop", "in process", "2 bare")) else ""))
    print(f"  a worker's start, to its first record: {1e3 * statistics.median(w for w, _ in starts):.0f} ms wall, "
          f"{1e3 * statistics.median(c for _, c in starts):.0f} ms CPU (once per worker and tournament; "
          f"{statistics.median(c for _, c in starts) / (n * play_cpu['bare loop']):.1%} of these {n} games)")
    bare_pool.shutdown()
    print(f"  2 workers / 1 worker: {wall['1 worker'] / wall['2 workers']:.2f}x games/s (target >= 1.8x); "
          f"the machine's own, 2 bare loops in 2 processes / 1 bare loop: "
          f"{wall['bare loop'] / wall['2 bare loops']:.2f}x")
    kept_cpu = play_cpu["1 worker"] + parent_cpu["1 worker"]
    bare_cpu = play_cpu["no history"] + parent_cpu["no history"]
    print(f"  keeping every game's history (1 worker): {n / wall['1 worker']:.0f} games/s against "
          f"{n / wall['no history']:.0f} without, {wall['no history'] / wall['1 worker'] - 1:+.1%} (paired rounds: "
          f"{share_of_bare('no history', 'wall') / share_of_bare('1 worker', 'wall') - 1:+.1%}); CPU per game "
          f"{1e3 * kept_cpu:.3f} ms against {1e3 * bare_cpu:.3f} ms, {kept_cpu / bare_cpu - 1:+.1%} (worker "
          f"{play_cpu['1 worker'] / play_cpu['no history'] - 1:+.1%}, parent "
          f"{parent_cpu['1 worker'] / parent_cpu['no history'] - 1:+.1%}); the game path in one process, paired "
          f"rounds: CPU {share_of_bare('in process', 'worker') / share_of_bare('in process, no history', 'worker') - 1:+.1%}"
          f"; target: at most 5% of games/s")
    print(f"  harness (1 worker) over the bare loop, medians of {repeats} paired rounds: "
          f"{share_of_bare('1 worker', 'wall') - 1:+.1%} wall time (target <= +10%); "
          f"CPU {share_of_bare('1 worker', 'worker') - 1:+.1%} in the worker, "
          f"{share_of_bare('1 worker', 'parent'):+.1%} in the parent (on the other core); "
          f"its game path in one process: CPU {share_of_bare('in process', 'worker') - 1:+.1%}")
    print(f"  harness (1 worker) over the bare loop in a new process (both cold, both starting a process), "
          f"medians of {repeats} paired rounds: {share_of_bare('1 worker', 'wall', 'bare loop, new process') - 1:+.1%} "
          f"wall time (target <= +10%); CPU {share_of_bare('1 worker', 'worker', 'bare loop, new process') - 1:+.1%} "
          f"in the worker")
    start = time.perf_counter()
    player = GamePlayer(config)
    records = [player.play(t, [0.0] * PROBE_SIZE) for t in tasks]
    played = time.perf_counter() - start
    start = time.perf_counter()
    summarize(config, records)
    print(f"  summary with 1000 bootstrap resamples: {time.perf_counter() - start:.2f} s "
          f"(the games: {played:.2f} s in one process)")

    history_bytes()

    widths: dict[bool, list[float]] = {True: [], False: []}
    estimates: dict[bool, list[float]] = {True: [], False: []}
    trials = max(4, repeats * 2)
    played = []
    for trial in range(trials):
        duplicated = TournamentConfig.create(game_string, ["random", "rules"], deals=deals // 4, seed=1000 + trial)
        played.append(len(planned_games(duplicated)))
        fresh = TournamentConfig.create(game_string, ["random", "rules"], deals=played[-1], seed=1000 + trial,
                                        duplicate=False)
        for duplicate, cfg in ((True, duplicated), (False, fresh)):
            player = GamePlayer(cfg)
            summary = summarize(cfg, [player.play(t, [0.0] * PROBE_SIZE) for t in planned_games(cfg)])
            row = next(r for r in summary.rows if r.name == "rules")
            widths[duplicate].append(row.elo_high - row.elo_low)
            estimates[duplicate].append(row.elo)
    print(f"  rules' Elo over random, {trials} tournaments of {deals // 4} duplicate deals each (about "
          f"{statistics.mean(played):.0f} games) against {trials} of as many games on fresh deals:")
    for duplicate, label in ((True, "duplicate"), (False, "no duplicates")):
        print(f"  {label:<14} mean 95% interval width {statistics.mean(widths[duplicate]):6.1f} Elo; "
              f"spread of the estimates (SD) {statistics.stdev(estimates[duplicate]):5.1f} Elo")
    print(f"  interval width, duplicate / none: "
          f"{statistics.mean(widths[True]) / statistics.mean(widths[False]):.2f}")
