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


def playout_table(entries: list[tuple[str, str, Callable[[], object]]], seconds: float,
                  repeats: int, unit: str = "games") -> None:
    """Times random playouts of each (key, label, make_state), interleaved, and prints
    steps/s, games/s and each one's steps/s as a ratio to the first (the reference)."""
    rates: dict[str, list[float]] = {}

    def measure(name, make):
        def f():
            steps, games_s = playout_rate(make, seconds)
            rates.setdefault(name, []).append(games_s)
            return steps
        return f

    med = rounds({key: measure(key, make) for key, _, make in entries}, repeats)
    ref = med[entries[0][0]]
    for key, label, _ in entries:
        g = statistics.median(rates[key])
        print(f"  {label:<30} {med[key]:>11,.0f} steps/s {g:>9,.0f} {unit}/s"
              f"   {med[key] / ref:5.2f}x steps")


def section_page_one(seconds: float, repeats: int) -> None:
    from games.page_one.core import PageOneRules, PageOneState
    print("== Page One (4 players) against OpenSpiel C++ crazy_eights(players=4) ==")
    c8 = pyspiel.load_game("crazy_eights(players=4)")
    game = pyspiel.load_game("python_page_one(players=4)")
    rules = PageOneRules()
    playout_table([("crazy_eights", "C++ crazy_eights via pyspiel", c8.new_initial_state),
                   ("core", "Page One rules core", lambda: PageOneState(rules)),
                   ("pyspiel", "Page One via pyspiel", game.new_initial_state)], seconds, repeats)
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


def section_modern_canasta(seconds: float, repeats: int) -> None:
    from games.modern_canasta.core import CanastaState
    print("== Modern American Canasta against OpenSpiel C++ crazy_eights(players=4) ==")
    c8 = pyspiel.load_game("crazy_eights(players=4)")
    game = pyspiel.load_game("python_modern_canasta")
    playout_table([("crazy_eights", "C++ crazy_eights via pyspiel", c8.new_initial_state),
                   ("core", "Canasta rules core", CanastaState),
                   ("pyspiel", "Canasta via pyspiel", game.new_initial_state)],
                  seconds, repeats, unit="hands")
    state = mid_game_state(game, 1, steps=160)
    while state.is_chance_node() or state.is_terminal():
        state = mid_game_state(game, 1 + len(state.history()), steps=160)
    core = state.core
    clones = rounds({"pyspiel": lambda: clone_cost_us(state, seconds / 2),
                     "core": lambda: clone_cost_us(core, seconds / 2),
                     "crazy_eights": lambda: clone_cost_us(mid_game_state(c8, 1), seconds / 2)},
                    repeats)
    print(f"  clone via pyspiel {clones['pyspiel']:.2f} us (copy-on-write), core clone "
          f"{clones['core']:.2f} us, C++ crazy_eights clone {clones['crazy_eights']:.2f} us")
    player = core.current_player()
    rng = random.Random(0)

    def resample_us() -> float:
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / 2:
            for _ in range(100):
                core.resample_from_infostate(player, rng.random)
            n += 100
        return (time.perf_counter() - start) / n * 1e6

    def first_resample_us() -> float:
        start = time.perf_counter()
        for _ in range(20):
            fresh = core.clone()
            fresh.cache = None
            fresh.resample_from_infostate(player, rng.random)
        return (time.perf_counter() - start) / 20 * 1e6

    print(f"  resample a world for the player to move: {statistics.median(resample_us() for _ in range(repeats)):.0f} us "
          f"({statistics.median(first_resample_us() for _ in range(repeats)):.0f} us the first time "
          f"at an information state), {len(core.events())} events into the hand")


def section_harness(seconds: float, repeats: int) -> None:
    from scripts.bench_harness import section_harness as run
    run(seconds, repeats)


def section_search(seconds: float, repeats: int) -> None:
    from scripts.bench_search import section_search as run
    run(seconds, repeats)


SECTIONS: dict[str, Callable[[float, int], None]] = {
    "page_one": section_page_one,
    "modern_canasta": section_modern_canasta,
    "harness": section_harness,
    "search": section_search,
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
