"""The Ray backend: games played on a Ray cluster, or on a local Ray instance.

Each Ray task plays a batch of games in a one-process eval.workers.LocalPool
kept by the Ray worker, so a bot that kills its process is caught and blamed
exactly as with the local backend, and the Ray worker itself survives. Ray
retries a task whose Ray worker was lost (a node failure, not a bot's fault).
"""

from __future__ import annotations

from typing import Iterable, Iterator

from eval.config import TournamentConfig
from eval.play import GameRecord
from eval.schedule import GameTask
from eval.workers import LocalPool

GAMES_PER_TASK = 8
_pools: dict[TournamentConfig, LocalPool] = {}


def _play_batch(config: TournamentConfig, tasks: list[GameTask]) -> list[GameRecord]:
    """Runs in a Ray worker process."""
    pool = _pools.get(config)
    if pool is None:
        pool = _pools[config] = LocalPool(config, 1)
    return list(pool.run(tasks))


class RayPool:
    """Plays tasks as Ray tasks; `run` yields records as batches end.

    Connects to the cluster at `address`, or starts a local Ray instance with
    `workers` CPUs (and stops it at `close`) when no address is given.
    """

    def __init__(self, config: TournamentConfig, workers: int, address: str | None = None):
        try:
            import ray
        except ImportError:
            raise ValueError("the ray backend needs Ray: pip install ray") from None
        self.ray = ray
        self.config = config
        self.owns_ray = not ray.is_initialized() and address is None
        if not ray.is_initialized():
            kwargs = {"address": address} if address else {"num_cpus": workers}
            ray.init(include_dashboard=False, log_to_driver=False, **kwargs)
        self.in_flight = max(1, 2 * int(ray.cluster_resources().get("CPU", workers)))
        self.remote = ray.remote(max_retries=3)(_play_batch)
        self.config_ref = ray.put(config)

    def close(self) -> None:
        if self.owns_ray:
            self.ray.shutdown()

    def __enter__(self) -> "RayPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def run(self, tasks: Iterable[GameTask]) -> Iterator[GameRecord]:
        ray = self.ray
        tasks = list(tasks)
        batches = iter([tasks[i:i + GAMES_PER_TASK] for i in range(0, len(tasks), GAMES_PER_TASK)])
        pending = []
        try:
            while True:
                while len(pending) < self.in_flight and (batch := next(batches, None)) is not None:
                    pending.append(self.remote.remote(self.config_ref, batch))
                if not pending:
                    return
                done, pending = ray.wait(pending, num_returns=1)
                yield from ray.get(done[0])
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
