"""How well a network's value head predicts the return, by the stage of the deal.

    python -m experiments.value_quality bots/earlier/python_modern_canasta_expert.safetensors \
        bots/earlier/python_modern_canasta_dmc.safetensors --game python_modern_canasta

A value at a search's horizon (search.evaluation) replaces playing to the end
with a guess, so before a network's value head can serve as one it must predict
the return. Rule bots play `--deals` deals (seeds `--seed`, `--seed` + 1, ...);
every `--every`-th decision the mover's information-state tensor is kept with the
mover's return at the end (divided by the game's return scale, the scale of the
network's values). For each bot file the script prints, over all positions and
over each third of the deal (by the share of its decisions already made), the
correlation of the value head with the return and R² (1 - mean squared error /
variance of the return: 0 is no better than the mean, below 0 worse).
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import pyspiel

import games  # noqa: F401  (registers our games)

STAGES = ((0.0, 1.0, "whole deal"), (0.0, 1 / 3, "first third"), (1 / 3, 2 / 3, "middle third"),
          (2 / 3, 1.0, "last third"))


def rule_bot_positions(game: pyspiel.Game, deals: int, seed: int, every: int
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(information-state tensors, the mover's scaled return, the share of the deal's
    decisions made before) at every `every`-th decision of `deals` rule-bot deals."""
    from tqdm import tqdm

    from agents import make_bot
    from agents.base import rules_core
    from training.dmc import return_scale
    from agents.neural.encoding import InfoStateEncoder
    from games.chance import DealChance
    encoder, scale = InfoStateEncoder(game), return_scale(game)
    bots = [make_bot("rules", game, seat, seat) for seat in range(game.num_players())]
    obs, returns, stage = [], [], []
    for deal in tqdm(range(deals), desc="rule-bot deals", unit="deal", mininterval=2.0):
        state, chance = rules_core(game.new_initial_state()), DealChance(seed + deal)
        kept, decisions = [], 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(chance(state))
                continue
            player, legal = state.current_player(), state.legal_actions()
            if decisions % every == 0:
                tensor = np.zeros(encoder.size, np.float32)
                encoder.encode(state, player, legal, tensor, np.zeros(encoder.num_actions, np.float32))
                kept.append((tensor, player, decisions))
            decisions += 1
            state.apply_action(bots[player].step(state))
        final = state.returns()
        for tensor, player, made in kept:
            obs.append(tensor)
            returns.append(final[player] / scale)
            stage.append(made / decisions)
    return np.array(obs), np.array(returns), np.array(stage)


def fit(predicted: np.ndarray, actual: np.ndarray) -> tuple[float, float]:
    """(correlation, R²) of the predictions against the actual returns."""
    r2 = 1.0 - float(np.mean((actual - predicted) ** 2)) / float(np.var(actual))
    return float(np.corrcoef(predicted, actual)[0, 1]), r2


def load_value_heads(paths: list[str], game: pyspiel.Game) -> dict:
    """Each bot file's network, refused (ValueError, OSError) if it is not a bot file of `game`."""
    from agents.neural.botfile import load_bot
    from agents.neural.encoding import GameIdentity
    return {path: load_bot(path, GameIdentity.of(game)).net.eval() for path in paths}


def predict(net, obs: np.ndarray) -> np.ndarray:
    import torch
    with torch.no_grad():
        return net.action_values(torch.from_numpy(obs))[1].numpy()


def main(argv: list[str] | None = None) -> None:
    from scripts.cli_checks import CliParser, game_string, integer, one_line, seed
    p = CliParser(prog="python -m experiments.value_quality", description=__doc__.split("\n\n")[1],
                  formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("bot_files", nargs="+", metavar="BOTFILE", help="bot files whose value heads to measure")
    p.add_argument("--game", type=game_string, default="python_modern_canasta", help="game string")
    p.add_argument("--deals", type=integer(1, 10**6), default=150, help="rule-bot deals")
    p.add_argument("--seed", type=seed, default=1000, help="the first deal's seed")
    p.add_argument("--every", type=integer(1, 10**6), default=7, help="keep every N-th decision")
    args = p.parse_args(argv)
    game = pyspiel.load_game(args.game)
    try:
        nets = load_value_heads(args.bot_files, game)          # a bad file is refused before any deal
    except (ValueError, OSError) as e:
        print(f"python -m experiments.value_quality: error: {one_line(e)}", file=sys.stderr)
        raise SystemExit(2) from None
    obs, returns, stage = rule_bot_positions(game, args.deals, args.seed, args.every)
    predictions = {path: predict(net, obs) for path, net in nets.items()}
    print(f"{len(returns)} positions of {args.deals} rule-bot deals ({args.game}, seeds {args.seed} to "
          f"{args.seed + args.deals - 1}, every {args.every}th decision); the return's standard deviation "
          f"{returns.std():.4f} (scaled)\n")
    print("| bot file | stage | positions | correlation | R² |\n|---|---|---:|---:|---:|")
    for path, predicted in predictions.items():
        for low, high, name in STAGES:
            chosen = (stage >= low) & ((stage < high) | (high == 1.0))
            correlation, r2 = fit(predicted[chosen], returns[chosen])
            print(f"| {path} | {name} | {int(chosen.sum())} | {correlation:+.3f} | {r2:+.3f} |")


if __name__ == "__main__":
    main()
