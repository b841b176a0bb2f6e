"""Running a tournament: plan its games, play those not yet stored, summarise.

    from eval.tournament import TournamentConfig, run_tournament
    config = TournamentConfig.create(game_string, ["random", "rules"], deals=100)
    summary = run_tournament(config, "results.db", workers=2)

Running it again with the same config resumes it: only games missing from the
results file are played, and asking for more deals extends it. Games are played
in worker processes, so a script that runs a tournament needs the usual
`if __name__ == "__main__":` guard.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterable, Iterator

from tqdm import tqdm

from eval.config import TournamentConfig
from games.load import load_game
from eval.play import GameRecord
from eval.ratings import BOOTSTRAP_SAMPLES, Summary, summarize, with_adjusted
from eval.schedule import GameTask, plan_games
from eval.storage import ResultsDB
from eval.workers import LocalPool

BACKENDS = ("local", "ray")

__all__ = ["TournamentConfig", "run_tournament", "load_summary", "planned_games", "play"]


def planned_games(config: TournamentConfig) -> list[GameTask]:
    """Every game of the tournament, in (deal, rotation) order."""
    seats = load_game(config.game).num_players()
    return list(plan_games(seats, len(config.agents), config.deals, config.seed, sides=config.teams,
                           fill_sides=not config.mixed_partners, duplicate=config.duplicate))


@contextmanager
def backend(config: TournamentConfig, workers: int, name: str = "local", address: str | None = None):
    """The pool that plays games: "local" processes or "ray"."""
    if name == "local":
        pool = LocalPool(config, workers)
    elif name == "ray":
        from eval.ray_backend import RayPool
        pool = RayPool(config, workers, address)
    else:
        raise ValueError(f"unknown backend {name!r}; choose from {', '.join(BACKENDS)}")
    try:
        yield pool
    finally:
        pool.close()


def play(db: ResultsDB, pool, tasks: Iterable[GameTask], total: int, progress: bool) -> Iterator[GameRecord]:
    """Plays `tasks` on `pool`, storing each game as it ends and showing progress
    (the faults so far, and a game whose bot has been thinking a long time);
    yields the records so a caller (the SPRT) can stop early."""
    tasks = list(tasks)
    status: dict[str, object] = {}
    with tqdm(total=total, initial=total - len(tasks), unit="game", disable=not progress,
              dynamic_ncols=True, smoothing=0.05) as bar:
        def show_wait(waiting: str | None) -> None:
            if waiting != status.get("waiting"):
                if waiting is None:
                    del status["waiting"]
                else:
                    status["waiting"] = waiting
                bar.set_postfix(status)
        records = (pool.run(tasks, on_wait=show_wait) if isinstance(pool, LocalPool) and progress
                   else pool.run(tasks))
        for record in records:
            db.add(record)
            bar.update()
            if record.fault_kind:
                status["faults"] = status.get("faults", 0) + 1
                bar.set_postfix(status, refresh=False)
            yield record
    db.flush()


def run_tournament(config: TournamentConfig, results: str | os.PathLike, *, workers: int = 1,
                   backend_name: str = "local", address: str | None = None, progress: bool = True,
                   anchor: str | None = None, bootstrap: int = BOOTSTRAP_SAMPLES, luck: bool = False,
                   luck_net: str | None = None) -> Summary:
    """Plays the games of `config` missing from `results`, then summarises them all
    (with the luck-adjusted figures beside the plain ones where `luck`)."""
    with ResultsDB.open_for(results, config) as db:
        planned = planned_games(config)
        stored = db.stored_keys()
        todo = [t for t in planned if t.key not in stored]
        if todo:
            with backend(config, workers, backend_name, address) as pool:
                for _ in play(db, pool, todo, len(planned), progress):
                    pass
        return _summary(db, anchor, bootstrap, luck, progress, luck_net,
                        workers if backend_name == "local" else 1)


def load_summary(results: str | os.PathLike, anchor: str | None = None,
                 bootstrap: int = BOOTSTRAP_SAMPLES, luck: bool = False, progress: bool = False,
                 luck_net: str | None = None, workers: int = 1) -> Summary:
    """The summary of whatever a results file holds (`cardarena report`)."""
    with ResultsDB.read(results) as db:
        return _summary(db, anchor, bootstrap, luck, progress, luck_net, workers)


def _summary(db: ResultsDB, anchor: str | None, bootstrap: int, luck: bool, progress: bool,
             luck_net: str | None = None, workers: int = 1) -> Summary:
    """The plain summary, and where `luck` the adjusted one beside it. The luck
    is read where the file stores it and measured from the stored histories for
    the rest (the same numbers the workers would get: a deal's luck depends on
    its actions only), so a results file played without it can be adjusted
    afterwards, in `workers` processes; a tournament stores what it measured.
    ValueError, one line, where the game has no value network to measure it with."""
    config = db.config()
    plain = summarize(config, list(db.games()), anchor, bootstrap)
    if not luck:
        return plain
    from eval.luck import luck_judge, stored_adjusted
    judge = luck_judge(config, luck_net)
    adjusted = stored_adjusted(db, judge, progress, luck_net, workers)
    return with_adjusted(plain, summarize(config, adjusted, plain.anchor, bootstrap), judge.words)
