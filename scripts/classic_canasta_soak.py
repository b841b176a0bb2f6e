"""Classic Canasta soak test: many whole hands for 2, 3 and 4 players, checked at every step.

    python -m scripts.classic_canasta_soak --random 20000 --rules 2000

Random hands play uniformly random legal actions; rule hands seat rule-based bots
at every seat. After every step it checks that the 108 cards are all in one place
each, that a player to move has a legal action, and that no hand holds a red 3;
it prints how the hands ended and how long they were. Exits non-zero on the
first violation, printing the state.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter

import pyspiel
from tqdm import tqdm

import games  # noqa: F401  (registers the games)
from agents import make_bot
from games.classic_canasta.core import EV_TAKE, EV_WITHDRAW
from games.classic_canasta.invariants import violation

END_NAMES = ("went out", "last card a red 3", "stock exhausted")


def soak(label: str, hands: int, players: int, bots: str, seed: int, quiet: bool = False) -> Counter:
    """Plays `hands` hands (bots: random or rules at every seat), checking every step;
    exits on a violation. Returns the counts it printed."""
    rng = random.Random(seed)
    game = pyspiel.load_game(f"python_classic_canasta(players={players})")
    stats: Counter = Counter()
    start = time.perf_counter()
    for h in tqdm(range(hands), desc=f"{label}, {players} players", disable=quiet, leave=False):
        core = game.new_initial_state().core
        seats = [make_bot(bots, game, seat, h) for seat in range(players)] if bots == "rules" else None
        while True:
            problem = violation(core)
            if problem:
                print(f"{label} ({players} players) hand {h}: {problem}\n{core}", file=sys.stderr)
                sys.exit(1)
            if core.is_terminal():
                break
            if core.is_chance_node():
                core.apply_action(core.sample_chance_outcome(rng.random()))
                stats["chance steps"] += 1
            else:
                if seats is None:
                    legal = core.legal_actions()
                    core.apply_action(legal[int(rng.random() * len(legal))])
                else:
                    core.apply_action(seats[core.to_move].step(core))
                stats["decisions"] += 1
            stats["states checked"] += 1
        events = core.events()
        stats[END_NAMES[events[-1][2]]] += 1
        stats["piles taken"] += sum(kind == EV_TAKE for kind, _, _ in events)
        stats["withdrawals"] += sum(kind == EV_WITHDRAW for kind, _, _ in events)
        stats["canastas"] += sum(core.canastas)
        stats["concealed"] += core.concealed
    if not quiet:
        elapsed = time.perf_counter() - start
        print(f"== {label}, {players} players: {hands:,} hands in {elapsed:,.0f} s, 0 violations")
        print(f"  states checked: {stats['states checked']:,} (every step of every hand)")
        print("  ended: " + ", ".join(f"{name} {stats[name] / hands:.1%}" for name in END_NAMES))
        per_hand = ("decisions", "chance steps", "piles taken", "withdrawals", "canastas", "concealed")
        print("  per hand: " + ", ".join(f"{k} {stats[k] / hands:.2f}" for k in per_hand))
    return stats


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--random", type=int, default=20_000, help="random hands per player count")
    parser.add_argument("--rules", type=int, default=2_000, help="rule-bot hands per player count")
    parser.add_argument("--players", type=int, action="append", choices=(2, 3, 4),
                        help="player counts (default: 2, 3 and 4)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for players in args.players or (2, 3, 4):
        if args.random:
            soak("random hands", args.random, players, "random", args.seed + players)
        if args.rules:
            soak("rule-based bots", args.rules, players, "rules", args.seed + 10 + players)


if __name__ == "__main__":
    main()
