"""The Ray backend: games played on a Ray cluster, or on a local Ray instance.

Each Ray task plays a batch of games in a one-process eval.workers.LocalPool
kept by the Ray worker, so a bot that kills its process is caught and blamed
exactly as with the local backend, and the Ray worker itself survives. Ray
retries a task whose Ray worker was lost (a node failure, not a bot's fault).

An address where no cluster answers is refused at once (nothing listening
there) or after one attempt of Ray's to reach it (something else listening):
Ray by itself keeps trying for many minutes.
"""

from __future__ import annotations

import os
import socket
from typing import Iterable, Iterator

from eval.config import TournamentConfig
from eval.play import GameRecord
from eval.schedule import GameTask
from eval.workers import LocalPool

GAMES_PER_TASK = 8
CONNECT_SECONDS = 5.0        # how long a cluster's address may take to accept a connection
# Ray's own attempts to reach a cluster's control store (about 35 s each; 20 by default).
RAY_CONNECT_ATTEMPTS = "1"
_pools: dict[TournamentConfig, LocalPool] = {}


def _play_batch(config: TournamentConfig, tasks: list[GameTask]) -> list[GameRecord]:
    """Runs in a Ray worker process."""
    pool = _pools.get(config)
    if pool is None:
        pool = _pools[config] = LocalPool(config, 1)
    return list(pool.run(tasks))


def check_reachable(address: str) -> None:
    """Refuses (ValueError, one line) a cluster address that does not parse or
    where nothing accepts a connection within CONNECT_SECONDS. The address is
    the one Ray itself would connect to (`localhost` as the node's own address)."""
    from ray._private.services import canonicalize_bootstrap_address
    target = address[len("ray://"):] if address.startswith("ray://") else address
    if target in ("auto", "local"):
        return
    try:
        host, _, port = canonicalize_bootstrap_address(target).rpartition(":")
        port_number = int(port)
    except Exception:       # Ray's parser raises ValueError, or its host lookup anything
        raise ValueError(f"--address {address!r}: expected host:port (or ray://host:port, auto)") from None
    try:
        socket.create_connection((host.strip("[]"), port_number), timeout=CONNECT_SECONDS).close()
    except OSError as e:
        raise ValueError(f"--address {address}: no Ray cluster answers at {host}:{port} "
                         f"({e.strerror or e or 'no answer'})") from None


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
            if address:
                check_reachable(address)
                os.environ.setdefault("RAY_gcs_server_port_wait_time_s", RAY_CONNECT_ATTEMPTS)
            # "local": a run without an address starts its own instance. Left to itself ray.init
            # joins the last cluster started on this machine (RAY_ADDRESS, or the address a
            # `ray start` or ray.cluster_utils.Cluster wrote under /tmp/ray), and then refuses
            # num_cpus, or plays on (and is stopped with) someone else's cluster.
            kwargs = {"address": address} if address else {"address": "local", "num_cpus": workers}
            try:
                ray.init(include_dashboard=False, log_to_driver=False, **kwargs)
            except ConnectionError as e:
                raise ValueError(f"--address {address}: no Ray cluster answers there ({e})") from None
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
