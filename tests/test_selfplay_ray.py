"""Self-play for the networks' data on a Ray cluster of two nodes (ray.cluster_utils.Cluster
starts one on this machine): the same games, move for move, as in local processes."""

from __future__ import annotations

import pytest

from eval.results_records import records_from_results
from training.selfplay import positions, selfplay


def _games(path) -> list[tuple]:
    return sorted((gid, tuple(m.action for m in r.moves), tuple(r.returns)) for gid, r in records_from_results(path))


def test_self_play_on_a_two_node_ray_cluster_plays_the_local_games(tmp_path):
    ray = pytest.importorskip("ray")
    from ray.cluster_utils import Cluster
    game = "python_classic_canasta(players=2)"
    local = selfplay(game, "rules", 6, tmp_path / "local.db", seed=5, workers=1, progress=False)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        remote = selfplay(game, "rules", 6, tmp_path / "ray.db", seed=5, workers=2, backend="ray",
                          address=cluster.address, progress=False)
        assert len([n for n in ray.nodes() if n["Alive"]]) == 2       # the run joined the two-node cluster
    finally:
        if ray.is_initialized():
            ray.shutdown()
        cluster.shutdown()
    assert _games(remote) == _games(local) and len(_games(local)) == 6
    drawn = [(p.game_index, p.move) for p in positions(remote, per_game=3, seed=1)]
    assert drawn == [(p.game_index, p.move) for p in positions(local, per_game=3, seed=1)] and len(drawn) == 18
