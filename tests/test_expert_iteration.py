"""Expert iteration (training/expert.py): search games with the network as
prior, the network trained on the search's root values, rated each iteration."""

from __future__ import annotations

import csv
import random

import numpy as np
import pyspiel
import pytest
import torch

import games  # noqa: F401
from agents import make_bot
from training import expert
from agents.neural.botfile import load_bot, save_bot
from agents.neural.config import NetworkConfig
from training.dmc import return_scale
from agents.neural.encoding import GameIdentity, InfoStateEncoder
from agents.neural.network import PolicyValueNet
from agents.neural.symmetry import symmetry_for
from tests import conformance

PAGE_ONE = "python_page_one(players=4)"
SEARCH = "ismcts(iterations=12,rollout=rules)"
torch.set_num_threads(1)


@pytest.fixture(scope="module")
def game() -> pyspiel.Game:
    return pyspiel.load_game(PAGE_ONE)


@pytest.fixture(scope="module")
def start(game, tmp_path_factory):
    torch.manual_seed(0)
    identity = GameIdentity.of(game)
    path = tmp_path_factory.mktemp("start") / "start.safetensors"
    save_bot(path, PolicyValueNet(identity.tensor_size, identity.num_actions, NetworkConfig(hidden=(32,))),
             identity, {"note": "test"})
    return path


def test_a_bot_file_trained_on_the_visit_shares_says_so(start, tmp_path):
    cfg = expert.ExpertConfig(PAGE_ONE, str(start), SEARCH, iterations=1, games=1, workers=1, eval_deals=1,
                              seed=5, out=str(tmp_path / "run"), policy_weight=1.0)
    method = load_bot(expert.run(cfg, progress=False)).training["method"]
    assert "root values and its visit shares" in method


def test_one_iteration_writes_a_bot_file_whose_scores_moved_toward_the_search(game, start, tmp_path):
    cfg = expert.ExpertConfig(PAGE_ONE, str(start), SEARCH, iterations=1, games=3, workers=1, eval_deals=2,
                              seed=5, out=str(tmp_path / "run"), epochs=30, lr=1e-3)
    last = expert.run(cfg, progress=False)
    assert last == tmp_path / "run" / "iter_1.safetensors"
    trained, first = load_bot(last), load_bot(start)
    assert any(not torch.equal(a, b) for a, b in zip(trained.net.state_dict().values(),
                                                        first.net.state_dict().values()))
    assert trained.training["method"].startswith("expert iteration")
    assert "visit shares" not in trained.training["method"]          # policy_weight 0: values only
    assert trained.training["search"] == SEARCH and trained.training["iteration"] == 1
    with open(tmp_path / "run" / expert.CURVE_CSV) as f:
        rows = list(csv.DictReader(f))
    assert [r["iteration"] for r in rows] == ["0", "1"]
    assert int(rows[1]["games"]) == 3 and int(rows[1]["samples"]) > 0 and int(rows[1]["eval_games"]) > 0
    # The loss on the iteration's samples, before and after its training: the scores moved toward the
    # search's values.
    assert float(rows[1]["loss_after"]) < 0.9 * float(rows[1]["loss_before"])
    assert (tmp_path / "run" / expert.CURVE_PNG).stat().st_size > 0


def test_a_fixed_teacher_is_the_searchs_prior_at_every_iteration(game, start, tmp_path, monkeypatch):
    torch.manual_seed(1)
    identity = GameIdentity.of(game)
    teacher = tmp_path / "teacher.safetensors"
    save_bot(teacher, PolicyValueNet(identity.tensor_size, identity.num_actions, NetworkConfig(hidden=(16,))),
             identity, {"note": "test teacher"})
    specs = []
    real = expert.search_games

    def recording(game, spec, *args, **kwargs):
        specs.append(spec)
        return real(game, spec, *args, **kwargs)

    monkeypatch.setattr(expert, "search_games", recording)
    cfg = expert.ExpertConfig(PAGE_ONE, str(start), SEARCH, iterations=2, games=1, workers=1, eval_deals=1,
                              seed=5, out=str(tmp_path / "run"), teacher=str(teacher))
    last = load_bot(expert.run(cfg, progress=False))
    assert specs == [expert.search_spec(SEARCH, teacher)] * 2       # never the network being trained
    assert f"the fixed teacher {teacher} as prior" in last.training["method"]
    assert last.training["settings"]["teacher"] == str(teacher)
    assert f"prior fixed: {teacher}" in expert.curve_title(cfg) and "DAgger" not in expert.curve_title(cfg)
    # the student keeps the start's shape; only the teacher's prior differs
    assert last.net.config == load_bot(start).net.config


def test_under_dagger_the_network_moves_and_the_search_labels_its_positions(game, start):
    spec = expert.search_spec(SEARCH, start)
    mover = f"neural(path={start})"
    rows, returns = expert.play_search_game(game, spec, deal_seed=3, bot_seed=9, mover=mover)
    # Replay the deal with the network in every seat: the same game, move for move.
    from agents.base import rules_core
    from games.chance import DealChance
    bots = [make_bot(mover, game, seat, 9 + seat) for seat in range(game.num_players())]
    state, chance, decisions = rules_core(game.new_initial_state()), DealChance(3), 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(chance(state))
            continue
        if len(state.legal_actions()) > 1:
            assert rows[decisions][0] == state.current_player()
            decisions += 1
        state.apply_action(bots[state.current_player()].step(state))
    assert decisions == len(rows) and returns == [r / return_scale(game) for r in state.returns()]
    # the samples are still the search's: its visit shares, and its own choice as `played`
    searched = [row for _, row, _ in rows]
    assert all(abs(share.sum() - 1) < 1e-5 for _, _, share, _, _ in searched)
    assert all(share[played] == share.max() for (_, (_, _, share, _, _), played) in rows)


def test_samples_hold_the_search_statistics_in_the_networks_scale(game, start):
    spec = expert.search_spec(SEARCH, start)
    rows, returns = expert.play_search_game(game, spec, deal_seed=3, bot_seed=9)
    samples = expert._game_samples(rows, returns)
    assert len(samples) == len(rows) > 0
    assert np.allclose(samples.share.sum(1), 1.0)
    assert np.all(samples.share[~samples.legal] == 0)              # only legal actions are visited
    assert np.all(samples.legal[np.arange(len(samples)), samples.played])
    assert np.all(np.abs(samples.value) <= 1.0) and np.all(np.abs(samples.root) <= 1.0)
    # The root value is the visit-weighted mean of the actions' values.
    assert np.allclose((samples.share * samples.value).sum(1), samples.root, atol=1e-5)
    assert sorted(set(samples.outcome.tolist())) <= sorted(r / return_scale(game) for r in returns)
    # The same seeds play the same game.
    again = expert._game_samples(*expert.play_search_game(game, spec, deal_seed=3, bot_seed=9))
    assert np.array_equal(again.obs, samples.obs) and np.array_equal(again.value, samples.value)


def test_the_samples_are_the_same_with_two_worker_processes(game, start):
    spec = expert.search_spec(SEARCH, start)
    one = expert.search_games(game, spec, games=3, seed=2, iteration=1, workers=1, progress=False)
    two = expert.search_games(game, spec, games=3, seed=2, iteration=1, workers=2, progress=False)
    for field in expert.Samples.__dataclass_fields__:
        assert np.array_equal(getattr(one, field), getattr(two, field)), field


def test_a_sample_holds_only_the_movers_information(game, start):
    """The sample made on a world resampled from the mover's information state
    (tensor, legal actions, the search's statistics and move) is the true state's."""
    spec = expert.search_spec(SEARCH, start)
    encoder, scale = InfoStateEncoder(game), return_scale(game)
    rng = random.Random(4)
    states = [s for s in conformance.random_states(game, 30, 2) if len(s.legal_actions()) > 1]
    redealt = 0
    for state in states:
        me = state.current_player()
        world = state.resample_from_infostate(me, rng.random)
        redealt += str(world) != str(state)
        move, sample = expert.decision_sample(make_bot(spec, game, me, 7), state.core, encoder, scale)
        move_there, sample_there = expert.decision_sample(make_bot(spec, game, me, 7), world.core, encoder, scale)
        assert move == move_there
        for a, b in zip(sample, sample_there):
            assert np.array_equal(a, b)
    assert len(states) >= 8 and redealt >= len(states) // 2


def test_relabelling_moves_every_per_action_target_with_its_action(game):
    symmetry = symmetry_for(game, InfoStateEncoder(game).observer)
    rng = np.random.default_rng(1)
    obs = rng.random((16, symmetry.obs_index.shape[1])).astype(np.float32)
    actions = rng.integers(0, game.num_distinct_actions(), 16)
    onehot = np.zeros((16, game.num_distinct_actions()), np.float32)
    onehot[np.arange(16), actions] = 1.0
    values = rng.random(onehot.shape).astype(np.float32)
    new_obs, (new_onehot, new_values) = expert.relabel(symmetry, obs, [onehot, values], np.random.default_rng(7))
    aug_obs, aug_actions = symmetry.augment(obs, actions, np.random.default_rng(7))
    assert np.array_equal(new_obs, aug_obs)
    assert np.array_equal(new_onehot.argmax(1), aug_actions)
    assert np.allclose(np.sort(new_values, 1), np.sort(values, 1))       # a permutation of each row
    assert not np.array_equal(new_values, values)


@pytest.mark.parametrize("argv, message", [
    (["--games", "0"], "--games: 0 is out of range"),
    (["--search", "rules"], "must be one of ismcts, pimc"),
    (["--search", "ismcts(iterations=5,prior=rules)"], "leave prior out"),
    (["--search", "ismcts(iterations=5,baseline=rules)"], "baseline= makes the move"),
    (["--search", "ismcts(iterations=5,c=-1)"], "c=-1: must be a non-negative number"),
    (["--start", "no/such/file.safetensors"], "no/such/file.safetensors"),
    (["--teacher", "no/such/teacher.safetensors"], "no/such/teacher.safetensors"),
    (["--game", "no_such_game"], "unknown game"),
])
def test_bad_options_are_refused_with_one_line(argv, message, start, tmp_path, capsys):
    base = {"--start": str(start), "--out": str(tmp_path / "run"), "--search": SEARCH}
    for flag, value in zip(argv[::2], argv[1::2]):
        base[flag] = value
    with pytest.raises(SystemExit) as e:
        expert.main([x for pair in base.items() for x in pair])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err
    assert not (tmp_path / "run" / expert.CURVE_CSV).exists()
