"""Learning a belief network: where the cards a seat cannot see lie, from its information.

    cardarena train-belief --game GAME --data runs/sp.db --out runs/belief.safetensors

Read top to bottom:
1. Data: positions drawn from the self-play games of a results file
   (training.selfplay), `--per-game` a game, split by whole games. Input: the
   player to move's information-state tensor (the same as the policy
   networks'); label: the true places of its hidden cards, the game's
   `hidden_cards` (a count per place and card kind; games.protocol).
2. Model: a multilayer perceptron giving a logit per place and kind; for each
   kind a softmax over the places that can hold a hidden card (search.belief's
   mask, from what the seat knows: each place's count, each kind's count), so
   q(place | kind) is the chance that a hidden copy of the kind lies there.
   Loss: the negative log-likelihood of the true places, per hidden card.
3. Held out: the log-likelihood per hidden card, as perplexity (exp of its
   negative), beside the exact uniform resampler's: the game's own
   `resample_from_infostate` drawn `--uniform-worlds` times at each checked
   position, its marginal q(place | kind) estimated from those worlds
   (smoothed by half a world, so no place it allows is given 0); and the
   calibration of the network's probabilities (expected calibration error, and
   a table of predicted against observed shares by bins).
4. Output: a network file (search.netfile, kind "belief") that search bots
   read with `belief=FILE`, the learning curve, and a report.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyspiel

from agents.neural.encoding import InfoStateEncoder
from search.belief import hidden_layout, mask_of, masked_log_softmax
from search.netfile import Mlp, save
from training.selfplay import held_out_games, positions, write_curve, write_report


@dataclass
class BeliefData:
    """Information-state tensors, true hidden layouts (rows, places, kinds), and each row's game."""

    x: np.ndarray
    y: np.ndarray
    games: np.ndarray


def build_data(game: pyspiel.Game, path: str | os.PathLike, per_game: int, seed: int,
               progress: bool = True) -> BeliefData:
    from tqdm import tqdm
    encoder = InfoStateEncoder(game)
    xs, ys, gs = [], [], []
    for p in tqdm(positions(path, per_game=per_game, seed=seed), desc="positions", unit="pos",
                  disable=not progress, mininterval=2.0):
        layout = hidden_layout(p.state, p.player)
        if not layout.sum():
            continue                  # nothing hidden: nothing to learn
        encoder.observer.set_from(p.state, p.player)
        xs.append(np.array(encoder.observer.tensor, np.float32))
        ys.append(layout)
        gs.append(p.game_index)
    if not xs:
        raise ValueError(f"{path}: no position with hidden cards to learn from")
    return BeliefData(np.stack(xs), np.stack(ys).astype(np.float32), np.asarray(gs))


def split(data: BeliefData, held_out: float) -> tuple[BeliefData, BeliefData]:
    train, test = held_out_games(data.games, held_out)
    return (BeliefData(data.x[train], data.y[train], data.games[train]),
            BeliefData(data.x[test], data.y[test], data.games[test]))


def train(data: BeliefData, test: BeliefData, *, hidden: tuple[int, ...], epochs: int, batch: int,
          lr: float, seed: int, device: str, weight_decay: float = 0.0, progress: bool = True):
    """Fits the network; returns (layers as numpy (weight, bias), curve rows)."""
    import torch
    from torch import nn
    from tqdm import tqdm
    torch.manual_seed(seed)
    if device == "cpu":
        torch.set_num_threads(1)
    shape = data.y.shape[1:]
    width, layers = data.x.shape[1], []
    for h in hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers.append(nn.Linear(width, math.prod(shape)))
    net = nn.Sequential(*layers).to(device)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=weight_decay)

    def tensors(d: BeliefData):
        y = torch.from_numpy(d.y).to(device)
        mask = (y.sum(dim=2, keepdim=True) > 0) & (y.sum(dim=1, keepdim=True) > 0)
        return torch.from_numpy(d.x).to(device), y, mask

    def loss_of(x, y, mask):
        logits = net(x).view(-1, *shape).masked_fill(~mask, -1e9)
        logp = torch.log_softmax(logits, dim=1)
        return -(y * logp).sum() / y.sum()

    x, y, mask = tensors(data)
    tx, ty, tmask = tensors(test)
    gen = torch.Generator().manual_seed(seed)
    curve, best, best_state = [], math.inf, None
    for epoch in tqdm(range(1, epochs + 1), desc="epochs", unit="epoch", disable=not progress):
        net.train()
        order = torch.randperm(len(x), generator=gen).to(device)
        total, cards = 0.0, 0.0
        for start in range(0, len(x), batch):
            idx = order[start:start + batch]
            loss = loss_of(x[idx], y[idx], mask[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            n = float(y[idx].sum())
            total += float(loss.detach()) * n
            cards += n
        net.eval()
        with torch.no_grad():
            held = float(loss_of(tx, ty, tmask))
        curve.append({"epoch": epoch, "train_nll_per_card": total / cards, "held_out_nll_per_card": held})
        if held < best:
            best = held
            best_state = {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
    net.load_state_dict(best_state)
    linear = [m for m in net if isinstance(m, nn.Linear)]
    return [(m.weight.detach().cpu().numpy(), m.bias.detach().cpu().numpy()) for m in linear], curve


def network_log_q(mlp: Mlp, x: np.ndarray, layouts: np.ndarray) -> np.ndarray:
    """log q(place | kind) for rows of information-state tensors, masked by their layouts' margins."""
    logits = mlp(x).reshape(len(x), *layouts.shape[1:])
    return np.stack([masked_log_softmax(logits[i], mask_of(layouts[i])) for i in range(len(x))])


def uniform_log_q(state, player: int, worlds: int, rng: random.Random) -> np.ndarray:
    """The exact uniform resampler's log q(place | kind) at a position, from
    `worlds` draws, smoothed by half a world spread over the places it allows."""
    layouts = [hidden_layout(state.resample_from_infostate(player, rng.random), player) for _ in range(worlds)]
    stack = np.stack(layouts)
    kinds = stack[0].sum(axis=0)
    allowed = mask_of(stack[0])
    counts = stack.sum(axis=0) + 0.5 * allowed * kinds / np.maximum(allowed.sum(axis=0), 1)
    with np.errstate(divide="ignore"):
        return np.where(allowed, np.log(counts / np.maximum((worlds + 0.5) * kinds, 1e-12)), -np.inf)


def per_card_nll(log_q: np.ndarray, layouts: np.ndarray) -> float:
    """Mean negative log-likelihood of the true places, per hidden card."""
    cells = layouts > 0
    return float(-(layouts[cells] * log_q[cells]).sum() / layouts.sum())


def calibration(log_q: np.ndarray, layouts: np.ndarray, bins: int = 10) -> tuple[float, list[dict]]:
    """Expected calibration error of q(place | kind) against the observed share of
    the kind's hidden copies at the place, weighted by copies; and the table."""
    kinds = layouts.sum(axis=1, keepdims=True)                 # (rows, 1, kinds)
    q = np.exp(log_q)
    share = layouts / np.maximum(kinds, 1)
    weight = np.broadcast_to(kinds, layouts.shape)
    valid = (weight > 0) & np.isfinite(log_q)
    q, share, weight = q[valid], share[valid], weight[valid]
    edges = np.linspace(0, 1, bins + 1)
    rows, ece = [], 0.0
    for i in range(bins):
        inside = (q >= edges[i]) & ((q < edges[i + 1]) if i < bins - 1 else (q <= 1))
        w = weight[inside].sum()
        if not w:
            continue
        predicted = float((q[inside] * weight[inside]).sum() / w)
        observed = float((share[inside] * weight[inside]).sum() / w)
        rows.append({"bin": f"{edges[i]:.1f}-{edges[i + 1]:.1f}", "copies": float(w),
                     "predicted": round(predicted, 4), "observed": round(observed, 4)})
        ece += w * abs(predicted - observed)
    return float(ece / weight.sum()), rows


def held_out_report(game: pyspiel.Game, layers, test: BeliefData, path, held: range, *, check_positions: int,
                    uniform_worlds: int, seed: int, progress: bool = True) -> dict:
    """The network against the uniform resampler on held-out positions (see the module docstring)."""
    from tqdm import tqdm
    mlp = Mlp(list(layers))
    log_q = network_log_q(mlp, test.x, test.y)
    ece, table = calibration(log_q, test.y)
    report = {"positions": int(len(test.y)), "games": int(len(np.unique(test.games))),
              "nll_per_card_network": per_card_nll(log_q, test.y), "calibration_error": ece,
              "calibration": table}
    report["perplexity_network"] = math.exp(report["nll_per_card_network"])
    if check_positions:
        encoder = InfoStateEncoder(game)
        rng = random.Random(seed)
        net_nll, uni_nll, cards = 0.0, 0.0, 0.0
        checked = 0
        for p in tqdm(positions(path, per_game=1, seed=seed + 1, games=held), total=min(check_positions, len(held)),
                      desc="uniform resampler", unit="pos", disable=not progress):
            if checked >= check_positions:
                break
            layout = hidden_layout(p.state, p.player)
            if not layout.sum():
                continue
            checked += 1
            encoder.observer.set_from(p.state, p.player)
            x = np.array(encoder.observer.tensor, np.float32)[None]
            n = float(layout.sum())
            net_nll += per_card_nll(network_log_q(mlp, x, layout[None])[0], layout) * n
            uni_nll += per_card_nll(uniform_log_q(p.state, p.player, uniform_worlds, rng), layout) * n
            cards += n
        report["checked_positions"] = checked
        report["checked_nll_per_card_network"] = net_nll / cards
        report["checked_nll_per_card_uniform"] = uni_nll / cards
        report["perplexity_checked_network"] = math.exp(net_nll / cards)
        report["perplexity_checked_uniform"] = math.exp(uni_nll / cards)
        report["perplexity_reduction"] = 1 - math.exp((net_nll - uni_nll) / cards)
    return report


def run(args: argparse.Namespace) -> dict:
    """The whole recipe (see the module docstring); returns the report it writes."""
    game = pyspiel.load_game(args.game)
    started = time.time()
    data = build_data(game, args.data, args.per_game, args.seed, progress=not args.quiet)
    fit, test = split(data, args.held_out)
    layers, curve = train(fit, test, hidden=tuple(args.hidden), epochs=args.epochs, batch=args.batch,
                          weight_decay=args.weight_decay,
                          lr=args.lr, seed=args.seed, device=args.device, progress=not args.quiet)
    held = range(int(test.games.min()), int(test.games.max()) + 1)
    report = held_out_report(game, layers, test, args.data, held, check_positions=args.check_positions,
                             uniform_worlds=args.uniform_worlds, seed=args.seed, progress=not args.quiet)
    out = Path(args.out)
    training = {"method": "belief: cross-entropy of the hidden cards' places on self-play",
                "data": str(args.data), "per_game": args.per_game, "hidden": list(args.hidden),
                "epochs": args.epochs, "batch": args.batch, "lr": args.lr,
                "weight_decay": args.weight_decay, "seed": args.seed,
                "train_positions": int(len(fit.y)),
                "held_out": {k: v for k, v in report.items() if k != "calibration"}}
    save(out, layers, kind="belief", game=str(game), short_name=game.get_type().short_name,
         players=game.num_players(), output_shape=list(data.y.shape[1:]), training=training)
    write_curve(curve, out, f"belief network, {game.get_type().short_name}", "log-loss per hidden card")
    report["seconds"] = round(time.time() - started, 1)
    if args.onnx:
        from training.onnx_twin import twin_of
        report["onnx"] = str(twin_of(out, "belief"))
    write_report(out, report)
    return report
