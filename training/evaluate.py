"""A neural network against another bot on duplicate deals.

`harness_match` (the learning curve) plays a bot file of the network with
the tournament harness (eval.tournament): duplicate deals, every
rotation of each lineup, Elo and mean return with bootstrap intervals.

`duplicate_match` (`python -m training.evaluate`) is the plain version
for one fixed seating: each deal is played twice with the same chance seed,
first with the network in the even seats and the opponent in the odd ones, then
the other way round. A deal's score is the network's mean return over its
seats in both games; the interval is over deals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyspiel

from agents import make_bot
from agents.neural.bot import NeuralBot
from agents.neural.network import PolicyValueNet
from eval.match import play_game


@dataclass(frozen=True)
class HarnessResult:
    games: int
    mean_return: float
    return_low: float
    return_high: float
    elo: float                 # over the opponent
    elo_low: float
    elo_high: float


def harness_match(game: pyspiel.Game, bot_path: Path, opponent: str, deals: int, seed: int,
                  workdir: Path) -> HarnessResult:
    """The bot file's network (its file's play settings) against the bot spec
    `opponent`, in the harness; the results go to `workdir`."""
    from eval.tournament import TournamentConfig, run_tournament
    results = workdir / "eval_results.db"
    results.unlink(missing_ok=True)       # the network changed: a new tournament
    config = TournamentConfig.create(str(game), [f"network=neural(path={bot_path})",
                                                 f"opponent={opponent}"], deals, seed)
    summary = run_tournament(config, results, workers=1, progress=False, anchor="opponent",
                             bootstrap=200)
    row = next(r for r in summary.rows if r.name == "network")
    return HarnessResult(summary.games, row.mean_return, row.return_low, row.return_high,
                         row.elo, row.elo_low, row.elo_high)


@dataclass(frozen=True)
class DuplicateResult:
    deals: int
    games: int
    mean_return: float
    mean_return_ci: float
    win_rate: float
    win_rate_ci: float


def _mean_ci(values: np.ndarray) -> tuple[float, float]:
    if len(values) < 2:
        return float(values.mean()), math.inf
    return float(values.mean()), float(1.96 * values.std(ddof=1) / math.sqrt(len(values)))


def duplicate_match(game: pyspiel.Game, net: PolicyValueNet, opponent: str, deals: int,
                    seed: int) -> DuplicateResult:
    """The greedy policy of `net` against the bot spec `opponent`."""
    n = game.num_players()
    scores = np.zeros(deals)
    wins = np.zeros(deals)
    for d in range(deals):
        for rotation in (0, 1):
            mine = [(s + rotation) % 2 == 0 for s in range(n)]
            bots = [NeuralBot(game, s, seed + s, net) if mine[s]
                    else make_bot(opponent, game, s, seed * 7 + d * n + s) for s in range(n)]
            returns, _ = play_game(game, bots, seed * 1_000_003 + d)
            seats = [s for s in range(n) if mine[s]]
            scores[d] += sum(returns[s] for s in seats) / len(seats) / 2
            wins[d] += (max(returns[s] for s in seats) == max(returns)) / 2
    mean, mean_ci = _mean_ci(scores)
    win, win_ci = _mean_ci(wins)
    return DuplicateResult(deals, 2 * deals, mean, mean_ci, win, win_ci)


def main(argv: list[str] | None = None) -> None:
    """`python -m training.evaluate BOT_FILE [--deals N] [--opponent SPEC]`: the strength
    table row of a bot file against another bot, on duplicate deals."""
    import argparse

    from agents.neural.botfile import load_bot

    parser = argparse.ArgumentParser(prog="python -m training.evaluate", description=main.__doc__)
    parser.add_argument("bot_file")
    parser.add_argument("--opponent", default="rules")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args(argv)
    bot = load_bot(args.bot_file)
    game = pyspiel.load_game(bot.identity.game_string)
    r = duplicate_match(game, bot.net, args.opponent, args.deals, args.seed)
    print(f"{args.bot_file} (greedy) vs {args.opponent} on {game}: {r.games} games, {r.deals} duplicate deals\n"
          f"  mean return per seat {r.mean_return:+.4f} ± {r.mean_return_ci:.4f}   "
          f"share of games won {r.win_rate:.4f} ± {r.win_rate_ci:.4f}  (95% intervals over deals)")


if __name__ == "__main__":
    main()
