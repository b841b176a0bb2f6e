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


def section_american_page_one(seconds: float, repeats: int) -> None:
    from games.american_page_one.core import AmericanPageOneRules, AmericanPageOneState
    print("== American Page One (4 players) against OpenSpiel C++ "
          "crazy_eights(players=4,use_special_cards=true) ==")
    c8 = pyspiel.load_game("crazy_eights(players=4,use_special_cards=true)")
    game = pyspiel.load_game("python_american_page_one(players=4)")
    rules = AmericanPageOneRules()
    rates: dict[str, list[float]] = {}

    def measure(name, make):
        def f():
            steps, games_s = playout_rate(make, seconds)
            rates.setdefault(name, []).append(games_s)
            return steps
        return f

    med = rounds({"crazy_eights": measure("crazy_eights", c8.new_initial_state),
                  "core": measure("core", lambda: AmericanPageOneState(rules)),
                  "pyspiel": measure("pyspiel", game.new_initial_state)}, repeats)
    ref = med["crazy_eights"]
    for name, label in (("crazy_eights", "C++ crazy_eights via pyspiel"),
                        ("core", "American Page One rules core"),
                        ("pyspiel", "American Page One via pyspiel")):
        print(f"  {label:<32} {med[name]:>11,.0f} steps/s {statistics.median(rates[name]):>9,.0f} games/s"
              f"   {med[name] / ref:5.2f}x steps")
    print("  (random play rarely empties a hand: most random deals stop at the 1000-turn cap)")
    state = mid_game_state(game, 1, steps=60)
    clones = rounds({"pyspiel": lambda: clone_cost_us(state, seconds / 2),
                     "core": lambda: clone_cost_us(state.core, seconds / 2),
                     "crazy_eights": lambda: clone_cost_us(mid_game_state(c8, 1), seconds / 2)},
                    repeats)
    print(f"  clone via pyspiel {clones['pyspiel']:.2f} us, core clone {clones['core']:.2f} us, "
          f"C++ crazy_eights clone {clones['crazy_eights']:.2f} us")


SECTIONS: dict[str, Callable[[float, int], None]] = {
    "page_one": section_page_one,
    "american_page_one": section_american_page_one,
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
