"""Speed benchmarks, always as ratios against references measured in the same run.

The machine is shared and noisy, so absolute numbers mean little; each section
times our code and an OpenSpiel reference alternately, several rounds, and
reports the median of each and their ratio. Playouts and clones are timed in
this process's CPU time (time.process_time): on a shared machine the time other
processes take from a single-threaded loop is not the loop's cost.

The headline of every game is the standard loop, the same for our games and for
C++ crazy_eights, as any OpenSpiel user writes it (`standard_playout`:
`is_terminal`, `is_chance_node`, `chance_outcomes`, `legal_actions`,
`apply_action`); our fast path (games.protocol.random_playout, which draws
chance outcomes with `sample_chance_outcome`) is reported beside it.

    python -m scripts.bench                 # every section
    python -m scripts.bench --only page_one --seconds 2
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path
from typing import Callable

import pyspiel

import games  # noqa: F401  (registers our games)
from games.protocol import outcome_at, random_playout

CLOCK = time.process_time
Playout = Callable[[object, random.Random], int]


def standard_playout(state, rng: random.Random) -> int:
    """Plays uniformly random moves to the end, in place, through the standard
    pyspiel calls only; returns the step count. A chance outcome is drawn from
    `chance_outcomes()` by its cumulative probability (games.protocol.outcome_at)."""
    rand = rng.random
    steps = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(outcome_at(state.chance_outcomes(), rand()))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rand() * len(legal))])
        steps += 1
    return steps


def playout_rate(make_state: Callable[[], object], seconds: float, seed: int = 0,
                 playout: Playout = standard_playout) -> tuple[float, float]:
    """(steps per CPU second, games per CPU second) of uniformly random playouts
    driven by `playout`."""
    rng = random.Random(seed)
    steps = games_played = 0
    start = CLOCK()
    while True:
        steps += playout(make_state(), rng)
        games_played += 1
        elapsed = CLOCK() - start
        if elapsed >= seconds:
            return steps / elapsed, games_played / elapsed


def clone_cost_us(state, seconds: float) -> float:
    n = 0
    start = CLOCK()
    while True:
        for _ in range(1000):
            state.clone()
        n += 1000
        elapsed = CLOCK() - start
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


def playout_table(reference: tuple[str, Callable[[], object]], name: str,
                  ours: list[tuple[str, Callable[[], object]]], seconds: float, repeats: int,
                  unit: str = "games") -> None:
    """Times random playouts, interleaved: the reference (label, make_state) in the
    standard loop, and each of ours (through what, make_state) in the standard
    loop and in the fast path. Prints steps/s, games/s and each one's steps/s as a
    ratio to the reference's, then the headline: ours via pyspiel, standard loop."""
    entries = [("reference", f"{reference[0]}, standard loop", reference[1], standard_playout)]
    for through, make in ours:
        entries.append((f"{through} standard", f"{name} {through}, standard loop", make, standard_playout))
        entries.append((f"{through} fast", f"{name} {through}, fast path", make, random_playout))
    rates: dict[str, list[float]] = {}

    def measure(key, make, playout):
        def f():
            steps, games_s = playout_rate(make, seconds, playout=playout)
            rates.setdefault(key, []).append(games_s)
            return steps
        return f

    med = rounds({key: measure(key, make, playout) for key, _, make, playout in entries}, repeats)
    ref = med["reference"]
    for key, label, _, _ in entries:
        g = statistics.median(rates[key])
        print(f"  {label:<52} {med[key]:>11,.0f} steps/s {g:>9,.0f} {unit}/s"
              f"   {med[key] / ref:5.2f}x steps")
    through = ours[-1][0]
    print(f"  headline, {name} {through} in the standard loop: {med[f'{through} standard'] / ref:.2f}x "
          f"the reference (fast path {med[f'{through} fast'] / ref:.2f}x); medians of {repeats} rounds "
          f"of {seconds:g} CPU s each")


def section_page_one(seconds: float, repeats: int) -> None:
    from games.page_one.core import PageOneRules, PageOneState
    print("== Page One (4 players) against OpenSpiel C++ crazy_eights(players=4) ==")
    c8 = pyspiel.load_game("crazy_eights(players=4)")
    game = pyspiel.load_game("python_page_one(players=4)")
    rules = PageOneRules()
    playout_table(("C++ crazy_eights via pyspiel", c8.new_initial_state), "Page One",
                  [("rules core", lambda: PageOneState(rules)), ("via pyspiel", game.new_initial_state)],
                  seconds, repeats)
    state = mid_game_state(game, 1)
    clones = rounds({"pyspiel": lambda: clone_cost_us(state, seconds / 2),
                     "core": lambda: clone_cost_us(state.core, seconds / 2),
                     "crazy_eights": lambda: clone_cost_us(mid_game_state(c8, 1), seconds / 2)},
                    repeats)

    def clone_then_act() -> float:
        n, start = 0, CLOCK()
        action = state.legal_actions()[0] if not state.is_chance_node() else state.chance_outcomes()[0][0]
        while CLOCK() - start < seconds / 2:
            for _ in range(1000):
                state.clone().apply_action(action)
            n += 1000
        return (CLOCK() - start) / n * 1e6

    first_act = statistics.median(clone_then_act() for _ in range(repeats))
    print(f"  clone via pyspiel {clones['pyspiel']:.2f} us (copy-on-write; clone + first action "
          f"{first_act:.2f} us), core clone {clones['core']:.2f} us, "
          f"C++ crazy_eights clone {clones['crazy_eights']:.2f} us")


def section_neural(seconds: float, repeats: int) -> None:
    """Neural bots: one decision on one core (the rule bot's decision is the
    reference), and batched inference throughput of the network alone, through
    torch on 2 threads and through onnxruntime, and of encoding plus network."""
    import torch
    from agents import make_bot
    from agents.neural.bot import SHIPPED_BOTS
    from agents.neural.botfile import load_bot
    from training.onnx_export import sample_states
    for path in sorted(SHIPPED_BOTS.glob("*.safetensors")):
        if "." in path.stem:
            continue                # a value or belief network (bots/<game>.<n>p.<kind>), not a bot
        bot_file = load_bot(path)
        game = pyspiel.load_game(bot_file.identity.game_string)
        print(f"== neural bot {path.name} on {game} ==")
        states = [mid_game_state(game, seed, steps) for seed in range(60) for steps in range(6, 400, 12)]
        states = [s for s in states if not s.is_terminal() and not s.is_chance_node()
                  and len(s.legal_actions()) > 1][:150]
        torch.set_num_threads(1)
        bots = {"neural": make_bot(f"neural(path={path})", game, 0), "rules": make_bot("rules", game, 0)}

        def decision_us(bot) -> Callable[[], float]:
            def f() -> float:
                n, start = 0, time.perf_counter()
                while time.perf_counter() - start < seconds / 2:
                    for s in states:
                        bot.step(s)
                    n += len(states)
                return (time.perf_counter() - start) / n * 1e6
            return f
        med = rounds({k: decision_us(b) for k, b in bots.items()}, repeats)
        print(f"  one decision, 1 core: neural {med['neural']:.0f} us, rule bot {med['rules']:.0f} us "
              f"({med['neural'] / med['rules']:.1f}x); {len(states)} mid-game states with a choice")
        obs, mask = sample_states(game, 4096, seed=1)
        net = bot_file.net

        def batched(threads: int) -> Callable[[], float]:
            def f() -> float:
                torch.set_num_threads(threads)
                n, start = 0, time.perf_counter()
                with torch.inference_mode():
                    while time.perf_counter() - start < seconds / 2:
                        for i in range(0, len(obs), 1024):
                            net(torch.from_numpy(obs[i:i + 1024]), torch.from_numpy(mask[i:i + 1024]))
                        n += len(obs)
                return n / (time.perf_counter() - start)
            return f

        def encode_rate() -> float:
            from agents.neural.encoding import InfoStateEncoder
            encoder = InfoStateEncoder(game)
            legal = [s.legal_actions() for s in states]
            cores = [s.core for s in states]
            n, start = 0, time.perf_counter()
            while time.perf_counter() - start < seconds / 2:
                encoder.batch(cores, legal)
                n += len(cores)
            return n / (time.perf_counter() - start)

        measures = {"torch_1": batched(1), "torch_2": batched(2), "encode_1": encode_rate}
        onnx_path = path.with_suffix(".onnx")
        if onnx_path.exists():
            import onnxruntime
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = 2
            session = onnxruntime.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])

            def onnx_rate() -> float:
                n, start = 0, time.perf_counter()
                while time.perf_counter() - start < seconds / 2:
                    for i in range(0, len(obs), 1024):
                        session.run(None, {"obs": obs[i:i + 1024], "mask": mask[i:i + 1024]})
                    n += len(obs)
                return n / (time.perf_counter() - start)
            measures["onnx_2"] = onnx_rate
        rates = rounds(measures, repeats)
        torch.set_num_threads(1)
        line = (f"  batched inference (batches of 1024), network only: torch {rates['torch_1']:,.0f} "
                f"states/s on 1 thread, {rates['torch_2']:,.0f} on 2")
        if "onnx_2" in rates:
            line += f", onnxruntime {rates['onnx_2']:,.0f} on 2"
        print(line)
        end_to_end = 1 / (1 / rates["encode_1"] + 1 / rates["torch_1"])
        print(f"  encoding information states from rules cores: {rates['encode_1']:,.0f} states/s on 1 core; "
              f"encoding + network: {end_to_end:,.0f} states/s per core")


def section_modern_canasta(seconds: float, repeats: int) -> None:
    from games.modern_canasta.core import CanastaState
    print("== Modern American Canasta against OpenSpiel C++ crazy_eights(players=4) ==")
    c8 = pyspiel.load_game("crazy_eights(players=4)")
    game = pyspiel.load_game("python_modern_canasta")
    playout_table(("C++ crazy_eights via pyspiel", c8.new_initial_state), "Canasta",
                  [("rules core", CanastaState), ("via pyspiel", game.new_initial_state)],
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


def section_search_defaults(seconds: float, repeats: int) -> None:
    from scripts.bench_search import section_search_defaults as run
    run(seconds, repeats)


def section_value(seconds: float, repeats: int) -> None:
    from scripts.bench_search import section_value as run
    run(seconds, repeats)


def section_engine(seconds: float, repeats: int) -> None:
    from scripts.bench_engine import section_engine as run
    run(seconds, repeats)


def section_luck(seconds: float, repeats: int) -> None:
    from scripts.bench_luck import section_luck as run
    run(seconds, repeats)


def section_american_page_one(seconds: float, repeats: int) -> None:
    from games.american_page_one.core import AmericanPageOneRules, AmericanPageOneState
    print("== American Page One (4 players) against OpenSpiel C++ "
          "crazy_eights(players=4,use_special_cards=true) ==")
    c8 = pyspiel.load_game("crazy_eights(players=4,use_special_cards=true)")
    game = pyspiel.load_game("python_american_page_one(players=4)")
    rules = AmericanPageOneRules()
    playout_table(("C++ crazy_eights via pyspiel", c8.new_initial_state), "American Page One",
                  [("rules core", lambda: AmericanPageOneState(rules)),
                   ("via pyspiel", game.new_initial_state)], seconds, repeats)
    print("  (random play rarely empties a hand: most random deals stop at the 1000-turn cap)")
    state = mid_game_state(game, 1, steps=60)
    clones = rounds({"pyspiel": lambda: clone_cost_us(state, seconds / 2),
                     "core": lambda: clone_cost_us(state.core, seconds / 2),
                     "crazy_eights": lambda: clone_cost_us(mid_game_state(c8, 1), seconds / 2)},
                    repeats)
    print(f"  clone via pyspiel {clones['pyspiel']:.2f} us, core clone {clones['core']:.2f} us, "
          f"C++ crazy_eights clone {clones['crazy_eights']:.2f} us")
    resample_along_long_deal()


def resample_along_long_deal() -> None:
    """One resample at each of the viewer's turns in tests/data's long deal (five
    reshuffles): a fresh view each time, as the first view of a search, against
    the view that starts from the player's previous one, as a game goes on."""
    from games.american_page_one.belief import BeliefView
    record = json.loads((Path(__file__).parents[1] / "tests" / "data" / "apo_long_deal.json").read_text())
    state = pyspiel.load_game(record["game"]).new_initial_state()
    viewer, rng = record["viewer"], random.Random(0)
    fresh = kept = 0.0
    turns = 0
    for action in record["actions"]:
        state.apply_action(action)
        core = state.core
        if core.current_player() != viewer:
            continue
        turns += 1
        start = time.perf_counter()
        BeliefView(core, viewer).sample(core, rng.random)
        fresh += time.perf_counter() - start
        start = time.perf_counter()
        core.resample_from_infostate(viewer, rng.random)
        kept += time.perf_counter() - start
    print(f"  resampling at each of the viewer's {turns} turns of a {len(record['actions'])}-action deal: "
          f"fresh views {fresh:.1f} s, views kept from the last {kept:.1f} s ({fresh / kept:.1f}x)")


def section_learner(seconds: float, repeats: int) -> None:
    from scripts.bench_learner import section_learner as run
    run(seconds, repeats)


def section_classic_canasta(seconds: float, repeats: int) -> None:
    from scripts.bench_classic_canasta import section_classic_canasta as run
    run(seconds, repeats)


SECTIONS: dict[str, Callable[[float, int], None]] = {
    "page_one": section_page_one,
    "neural": section_neural,
    "modern_canasta": section_modern_canasta,
    "harness": section_harness,
    "search": section_search,
    "search_defaults": section_search_defaults,
    "american_page_one": section_american_page_one,
    "engine": section_engine,
    "classic_canasta": section_classic_canasta,
    "value": section_value,
    "luck": section_luck,
    "learner": section_learner,
}


MAX_SECONDS = 3600.0          # a measurement's time, at most: past it a typo, not a benchmark
MAX_REPEATS = 1000


def main(argv: list[str] | None = None) -> None:
    """Runs the sections asked for. A time that is not a positive, finite number
    of seconds (a loop timed against NaN never ends) or a count out of range is
    refused with one line and exit code 2."""
    from scripts.cli_checks import CliParser, integer, number
    parser = CliParser(prog="cardarena bench", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", choices=sorted(SECTIONS),
                        help="run only this section (repeatable)")
    parser.add_argument("--seconds", type=number(0, MAX_SECONDS, open_low=True), default=1.0,
                        help=f"CPU time per measurement, more than 0 and at most {MAX_SECONDS:g} (default 1)")
    parser.add_argument("--repeats", type=integer(1, MAX_REPEATS), default=5,
                        help="interleaved rounds per measure (default 5)")
    args = parser.parse_args(argv)
    for name in args.only or SECTIONS:
        SECTIONS[name](args.seconds, args.repeats)


if __name__ == "__main__":
    main()
