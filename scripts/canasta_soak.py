"""Modern American Canasta soak test: many whole hands, checked at every step.

    python -m scripts.canasta_soak --random 20000 --rules 2000

Random hands play uniformly random legal actions; rule hands seat four rule-based
bots. After every step it checks that the 108 cards are all in one place each,
that a player to move has a legal action, and that nobody melding or discarding
holds a 3; it prints how the hands ended and how long they were. Exits non-zero
on the first violation, printing the state.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter

import pyspiel

import games  # noqa: F401  (registers the games)
from agents import make_bot
from games.modern_canasta.core import EV_ANSWER, EV_ASK, EV_TAKE, EV_WITHDRAW
from games.modern_canasta.invariants import violation

END_NAMES = ("went out", "last card a 3", "stock exhausted")


def soak(label: str, hands: int, choose, seed: int) -> Counter:
    rng = random.Random(seed)
    game = pyspiel.load_game("python_modern_canasta")
    stats: Counter = Counter()
    start = time.perf_counter()
    for h in range(hands):
        core = game.new_initial_state().core
        pick = choose(game, h)
        while True:
            problem = violation(core)
            if problem:
                print(f"{label} hand {h}: {problem}\n{core}", file=sys.stderr)
                sys.exit(1)
            if core.is_terminal():
                break
            if core.is_chance_node():
                core.apply_action(core.sample_chance_outcome(rng.random()))
                stats["chance steps"] += 1
            else:
                core.apply_action(pick(core, rng))
                stats["decisions"] += 1
            stats["states checked"] += 1
        events = core.events()
        stats[END_NAMES[events[-1][2]]] += 1
        for kind, _, value in events:
            stats["asks"] += kind == EV_ASK
            stats["yes answers"] += kind == EV_ANSWER and value
            stats["piles taken"] += kind == EV_TAKE
            stats["withdrawals"] += kind == EV_WITHDRAW
        stats["canastas"] += len(core.canastas[0]) + len(core.canastas[1])
        stats["points 0-2 minus 1-3"] += core.scores[0].total - core.scores[1].total
    elapsed = time.perf_counter() - start
    print(f"== {label}: {hands:,} hands in {elapsed:,.0f} s, 0 violations")
    per_hand = ("decisions", "chance steps", "asks", "yes answers", "piles taken", "withdrawals",
                "canastas", "points 0-2 minus 1-3")
    print(f"  states checked: {stats['states checked']:,} (every step of every hand)")
    print("  ended: " + ", ".join(f"{name} {stats[name] / hands:.1%}" for name in END_NAMES))
    print("  per hand: " + ", ".join(f"{k} {stats[k] / hands:.2f}" for k in per_hand))
    return stats


def random_chooser(game, hand_index):
    def pick(core, rng):
        legal = core.legal_actions()
        return legal[int(rng.random() * len(legal))]
    return pick


def rules_chooser(game, hand_index):
    bots = [make_bot("rules", game, seat, hand_index) for seat in range(4)]
    return lambda core, rng: bots[core.to_move].step(core)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--random", type=int, default=20_000, help="random hands")
    parser.add_argument("--rules", type=int, default=2_000, help="hands between rule-based bots")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.random:
        soak("random hands", args.random, random_chooser, args.seed)
    if args.rules:
        soak("rule-based bots", args.rules, rules_chooser, args.seed + 1)


if __name__ == "__main__":
    main()
