"""Speed benchmarks, always as ratios against references measured in the same run.

The machine is shared and noisy, so absolute numbers mean little; each section
times our code and an OpenSpiel reference alternately, several rounds, and
reports the median of each and their ratio.

    python -m scripts.bench                 # every section
    python -m scripts.bench --only page_one --seconds 2
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Callable

import pyspiel

import games  # noqa: F401  (registers our games)
from games.protocol import random_playout


def playout_rate(make_state: Callable[[], object], seconds: float, seed: int = 0) -> tuple[float, float]:
    """(steps per second, games per second) of uniformly random playouts through
    the shared driver loop (games.protocol.random_playout)."""
    rng = random.Random(seed)
    steps = games_played = 0
    start = time.perf_counter()
    while True:
        steps += random_playout(make_state(), rng)
        games_played += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed, games_played / elapsed


def clone_cost_us(state, seconds: float) -> float:
    n = 0
    start = time.perf_counter()
    while True:
        for _ in range(1000):
            state.clone()
        n += 1000
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return elapsed / n * 1e6


def mid_game_state(game: pyspiel.Game, seed: int, steps: int = 30):
    rng = random.Random(seed)
    state = game.new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        else:
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
    return state


def rounds(measures: dict[str, Callable[[], float]], repeats: int) -> dict[str, float]:
    """Runs each measure `repeats` times, interleaved; returns the medians."""
    results: dict[str, list[float]] = {k: [] for k in measures}
    for _ in range(repeats):
        for k, f in measures.items():
            results[k].append(f())
    return {k: statistics.median(v) for k, v in results.items()}


def section_page_one(seconds: float, repeats: int) -> None:
    from games.page_one.core import PageOneRules, PageOneState
    print("== Page One (4 players) against OpenSpiel C++ crazy_eights(players=4) ==")
    c8 = pyspiel.load_game("crazy_eights(players=4)")
    game = pyspiel.load_game("python_page_one(players=4)")
    rules = PageOneRules()
    rates = {}

    def measure(name, make):
        def f():
            steps, games_s = playout_rate(make, seconds)
            rates.setdefault(name + "_games", []).append(games_s)
            return steps
        return f

    med = rounds({"crazy_eights": measure("crazy_eights", c8.new_initial_state),
                  "core": measure("core", lambda: PageOneState(rules)),
                  "pyspiel": measure("pyspiel", game.new_initial_state)}, repeats)
    ref = med["crazy_eights"]
    for name, label in (("crazy_eights", "C++ crazy_eights via pyspiel"),
                        ("core", "Page One rules core"),
                        ("pyspiel", "Page One via pyspiel")):
        g = statistics.median(rates[name + "_games"])
        print(f"  {label:<30} {med[name]:>11,.0f} steps/s {g:>9,.0f} games/s"
              f"   {med[name] / ref:5.2f}x steps")
    state = mid_game_state(game, 1)
    clones = rounds({"pyspiel": lambda: clone_cost_us(state, seconds / 2),
                     "core": lambda: clone_cost_us(state.core, seconds / 2),
                     "crazy_eights": lambda: clone_cost_us(mid_game_state(c8, 1), seconds / 2)},
                    repeats)

    def clone_then_act() -> float:
        n, start = 0, time.perf_counter()
        action = state.legal_actions()[0] if not state.is_chance_node() else state.chance_outcomes()[0][0]
        while time.perf_counter() - start < seconds / 2:
            for _ in range(1000):
                state.clone().apply_action(action)
            n += 1000
        return (time.perf_counter() - start) / n * 1e6

    first_act = statistics.median(clone_then_act() for _ in range(repeats))
    print(f"  clone via pyspiel {clones['pyspiel']:.2f} us (copy-on-write; clone + first action "
          f"{first_act:.2f} us), core clone {clones['core']:.2f} us, "
          f"C++ crazy_eights clone {clones['crazy_eights']:.2f} us")


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a live process (Linux /proc)."""
    import os
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def section_harness(seconds: float, repeats: int) -> None:
    """The tournament harness (docs/tournament.md) on the cheapest bots, random and
    rules at Page One, where its own cost shows most: games/s with 2 workers
    against 1, the harness against a bare loop over the same games (wall and CPU
    time), and the Elo interval with duplicate deals against the same number of
    games without."""
    import os
    import tempfile
    from pathlib import Path

    from agents import make_bot
    from eval.chance import DealChance
    from eval.config import TournamentConfig
    from eval.play import PROBE_SIZE, GamePlayer
    from eval.ratings import summarize
    from eval.storage import ResultsDB
    from eval.tournament import planned_games, play
    from eval.workers import LocalPool

    game_string = "python_page_one(players=4)"
    deals = max(50, int(seconds * 400))
    config = TournamentConfig.create(game_string, ["random", "rules"], deals=deals)
    tasks = planned_games(config)
    game = pyspiel.load_game(game_string)
    specs = [spec for _, spec in config.agents]
    print(f"== Tournament harness: random vs rules, {game_string}, {len(tasks)} games "
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs) ==")

    def bare_loop() -> tuple[float, float, list]:
        """The same games with nothing but the bots and the game: no processes,
        storage, timing or fault guards."""
        start, cpu = time.perf_counter(), time.process_time()
        results = []
        for task in tasks:
            bots = [make_bot(specs[a], game, s, task.bot_seeds[s]) for s, a in enumerate(task.seats)]
            chance = DealChance(task.chance_seed)
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply_action(chance(state))
                else:
                    state.apply_action(bots[state.current_player()].step(state))
            results.append(state.returns())
        return time.perf_counter() - start, time.process_time() - cpu, results

    def harness(workers: int) -> tuple[float, tuple[float, float], list]:
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

    harness(1)       # starts the forkserver, once per process
    runs: dict[str, list[tuple[float, tuple[float, float]]]] = {"bare loop": [], "1 worker": [], "2 workers": []}
    for _ in range(repeats):
        for name, run in (("bare loop", bare_loop), ("1 worker", lambda: harness(1)),
                          ("2 workers", lambda: harness(2))):
            wall, cpu, results = run()
            runs[name].append((wall, cpu if isinstance(cpu, tuple) else (cpu, 0.0)))
            if name == "bare loop":
                expected = results
            assert results == expected, f"{name} played different games"
    n = len(tasks)
    wall = {k: statistics.median(w for w, _ in v) for k, v in runs.items()}
    play_cpu = {k: statistics.median(c[0] for _, c in v) / n for k, v in runs.items()}
    parent_cpu = {k: statistics.median(c[1] for _, c in v) / n for k, v in runs.items()}
    for k in runs:
        print(f"  {k:<10} {n / wall[k]:7.0f} games/s   {1e3 * wall[k] / n:6.3f} ms/game wall   CPU per game: "
              f"{1e3 * play_cpu[k]:6.3f} ms playing" + (f", {1e3 * parent_cpu[k]:.3f} ms in the parent"
                                                       if k != "bare loop" else ""))
    print(f"  2 workers / 1 worker: {wall['1 worker'] / wall['2 workers']:.2f}x games/s (target >= 1.8x)")
    print(f"  harness (1 worker) over the bare loop: {wall['1 worker'] / wall['bare loop'] - 1:+.1%} wall time; "
          f"CPU {play_cpu['1 worker'] / play_cpu['bare loop'] - 1:+.1%} in the worker, "
          f"{parent_cpu['1 worker'] / play_cpu['bare loop']:+.1%} in the parent (target <= +10%)")
    start = time.perf_counter()
    player = GamePlayer(config)
    records = [player.play(t, [0.0] * PROBE_SIZE) for t in tasks]
    played = time.perf_counter() - start
    start = time.perf_counter()
    summarize(config, records)
    print(f"  summary with 1000 bootstrap resamples: {time.perf_counter() - start:.2f} s "
          f"(the games: {played:.2f} s in one process)")

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

SECTIONS: dict[str, Callable[[float, int], None]] = {
    "page_one": section_page_one,
    "harness": section_harness,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="cardarena bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", choices=sorted(SECTIONS),
                        help="run only this section (repeatable)")
    parser.add_argument("--seconds", type=float, default=1.0, help="time per measurement")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved rounds per measure")
    args = parser.parse_args(argv)
    for name in args.only or SECTIONS:
        SECTIONS[name](args.seconds, args.repeats)


if __name__ == "__main__":
    main()
