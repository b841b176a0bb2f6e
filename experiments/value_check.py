"""Value networks side by side on the same states and the same playouts.

    cardarena selfplay --game python_modern_canasta --policy neural --deals 300 --seed 4370 \
        --out runs/check.db
    python -m experiments.value_check --game python_modern_canasta --data runs/check.db \
        --policy neural --positions 200 --playouts 16 \
        bots/python_modern_canasta.4p.value.safetensors runs/new.value.safetensors

Each network's held-out error in its training report is measured on its own data,
so two networks trained on different self-play cannot be compared by their reports.
Here one set of states (one a game of `--data`, games none of them trained on) and
one set of playouts of `--policy` from each (training.value.playout_values) judge
them all. Each network's error against the states' values is printed as the
training report gives it, and, for every network after the first, the difference
of its mean squared error from the first's with a 95% interval over the states:
the playouts' own noise is the same for both and cancels from that difference.
"""

from __future__ import annotations

import json
import math
import os
import sys

import numpy as np
import pyspiel

import games  # noqa: F401  (registers our games)
from scripts.cli_checks import CliParser, game_string, integer


def compare(outcomes, networks: dict[str, object]) -> dict:
    """Every network's errors (PlayoutValues.summary), and each one's mean squared
    error less the first's, with its 95% interval, in the game's units squared."""
    report, first = {}, None
    for name, network in networks.items():
        squared = outcomes.squared_errors(network)
        row = outcomes.summary(squared)
        if first is None:
            first = squared
        else:
            diff = squared - first
            half = 1.96 * diff.std(ddof=1) / math.sqrt(len(diff))
            row["mse_less_first"] = [float(diff.mean()), float(diff.mean() - half), float(diff.mean() + half)]
        report[name] = row
    return report


def main(argv: list[str] | None = None) -> int:
    parser = CliParser(prog="python -m experiments.value_check", description=__doc__.split("\n\n")[0])
    parser.add_argument("networks", nargs="+", metavar="FILE", help="value network files, the first the reference")
    parser.add_argument("--game", required=True, type=game_string)
    parser.add_argument("--data", required=True, help="a self-play results file none of the networks trained on")
    parser.add_argument("--policy", default="rules", help="the bot that plays the playouts (default rules)")
    parser.add_argument("--positions", type=integer(1, 10 ** 6), default=200)
    parser.add_argument("--playouts", type=integer(2, 10 ** 4), default=16)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    from search.value import value_network
    from training.value import playout_values
    game = pyspiel.load_game(args.game)
    try:
        networks = {path: value_network(path, game) for path in args.networks}
    except (ValueError, OSError) as e:
        parser.error(str(e))
    if not os.path.isfile(args.data):
        parser.error(f"--data {args.data}: no such file")
    outcomes = playout_values(game, args.data, range(10 ** 9), positions=args.positions,
                              playouts=args.playouts, policy=args.policy, seed=args.seed)
    report = {"game": args.game, "data": args.data, "policy": args.policy, "seed": args.seed,
              "networks": compare(outcomes, networks)}
    json.dump(report, sys.stdout, indent=2)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
