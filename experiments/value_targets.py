"""Does a less noisy target make a better value network? The game's return against the mean of K.

    python -m experiments.value_targets --game python_modern_canasta --data runs/sp.db \
        --policy rules --per-game 4 --outcomes 8 --out runs/targets
    python -m experiments.value_check --game python_modern_canasta --data runs/fresh.db \
        --policy rules runs/targets.return.safetensors runs/targets.mean.safetensors

A value network learns from each position's one return (training/value.py), a single
playout of the self-play policy: one playout's error is 1.2x to 3.3x the network's
(docs/networks.md). Here the same positions (`--per-game` from each game of `--data`)
get a second target, the mean of their own return and `--outcomes` - 1 further
playouts of `--policy` from them (fresh chance each, two processes), and two networks
of the shipped shape learn from the same rows, one from each target, with the
recipe of training/value.py. Written: OUT.return.safetensors and OUT.mean.safetensors;
judge them with experiments/value_check.py on fresh games.
"""

from __future__ import annotations

import multiprocessing
import os
import random

import numpy as np
import pyspiel

import games  # noqa: F401  (registers our games)
from scripts.cli_checks import CliParser, game_string, integer


def _rows(args: tuple[str, str, str, int, int, int, int]):
    """One process's share of the rows: (inputs, returns, mean outcomes, game indices)."""
    game_string, data, policy, per_game, outcomes, shard, shards = args
    from games.seeding import derive_seed
    from search.rollout import BotRollout
    from search.value import FullStateEncoder
    from training.selfplay import positions
    game = pyspiel.load_game(game_string)
    encoder, n = FullStateEncoder(game), game.num_players()
    rollout = BotRollout.from_spec(policy, game, 43)
    xs, returns, means, index = [], [], [], []
    for p in positions(data, per_game=per_game, seed=43):
        if p.game_index % shards != shard:
            continue
        rand = random.Random(derive_seed(72, 43, p.game_index, p.move)).random
        own = [p.returns[(p.player + k) % n] for k in range(n)]
        runs = [own]
        for _ in range(outcomes - 1):
            r = rollout.evaluate(p.state.clone(), rand)
            runs.append([r[(p.player + k) % n] for k in range(n)])
        xs.append(encoder.encode(p.state, p.player))
        returns.append(own)
        means.append(np.mean(runs, axis=0))
        index.append(p.game_index)
    return np.stack(xs), np.array(returns, np.float32), np.array(means, np.float32), np.array(index)


def main(argv: list[str] | None = None) -> int:
    parser = CliParser(prog="python -m experiments.value_targets", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", required=True, type=game_string)
    parser.add_argument("--data", required=True, help="a self-play results file (cardarena selfplay)")
    parser.add_argument("--policy", default="rules", help="the bot of the further playouts: the self-play policy")
    parser.add_argument("--per-game", type=integer(1, 10 ** 4), default=4)
    parser.add_argument("--outcomes", type=integer(1, 10 ** 4), default=8,
                        help="outcomes a position's mean target averages")
    parser.add_argument("--out", required=True, help="the networks' path, less .return/.mean.safetensors")
    parser.add_argument("--processes", type=integer(1, 256), default=2)
    args = parser.parse_args(argv)
    if not os.path.isfile(args.data):
        parser.error(f"--data {args.data}: no such file")
    from search.netfile import save
    from training.value import ValueData, split, train
    jobs = [(args.game, args.data, args.policy, args.per_game, args.outcomes, k, args.processes)
            for k in range(args.processes)]
    with multiprocessing.Pool(args.processes) as pool:
        parts = pool.map(_rows, jobs)
    x, returns, means, index = (np.concatenate([part[i] for part in parts]) for i in range(4))
    order = np.argsort(index, kind="stable")       # the rows in game order, whatever the processes
    x, returns, means, index = x[order], returns[order], means[order], index[order]
    print(f"{len(index)} positions from {len(np.unique(index))} games; variance of the mover's target: "
          f"return {returns[:, 0].var():.3f}, mean of {args.outcomes} {means[:, 0].var():.3f}")
    game = pyspiel.load_game(args.game)
    for name, target in (("return", returns), ("mean", means)):
        fit, test = split(ValueData(x, target, index), 0.1)
        layers, scale, curve = train(fit, test, hidden=(256, 256), epochs=25, batch=256, lr=3e-4, seed=43,
                                     device="cpu", progress=False)
        best = min(curve, key=lambda row: row["held_out_mse"])
        save(f"{args.out}.{name}.safetensors", layers, kind="value", game=str(game),
             short_name=game.get_type().short_name, players=game.num_players(), output_shape=[game.num_players()],
             scale=scale, training={"method": f"value regression on the {name} target", "data": args.data,
                                    "per_game": args.per_game, "outcomes": args.outcomes})
        print(f"{name}: best held-out epoch {best['epoch']} of {len(curve)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
