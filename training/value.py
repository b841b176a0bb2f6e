"""Learning a value network: what a full state is worth under a policy, by regression.

    cardarena train-value --game GAME --data runs/sp.db --out runs/value.safetensors

Read top to bottom (as CleanRL writes an algorithm):
1. Data: positions drawn from the self-play games of a results file
   (training.selfplay), `--per-game` a game; the games are split, not the
   positions, so that no held-out position shares a game with a training one.
2. Input: every seat's observation tensor from the player to move round the
   table (search.value.FullStateEncoder); target: every seat's return in the
   same order, divided by `scale` (the returns' standard deviation, so the
   network learns numbers near 1 whatever the game's units).
3. Model: a multilayer perceptron, ReLU between layers, squared error, AdamW,
   minibatches; after each epoch the held-out error is measured and the best
   epoch's weights are kept.
4. Output: a network file (search.netfile, kind "value") that search bots read
   with `value=FILE`, the learning curve as CSV and PNG beside it.

The held-out error is reported beside predicting every return as 0 (the mean
of a zero-sum game). Against playouts (`playout_check`): from held-out states,
K playouts of the policy each estimate the state's true value; the network's
error is measured against that estimate (less the estimate's own noise), beside
the error of one playout, which is what a search's rollout gives.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyspiel

from search.netfile import save
from search.value import FullStateEncoder
from training.selfplay import held_out_games, write_curve, write_report


@dataclass
class ValueData:
    """Inputs and targets (seat order from the player to move), and each row's game."""

    x: np.ndarray
    y: np.ndarray
    games: np.ndarray


def build_data(game: pyspiel.Game, path: str | os.PathLike, per_game: int, seed: int,
               progress: bool = True) -> ValueData:
    """The value network's rows from the self-play games of a results file."""
    from tqdm import tqdm

    from training.selfplay import positions
    encoder = FullStateEncoder(game)
    n = game.num_players()
    xs, ys, gs = [], [], []
    for p in tqdm(positions(path, per_game=per_game, seed=seed), desc="positions", unit="pos",
                  disable=not progress, mininterval=2.0):
        xs.append(encoder.encode(p.state, p.player))
        ys.append([p.returns[(p.player + k) % n] for k in range(n)])
        gs.append(p.game_index)
    if not xs:
        raise ValueError(f"{path}: no finished game to learn from")
    return ValueData(np.stack(xs), np.asarray(ys, np.float32), np.asarray(gs))


def split(data: ValueData, held_out: float) -> tuple[ValueData, ValueData]:
    """The last `held_out` share of the games held out (whole games)."""
    train, test = held_out_games(data.games, held_out)
    return (ValueData(data.x[train], data.y[train], data.games[train]),
            ValueData(data.x[test], data.y[test], data.games[test]))


def train(data: ValueData, test: ValueData, *, hidden: tuple[int, ...], epochs: int, batch: int,
          lr: float, seed: int, device: str, weight_decay: float = 0.0, progress: bool = True):
    """Fits the network; returns (layers as numpy (weight, bias), scale, curve rows)."""
    import torch
    from torch import nn
    from tqdm import tqdm
    torch.manual_seed(seed)
    if device == "cpu":
        torch.set_num_threads(1)     # small layers: one thread is faster than two contending
    scale = float(data.y.std()) or 1.0
    width, layers = data.x.shape[1], []
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers.append(nn.Linear(width, data.y.shape[1]))
    net = nn.Sequential(*layers).to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=weight_decay)
    x = torch.from_numpy(data.x).to(device)
    y = torch.from_numpy(data.y / scale).to(device)
    tx = torch.from_numpy(test.x).to(device)
    ty = torch.from_numpy(test.y / scale).to(device)
    gen = torch.Generator().manual_seed(seed)
    curve, best, best_state = [], math.inf, None
    for epoch in tqdm(range(1, epochs + 1), desc="epochs", unit="epoch", disable=not progress):
        net.train()
        order = torch.randperm(len(x), generator=gen).to(device)
        total = 0.0
        for start in range(0, len(x), batch):
            idx = order[start:start + batch]
            loss = ((net(x[idx]) - y[idx]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        net.eval()
        with torch.no_grad():
            held = float(((net(tx) - ty) ** 2).mean())
        curve.append({"epoch": epoch, "train_mse": total / len(x), "held_out_mse": held})
        if held < best:
            best = held
            best_state = {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
    net.load_state_dict(best_state)
    linear = [m for m in net if isinstance(m, nn.Linear)]
    return [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()) for m in linear], scale, curve


def held_out_report(layers, scale: float, test: ValueData) -> dict[str, float]:
    """Root mean squared errors on the held-out positions, in the game's units:
    the network's, predicting 0, and the player to move's own return only."""
    from search.netfile import Mlp
    pred = Mlp([(w, b) for w, b in layers])(test.x) * scale
    err = pred - test.y
    return {"positions": int(len(test.y)), "games": int(len(np.unique(test.games))),
            "rmse_network": float(np.sqrt((err ** 2).mean())),
            "rmse_zero": float(np.sqrt((test.y ** 2).mean())),
            "rmse_network_mover": float(np.sqrt((err[:, 0] ** 2).mean())),
            "r2_mover": float(1 - (err[:, 0] ** 2).mean() / max(test.y[:, 0].var(), 1e-12))}


@dataclass
class PlayoutValues:
    """Held-out states with the policy's playouts from each: `outcomes[i]` are the
    returns of the player to move, `players[i]`, in `playouts` playouts from `states[i]`."""

    states: list
    players: list[int]
    outcomes: np.ndarray

    def errors(self, network) -> dict[str, float]:
        """A network's error against these playouts, in the game's units (summary)."""
        return self.summary(self.squared_errors(network))

    def squared_errors(self, network) -> np.ndarray:
        """Each state's squared difference between the network's value and its playouts' mean."""
        values = np.array([network.values(s)[p] for s, p in zip(self.states, self.players)])
        return (values - self.outcomes.mean(axis=1)) ** 2

    def summary(self, squared: np.ndarray) -> dict[str, float]:
        """From a network's squared errors: its root mean squared error against the
        playouts' mean less that mean's variance (so it estimates the error against the
        state's value itself), beside one playout's error (their standard deviation: the
        error a search's single rollout makes)."""
        spread = self.outcomes.var(axis=1, ddof=1)
        noise = spread / self.outcomes.shape[1]
        return {"positions": len(self.states), "playouts": int(self.outcomes.shape[1]),
                "rmse_network_vs_value": float(math.sqrt(max(0.0, squared.mean() - noise.mean()))),
                "rmse_one_playout": float(math.sqrt(spread.mean())),
                "rmse_network_vs_playout_mean": float(math.sqrt(squared.mean()))}


def playout_values(game: pyspiel.Game, path: str | os.PathLike, games: range, *, positions: int,
                   playouts: int, policy: str, seed: int, progress: bool = True) -> PlayoutValues:
    """`positions` states of the given games of a self-play results file (one a game),
    each with `playouts` playouts of `policy` from it (fresh chance each)."""
    import random

    from tqdm import tqdm

    from games.seeding import derive_seed
    from search.rollout import BotRollout
    from training.selfplay import positions as draw
    rollout = BotRollout.from_spec(policy, game, seed)
    states, players, outcomes = [], [], []
    for p in tqdm(draw(path, per_game=1, seed=seed, games=games), total=min(positions, len(games)),
                  desc="playouts", unit="pos", disable=not progress):
        if len(states) >= positions:
            break
        stream = random.Random(derive_seed(71, seed, len(states) + 1))
        outcomes.append([rollout.evaluate(p.state.clone(), stream.random)[p.player] for _ in range(playouts)])
        states.append(p.state)
        players.append(p.player)
    return PlayoutValues(states, players, np.array(outcomes, dtype=float).reshape(len(states), playouts))


def playout_check(game: pyspiel.Game, network, path: str | os.PathLike, games: range, *, positions: int,
                  playouts: int, policy: str, seed: int, progress: bool = True) -> dict[str, float]:
    """The network's error against the policy's playouts (PlayoutValues.errors), on
    `positions` states of the given (held-out) games of a self-play results file,
    seat values of the player to move."""
    return playout_values(game, path, games, positions=positions, playouts=playouts, policy=policy,
                          seed=seed, progress=progress).errors(network)


def run(args: argparse.Namespace) -> dict:
    """The whole recipe (see the module docstring); returns the report it writes."""
    game = pyspiel.load_game(args.game)
    started = time.time()
    data = build_data(game, args.data, args.per_game, args.seed, progress=not args.quiet)
    fit, test = split(data, args.held_out)
    layers, scale, curve = train(fit, test, hidden=tuple(args.hidden), epochs=args.epochs, batch=args.batch,
                          weight_decay=args.weight_decay,
                                 lr=args.lr, seed=args.seed, device=args.device, progress=not args.quiet)
    report = held_out_report(layers, scale, test)
    out = Path(args.out)
    training = {"method": "value regression on self-play", "data": str(args.data), "per_game": args.per_game,
                "hidden": list(args.hidden), "epochs": args.epochs, "batch": args.batch, "lr": args.lr,
                "weight_decay": args.weight_decay,
                "seed": args.seed, "train_positions": int(len(fit.y)), "held_out": report}
    save(out, layers, kind="value", game=str(game), short_name=game.get_type().short_name,
         players=game.num_players(), output_shape=[game.num_players()], scale=scale, training=training)
    write_curve(curve, out, f"value network, {game.get_type().short_name}",
                "mean squared error (scaled returns)")
    if args.check_positions:
        from search.value import value_network
        held = range(int(test.games.min()), int(test.games.max()) + 1)
        report["playout_check"] = playout_check(game, value_network(str(out), game), args.data, held,
                                                positions=args.check_positions, playouts=args.check_playouts,
                                                policy=args.check_policy, seed=args.seed,
                                                progress=not args.quiet)
    report["seconds"] = round(time.time() - started, 1)
    if args.onnx:
        from training.onnx_twin import twin_of
        report["onnx"] = str(twin_of(out, "value"))
    write_report(out, report)
    return report
