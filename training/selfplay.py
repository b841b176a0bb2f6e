"""Self-play data: games of one policy in every seat, played and stored by the
tournament harness (so they run on local processes or on Ray, resume where they
stopped, and keep every move), then read back as positions.

    from training.selfplay import selfplay, positions
    path = selfplay("python_modern_canasta", "neural", deals=2000, out="runs/sp.db", workers=2)
    for sample in positions(path, per_game=16, seed=0): ...

A position is a decision node of a stored game: the exact state (every hand),
the player to move, and the game's final returns, which are the labels of the
value network (what the state was worth under the policy) and, with the true
hands, of the belief network.
"""

from __future__ import annotations

import csv
import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np
import pyspiel

from agents.base import rules_core
from eval.records import records_from_results
from eval.schedule import derive_seed
from eval.tournament import TournamentConfig, run_tournament

_POSITIONS = 61     # seed domain of the positions drawn from each game


def selfplay(game: str, policy: str, deals: int, out: str | os.PathLike, *, seed: int = 0,
             workers: int = 1, backend: str = "local", address: str | None = None,
             progress: bool = True) -> Path:
    """Plays `deals` games of `policy` in every seat (one game a deal, no seat
    rotations: every seat plays the same bot) into the results file `out`, or
    extends it; returns its path."""
    config = TournamentConfig.create(game, [f"a={policy}", f"b={policy}"], deals, seed, duplicate=False)
    run_tournament(config, out, workers=workers, backend_name=backend, address=address, progress=progress)
    return Path(out)


@dataclass
class Position:
    """One decision of a self-play game: the state before it (a rules core), the
    player to move, the game's returns, and which game it came from."""

    state: object
    player: int
    returns: list[float]
    game_index: int
    move: int


def positions(path: str | os.PathLike, *, per_game: int, seed: int = 0,
              games: range | None = None) -> Iterator[Position]:
    """Up to `per_game` decisions drawn uniformly (without replacement) from each
    finished game without a fault in the results file, in stored order; with
    `games`, only the games whose index (in that order) lies in it. The draw of a
    game's decisions depends on the seed and the game's index only."""
    index = -1
    for _, record in records_from_results(path, fault=False):
        if record.returns is None:
            continue
        index += 1
        if games is not None and index not in games:
            continue
        game = pyspiel.load_game(record.game)
        state = rules_core(game.new_initial_state())
        decisions = [i for i, m in enumerate(record.moves) if m.actor >= 0]
        chosen = set(random.Random(derive_seed(_POSITIONS, seed, index)).sample(
            decisions, min(per_game, len(decisions))))
        for i, move in enumerate(record.moves):
            if i in chosen:
                yield Position(state.clone(), move.actor, list(record.returns), index, i)
            state.apply_action(move.action)


def count_games(path: str | os.PathLike) -> int:
    """The finished games without a fault in a results file."""
    return sum(1 for _, r in records_from_results(path, fault=False) if r.returns is not None)


def held_out_games(games: np.ndarray, share: float) -> tuple[np.ndarray, np.ndarray]:
    """Masks of rows to train on and to hold out: the last `share` of the games,
    whole games, so that no held-out position shares a game with a training one."""
    last = int(games.max())
    cut = last - max(1, int(round(share * (last + 1)))) + 1
    return games < cut, games >= cut


def write_curve(curve: list[dict], stem: Path | str, title: str, ylabel: str) -> None:
    """A learning curve as `<stem>.curve.csv` and a plot of its train and held-out columns, `.curve.png`."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(f"{stem}.curve.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(curve[0]))
        writer.writeheader()
        writer.writerows(curve)
    keys = [k for k in curve[0] if k != "epoch"][:2]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for key, label in zip(keys, ("training", "held out")):
        ax.plot([r["epoch"] for r in curve], [r[key] for r in curve], label=label)
    ax.set_xlabel("epoch")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(f"{stem}.curve.png", dpi=120)
    plt.close(fig)
