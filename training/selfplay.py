"""Self-play data: games of one policy in every seat, played and stored by the
tournament harness (so they run on local processes or on Ray, resume where they
stopped, and keep every move), then read back as positions.

    from training.selfplay import selfplay, positions
    path = selfplay(game, "neural", deals=2000, out="runs/sp.db", workers=2)
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
from eval.results_records import records_from_results
from games.seeding import derive_seed
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


def check_data(path: str | os.PathLike, game: pyspiel.Game) -> None:
    """Refuses a results file whose games are not `game` (the same game string): a
    network learns one game with one set of parameters."""
    from eval.storage import ResultsDB, ResultsFileError
    try:
        with ResultsDB.read(path) as db:
            played = db.config().game
    except ResultsFileError as e:
        raise ValueError(str(e)) from None
    if str(pyspiel.load_game(played)) != str(game):
        raise ValueError(f"--data {path} holds games of {played}, not {game}")


def count_games(path: str | os.PathLike) -> int:
    """The finished games without a fault in a results file."""
    return sum(1 for _, r in records_from_results(path, fault=False) if r.returns is not None)


def held_out_games(games: np.ndarray, share: float) -> tuple[np.ndarray, np.ndarray]:
    """Masks of rows to train on and to hold out: the last `share` of the games,
    whole games, so that no held-out position shares a game with a training one."""
    last = int(games.max())
    cut = last - max(1, int(round(share * (last + 1)))) + 1
    return games < cut, games >= cut


def outputs(out: Path | str) -> dict[str, tuple[Path, str]]:
    """What a training command writes beside its network file, with each file's kind (records.files)."""
    from records import files
    stem = Path(out).with_suffix("")
    return {"network": (Path(out), files.NETWORK),
            "curve": (Path(f"{stem}.curve.csv"), files.CURVE_CSV),
            "plot": (Path(f"{stem}.curve.png"), f"{files.FIGURE}: {PLOT_MAKER}"),
            "report": (Path(f"{stem}.report.json"), files.TRAINING_JSON),
            "onnx": (Path(f"{stem}.onnx"), files.ONNX_TWIN)}


def check_outputs(out: Path | str, data: Path | str | None | list, force: bool) -> None:
    """Refuses, before any work, outputs that would replace an input (`data`: one,
    or a list, None for none) or a file of another kind (records.files.check_output);
    the network file only with `force` if it exists."""
    from records.files import check_output
    inputs = [p for p in (data if isinstance(data, list) else [data]) if p is not None]
    for name, (path, kind) in outputs(out).items():
        check_output(path, kind, inputs=inputs,
                     force=force if name == "network" else None,
                     option="--out" if name == "network" else f"--out's {name}")


def write_report(out: Path | str, report: dict) -> None:
    import json

    from records.files import TRAINING_REPORT_KEY, write_text_whole
    write_text_whole(outputs(out)["report"][0], json.dumps({TRAINING_REPORT_KEY: 1, **report}, indent=2))


PLOT_MAKER = "a training run"


def write_curve(curve: list[dict], out: Path | str, title: str, ylabel: str) -> None:
    """A learning curve beside the network file `out`: `<stem>.curve.csv`, and a plot of its
    train and held-out columns, `<stem>.curve.png`, each written whole."""
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from records.files import FIGURE_KEY, write_text_whole, write_whole
    paths = outputs(out)
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=list(curve[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(curve)
    write_text_whole(paths["curve"][0], text.getvalue())
    keys = [k for k in curve[0] if k != "epoch"][:2]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for key, label in zip(keys, ("training", "held out")):
        ax.plot([r["epoch"] for r in curve], [r[key] for r in curve], label=label)
    ax.set_xlabel("epoch")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    write_whole(paths["plot"][0], lambda tmp: fig.savefig(tmp, dpi=120, format="png",
                                                          metadata={FIGURE_KEY: PLOT_MAKER}))
    plt.close(fig)
