"""The classic Canasta bench section (`python -m scripts.bench --only classic_canasta`).

Random-hand steps/s for 2, 3 and 4 players, through the rules core and through
pyspiel, each in the standard loop and in the fast path, as ratios to C++
crazy_eights(players=4) driven by the same loop in the same run
(scripts.bench.playout_table); then a clone and a resample.
"""

from __future__ import annotations

import random
import statistics
import time

import pyspiel

from scripts.bench import clone_cost_us, mid_game_state, playout_table, rounds


def section_classic_canasta(seconds: float, repeats: int) -> None:
    from games.classic_canasta.core import ClassicRules, ClassicState
    c8 = pyspiel.load_game("crazy_eights(players=4)")
    for players in (4, 2, 3):
        print(f"== Classic Canasta ({players} players) against OpenSpiel C++ crazy_eights(players=4) ==")
        game = pyspiel.load_game(f"python_classic_canasta(players={players})")
        rules = ClassicRules(players=players)
        playout_table(("C++ crazy_eights via pyspiel", c8.new_initial_state), "Canasta",
                      [("rules core", lambda: ClassicState(rules)), ("via pyspiel", game.new_initial_state)],
                      seconds, repeats, unit="hands")
    game = pyspiel.load_game("python_classic_canasta(players=4)")
    state = mid_game_state(game, 1, steps=120)
    seed = 1
    while state.is_chance_node() or state.is_terminal():
        seed += 1
        state = mid_game_state(game, seed, steps=120)
    core = state.core
    clones = rounds({"pyspiel": lambda: clone_cost_us(state, seconds / 2),
                     "core": lambda: clone_cost_us(core, seconds / 2)}, repeats)
    print(f"  clone via pyspiel {clones['pyspiel']:.2f} us (copy-on-write), core clone {clones['core']:.2f} us")
    player = core.current_player()
    rng = random.Random(0)

    def resample_us() -> float:
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds / 2:
            for _ in range(100):
                core.resample_from_infostate(player, rng.random)
            n += 100
        return (time.perf_counter() - start) / n * 1e6

    print(f"  resample a world for the player to move: {statistics.median(resample_us() for _ in range(repeats)):.0f} us, "
          f"{len(core.events())} events into the hand")
