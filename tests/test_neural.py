"""Neural bots: the network and its bot, the safe bot file, ONNX export, and training."""

from __future__ import annotations

import csv
import json
import os
import pickle
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyspiel
import pytest
import torch
from open_spiel.python.algorithms import evaluate_bots

import games  # noqa: F401
from agents import make_bot
from training import dmc
from agents.neural.bot import SHIPPED_BOTS, NeuralBot
from agents.neural.botfile import BotFileError, load_bot, save_bot
from agents.neural.config import NetworkConfig, TrainConfig
from agents.neural.encoding import GameIdentity, InfoStateEncoder
from agents.neural.network import ILLEGAL_SCORE, PolicyValueNet
from tests import conformance
from tests.suit_support import page_one_suits_relabelled
from tests.test_page_one import swap_hidden

PAGE_ONE = "python_page_one(players=4,jokers=1)"
torch.set_num_threads(1)     # small networks: threads only contend on a shared machine


def small_net(game: pyspiel.Game, seed: int = 0) -> PolicyValueNet:
    torch.manual_seed(seed)
    identity = GameIdentity.of(game)
    return PolicyValueNet(identity.tensor_size, identity.num_actions, NetworkConfig(hidden=(32,)))


@pytest.fixture(scope="module")
def game() -> pyspiel.Game:
    return pyspiel.load_game(PAGE_ONE)


@pytest.fixture(scope="module")
def bot_file(game, tmp_path_factory):
    path = tmp_path_factory.mktemp("bots") / "page_one.safetensors"
    save_bot(path, small_net(game), GameIdentity.of(game), {"note": "test"})
    return path


def test_scores_of_illegal_actions_are_masked_and_bots_play_legal_moves(game):
    net = small_net(game)
    encoder = InfoStateEncoder(game)
    states = list(conformance.random_states(game, 40, 1))
    obs, mask = encoder.batch(states, [s.legal_actions() for s in states])
    scores, value = net(torch.from_numpy(obs), torch.from_numpy(mask))
    assert value.shape == (40,)
    assert torch.all(scores[torch.from_numpy(mask) == 0] == ILLEGAL_SCORE)
    assert torch.all(scores[torch.from_numpy(mask) > 0] > ILLEGAL_SCORE / 2)
    from agents.neural.bot import legal_scores, numpy_layers
    layers = numpy_layers(net)
    for i, state in enumerate(states):
        legal = state.legal_actions()
        assert np.allclose(legal_scores(layers, obs[i], legal), scores[i, legal].detach().numpy(), atol=1e-5)
    for policy in ("greedy", "sample"):
        for state in states:
            bot = NeuralBot(game, state.current_player(), 3, net, policy=policy, temperature=1.0)
            assert bot.step(state) in state.legal_actions()


def test_sampled_policy_varies_and_greedy_does_not(game):
    net = small_net(game)
    state = next(s for s in conformance.random_states(game, 200, 4) if len(s.legal_actions()) >= 3)
    greedy = NeuralBot(game, state.current_player(), 0, net)
    assert len({greedy.step(state) for _ in range(30)}) == 1
    hot = NeuralBot(game, state.current_player(), 0, net, policy="sample", temperature=100.0)
    assert len({hot.step(state) for _ in range(60)}) > 1


@pytest.mark.parametrize("symmetric", [False, True])
def test_neural_bot_does_not_read_hidden_cards(game, symmetric):
    net = small_net(game, seed=5)
    checked = conformance.check_bot_ignores_hidden_cards(
        game, lambda me: NeuralBot(game, me, 0, net, symmetric=symmetric), 150, 6, swap_hidden,
        accept=lambda core: len(core.legal_actions()) > 1)
    assert checked > 30


@pytest.mark.parametrize("search", ["ismcts(iterations=40", "pimc(worlds=3,iterations=15"])
def test_a_search_with_a_network_prior_never_reads_hidden_cards(search, tmp_path):
    """As tests/test_search.py's check: the same search on a world with every card
    the player cannot see redealt gives the same statistics."""
    game_string = "python_page_one(players=4,jokers=2,empty_stock=reshuffle)"
    game = pyspiel.load_game(game_string)
    path = tmp_path / "prior.safetensors"
    save_bot(path, small_net(game, seed=2), GameIdentity.of(game), {"note": "test"})
    spec = f"{search},prior={path})"
    rng = random.Random(11)
    states = [s for s in conformance.random_states(game, 12, 3) if len(s.legal_actions()) > 1]
    for state in states:
        me = state.current_player()
        world = state.resample_from_infostate(me, rng.random)
        assert make_bot(spec, game, me, 7).search(state) == make_bot(spec, game, me, 7).search(world)
    assert len(states) >= 6


def test_the_strongest_canasta_search_never_reads_hidden_cards():
    """PIMC leaving the shipped network's move only on evidence (experiments/logs/search.md, issue 22):
    its statistics and its move are the same on the true state and on a world redealt
    from the mover's information state."""
    game = pyspiel.load_game("python_modern_canasta")
    spec = ("pimc(worlds=2,iterations=3,rollout=rules,prior=bots/earlier/python_modern_canasta_dmc.safetensors,"
            "baseline=neural,confidence=1)")
    rng = random.Random(5)
    states = [s.core for s in conformance.random_states(game, 10, 4) if len(s.legal_actions()) > 1]
    for state in states:
        me = state.current_player()
        world = state.resample_from_infostate(me, rng.random)
        assert make_bot(spec, game, me, 7).search(state) == make_bot(spec, game, me, 7).search(world)
        assert make_bot(spec, game, me, 7).step(state) == make_bot(spec, game, me, 7).step(world)
    assert len(states) >= 5


def test_a_hotter_prior_keeps_the_networks_order_and_spreads_its_probability(game, bot_file):
    """`prior_temperature`: the same scores over a larger temperature, so the search's PUCT
    tries the network's favourites in the same order but leans on them less."""
    states = [s for s in conformance.random_states(game, 60, 9) if len(s.legal_actions()) >= 3][:10]
    assert states
    cold = make_bot(f"ismcts(iterations=5,prior={bot_file})", game, 0, 0).prior
    hot = make_bot(f"ismcts(iterations=5,prior={bot_file},prior_temperature=1)", game, 0, 0).prior
    assert cold.temperature == 0.1 and hot.temperature == 1.0
    for state in states:
        legal, me = state.legal_actions(), state.current_player()
        p, q = cold(state, me, legal), hot(state, me, legal)
        assert list(np.argsort(-p, kind="stable")) == list(np.argsort(-q, kind="stable"))
        assert q.max() < p.max() and abs(float(q.sum()) - 1) < 1e-5


@pytest.mark.parametrize("spec, problem", [
    ("pimc(prior=rules,prior_temperature=0.3)", "applies to a network prior, not to a bot's"),
    ("ismcts(prior_temperature=0.3)", "no prior is given"),
    ("cheat_mcts(prior=shipped,prior_temperature=0)", "must be a number > 0"),
])
def test_a_prior_temperature_without_a_network_prior_is_refused(game, spec, problem):
    with pytest.raises(ValueError, match=problem):
        make_bot(spec, game, 0, 0)


def test_suit_relabelling_of_tensors_and_actions_matches_relabelled_games():
    from agents.neural.symmetry import symmetry_for
    game = pyspiel.load_game("python_page_one(players=4,jokers=2)")
    encoder = InfoStateEncoder(game)
    symmetry = symmetry_for(game, encoder.observer)
    states = list(conformance.random_states(game, 30, 8))
    obs, mask = encoder.batch(states, [s.legal_actions() for s in states])
    for i, state in enumerate(states):
        p = i % len(symmetry.perms)
        other = page_one_suits_relabelled(state.core, symmetry.perms[p])
        other_obs, other_mask = encoder.batch([other], [other.legal_actions()])
        assert np.array_equal(obs[i][symmetry.obs_index[p]], other_obs[0])
        assert sorted(symmetry.action_index[p][state.legal_actions()]) == other.legal_actions()
    rng = np.random.default_rng(0)
    actions = np.array([s.legal_actions()[0] for s in states])
    aug_obs, aug_actions = symmetry.augment(obs, actions, rng)
    assert aug_obs.shape == obs.shape and not np.array_equal(aug_obs, obs)
    assert np.array_equal(np.sort(aug_obs, axis=1), np.sort(obs, axis=1))   # values only move


def test_american_page_one_suit_relabelling_matches_relabelled_games():
    """The same check for American Page One: chance outcomes are card kinds
    (the dealer is fixed, so none is a seat) and actions name kinds or suits."""
    from agents.neural.symmetry import symmetry_for
    from games.american_page_one.game import suit_permuted_action as _american_page_one_action
    from games.cards import suit_permuted as _card
    game = pyspiel.load_game("python_american_page_one(players=3,dealer=0,challenge=true)")
    encoder = InfoStateEncoder(game)
    symmetry = symmetry_for(game, encoder.observer)
    states = list(conformance.random_states(game, 30, 8, max_steps=150))
    obs, _ = encoder.batch(states, [s.legal_actions() for s in states])
    for i, state in enumerate(states):
        p = 1 + i % (len(symmetry.perms) - 1)          # never the identity
        perm = symmetry.perms[p]
        other = game.new_initial_state()
        for action in state.history():
            other.apply_action(_card(action, perm) if other.is_chance_node()
                               else _american_page_one_action(action, perm))
        other_obs, _ = encoder.batch([other], [other.legal_actions()])
        assert np.array_equal(obs[i][symmetry.obs_index[p]], other_obs[0])
        assert sorted(symmetry.action_index[p][state.legal_actions()]) == other.legal_actions()


def test_symmetric_scores_are_the_same_in_every_suit_relabelling(game):
    """symmetric=true averages over the 24 relabellings, so a position and its
    relabelled copy get the same scores for corresponding actions (a plain
    network's differ), and the bot plays corresponding moves."""
    from agents.neural.bot import legal_scores, numpy_layers, suit_symmetry, symmetric_scores
    net = small_net(game, seed=3)
    layers = numpy_layers(net)
    encoder = InfoStateEncoder(game)
    symmetry = suit_symmetry(game, encoder)
    states = [s for s in conformance.random_states(game, 40, 4) if len(s.legal_actions()) > 1]
    plain_differ = 0
    for i, state in enumerate(states):
        p = 1 + i % (len(symmetry.perms) - 1)
        other = page_one_suits_relabelled(state.core, symmetry.perms[p])
        legal = state.legal_actions()
        mapped = [int(a) for a in symmetry.action_index[p][legal]]
        obs, _ = encoder.batch([state], [legal])
        other_obs, _ = encoder.batch([other], [other.legal_actions()])
        assert np.allclose(symmetric_scores(layers, obs[0], legal, symmetry),
                           symmetric_scores(layers, other_obs[0], mapped, symmetry), atol=1e-5)
        plain_differ += not np.allclose(legal_scores(layers, obs[0], legal),
                                        legal_scores(layers, other_obs[0], mapped), atol=1e-5)
        bot = NeuralBot(game, state.current_player(), 0, net, symmetric=True)
        assert mapped[legal.index(bot.step(state))] == bot.step(other)
    assert len(states) > 10 and plain_differ > len(states) // 2


def test_symmetric_needs_a_game_whose_suits_are_interchangeable():
    canasta = pyspiel.load_game("python_modern_canasta")
    with pytest.raises(ValueError, match="symmetric=true: game 'python_modern_canasta' has no suit symmetry"):
        make_bot("neural(symmetric=true)", canasta, 0)
    with pytest.raises(ValueError, match="symmetric='yes': must be true or false"):
        make_bot("neural(symmetric=yes)", pyspiel.load_game(PAGE_ONE), 0)


def test_bot_file_round_trips_and_plays_through_make_bot(game, bot_file):
    loaded = load_bot(bot_file, GameIdentity.of(game))
    original = small_net(game)
    for a, b in zip(original.state_dict().values(), loaded.net.state_dict().values()):
        assert torch.equal(a, b)
    meta = loaded.metadata
    assert meta["game_short_name"] == "python_page_one"
    assert json.loads(meta["game_parameters"])["jokers"] == 1
    assert json.loads(meta["tensor_shape"]) == [GameIdentity.of(game).tensor_size]
    assert meta["num_actions"] == "60" and meta["checksum"].startswith("sha256:")
    assert json.loads(meta["network"]) == {"hidden": [32]}
    bots = [make_bot(f"neural(path={bot_file},policy=sample)" if p % 2 else "rules", game, p, p)
            for p in range(4)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
    assert sum(returns) == pytest.approx(0.0)


def test_bot_file_for_another_game_or_shape_is_refused(bot_file):
    with pytest.raises(BotFileError, match="made for game 'python_page_one', not 'kuhn_poker'"):
        make_bot(f"neural(path={bot_file})", pyspiel.load_game("kuhn_poker"), 0)
    with pytest.raises(BotFileError, match="information-state tensor of .* has"):
        make_bot(f"neural(path={bot_file})", pyspiel.load_game("python_page_one(players=3,jokers=1)"), 0)
    other_params = pyspiel.load_game("python_page_one(players=4,jokers=1,empty_stock=take)")
    with pytest.raises(BotFileError, match="other game parameters .*empty_stock"):
        make_bot(f"neural(path={bot_file})", other_params, 0)
    assert make_bot(f"neural(path={bot_file},strict_params=false)", other_params, 0) is not None


def test_a_match_may_change_the_deal_parameters(tmp_path):
    hand = pyspiel.load_game("python_modern_canasta")
    path = save_bot(tmp_path / "canasta.safetensors", small_net(hand), GameIdentity.of(hand))
    later_hand = pyspiel.load_game("python_modern_canasta(score0=1500,score1=-200,first_player=2)")
    assert make_bot(f"neural(path={path})", later_hand, 1) is not None


def test_truncated_and_tampered_bot_files_are_refused(bot_file, tmp_path):
    data = bot_file.read_bytes()
    for size in (0, 5, 100, len(data) // 2, len(data) - 1):
        cut = tmp_path / f"cut{size}.safetensors"
        cut.write_bytes(data[:size])
        with pytest.raises(BotFileError, match="truncated"):
            load_bot(cut)
    tampered = bytearray(data)
    tampered[-3] ^= 0xFF                 # a bit of the last weight
    (tmp_path / "t.safetensors").write_bytes(bytes(tampered))
    with pytest.raises(BotFileError, match="fails its checksum"):
        load_bot(tmp_path / "t.safetensors")
    with pytest.raises(BotFileError, match="no bot file"):
        load_bot(tmp_path / "missing.safetensors")


class _Payload:
    """A pickle that would leave a file behind if it were ever unpickled."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (str(self.marker), "w"))


def test_pickled_payloads_are_refused_without_running_them(game, tmp_path):
    marker = tmp_path / "ran"
    raw = tmp_path / "raw.safetensors"
    raw.write_bytes(pickle.dumps(_Payload(marker)))
    zipped = tmp_path / "zipped.safetensors"
    torch.save({"model": small_net(game).state_dict(), "evil": _Payload(marker)}, zipped)
    with pytest.raises(BotFileError, match="Python pickle.*could run code"):
        load_bot(raw)
    with pytest.raises(BotFileError, match="torch.save zip.*could run code"):
        make_bot(f"neural(path={zipped})", game, 0)
    with pytest.raises(ValueError, match="cannot read training checkpoint"):
        dmc.load_checkpoint(zipped)       # weights_only refuses the payload too
    assert not marker.exists()


def test_onnx_export_matches_onnxruntime(game, bot_file, tmp_path):
    import onnx
    import onnxruntime
    from training.onnx_export import export_onnx, sample_states

    path = export_onnx(bot_file, tmp_path / "bot.onnx", check_states=64)
    meta = {p.key: p.value for p in onnx.load(str(path)).metadata_props}
    assert meta["game"] == str(game)
    obs, mask = sample_states(game, 32, seed=9)
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    scores, _ = session.run(None, {"obs": obs, "mask": mask})
    net = load_bot(bot_file).net
    with torch.inference_mode():
        ref, _ = net(torch.from_numpy(obs), torch.from_numpy(mask))
    assert np.array_equal(scores.argmax(1), ref.numpy().argmax(1))


def test_actors_record_only_network_decisions_with_their_final_returns(game):
    encoder = InfoStateEncoder(game)
    rules = [[make_bot("rules", game, s, s) for s in range(4)] for _ in range(6)]
    obs, actions, returns, played = dmc.play_batch(game, small_net(game), encoder, rules,
                                                   random.Random(0), 0.1, rules_games=1.0)
    assert played == 6 and len(obs) == len(actions) == len(returns) > 0
    assert obs.shape[1] == encoder.size and obs.dtype == np.float16
    assert np.allclose(returns * 3, np.round(returns * 3)) and np.all(np.abs(returns) <= 1)  # rank returns
    assert np.all((0 <= actions) & (actions < 60))


def test_placement_targets_score_the_finishing_order_not_the_points():
    apo = pyspiel.load_game("python_american_page_one(players=4)")
    returns = [120.0, -30.0, -30.0, -60.0]          # a winner, two tied losers, a last
    assert dmc.training_targets(apo, returns, "return") == [r / 1656 for r in returns]
    assert dmc.training_targets(apo, returns, "placement") == [1.0, 0.0, 0.0, -1.0]
    assert dmc.training_targets(apo, [0.0] * 4, "placement") == [0.0] * 4   # a deal stopped by the turn cap
    with pytest.raises(ValueError, match="target"):
        TrainConfig(target="points")


def test_actors_learn_placements_where_asked():
    apo = pyspiel.load_game("python_american_page_one(players=4)")
    encoder = InfoStateEncoder(apo)
    rules = [[make_bot("rules", apo, s, s) for s in range(4)] for _ in range(2)]
    _, _, targets, played = dmc.play_batch(apo, small_net(apo), encoder, rules, random.Random(0), 0.1,
                                           rules_games=1.0, target="placement")
    assert played == 2 and len(targets) > 0
    assert set(np.round(targets * 3).tolist()) <= {-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0}
    assert np.allclose(targets * 3, np.round(targets * 3))


class _Unusable(PolicyValueNet):
    def forward(self, obs, mask):
        raise AssertionError("the network was consulted")


def test_fully_guided_actors_play_the_rule_bot_without_the_network(game):
    encoder = InfoStateEncoder(game)
    identity = GameIdentity.of(game)
    net = _Unusable(identity.tensor_size, identity.num_actions, NetworkConfig(hidden=(8,)))
    rules = [[make_bot("rules", game, s, s) for s in range(4)] for _ in range(4)]
    obs, actions, _, played = dmc.play_batch(game, net, encoder, rules, random.Random(2), 0.0,
                                             rules_games=0.0, guide=1.0, guide_epsilon=0.0)
    assert played == 4 and len(actions) > 10
    with pytest.raises(AssertionError, match="consulted"):
        dmc.play_batch(game, net, encoder, rules, random.Random(2), 0.0, rules_games=0.0, guide=0.0)


def test_learner_step_fits_monte_carlo_returns(game):
    encoder = InfoStateEncoder(game)
    rules = [[make_bot("rules", game, s, s) for s in range(4)] for _ in range(10)]
    obs, actions, returns, _ = dmc.play_batch(game, small_net(game), encoder, rules,
                                              random.Random(1), 0.2, rules_games=0.5)
    net = small_net(game, seed=2)
    optimizer = torch.optim.Adam(net.parameters(), lr=3e-3)
    o, a, r = torch.from_numpy(obs.astype(np.float32)), torch.from_numpy(actions), torch.from_numpy(returns)
    losses = [dmc.train_step(net, optimizer, o, a, r) for _ in range(100)]
    assert np.mean(losses[-10:]) < 0.5 * np.mean(losses[:10])


def test_training_checkpoints_resumes_and_exports(tmp_path):
    out = tmp_path / "run"
    cfg = TrainConfig(game="python_page_one(players=3)", out=str(out), minutes=0.06, actors=1,
                      games_per_batch=8, buffer_size=4096, batch_size=16, checkpoint_minutes=1.0,
                      eval_deals=2, hidden=[16], guide_minutes=0.05)
    ckpt = dmc.train(cfg, progress=False)
    first = dmc.load_checkpoint(ckpt)
    assert first["stats"]["games"] > 0 and first["stats"]["steps"] > 0
    assert "ema" not in first
    resumed = TrainConfig(**{**first["config"], "minutes": 0.15, "ema": 0.9})   # the average starts here
    dmc.train(resumed, resume=ckpt, progress=False)
    second = dmc.load_checkpoint(ckpt)
    assert second["stats"]["games"] > first["stats"]["games"]
    assert second["stats"]["steps"] > first["stats"]["steps"], (first["stats"], second["stats"])
    assert any(not torch.equal(second["ema"][k], second["model"][k]) for k in second["model"])
    assert second["stats"]["elapsed_s"] > first["stats"]["elapsed_s"] >= 0.06 * 60
    with open(out / dmc.CURVE_CSV) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 and [float(r["minutes"]) for r in rows] == sorted(float(r["minutes"]) for r in rows)
    assert (out / dmc.CURVE_PNG).stat().st_size > 1000
    snapshots = sorted((out / dmc.SNAPSHOTS).glob("*.safetensors"))      # a bot file of every point
    assert len(snapshots) == 2
    assert load_bot(snapshots[-1]).training["games"] == second["stats"]["games"]
    bot_path, onnx_path = dmc.export(ckpt, tmp_path / "b.safetensors")
    assert onnx_path.exists()
    exported = load_bot(bot_path).net.state_dict()
    assert all(torch.equal(exported[k], second["ema"][k]) for k in exported)      # the average is the bot
    assert make_bot(f"neural(path={bot_path})", pyspiel.load_game("python_page_one(players=3)"), 1) is not None


def test_the_weight_average_moves_by_one_minus_the_decay():
    a, b = small_net(pyspiel.load_game("python_page_one"), 0), small_net(pyspiel.load_game("python_page_one"), 1)
    before = [p.clone() for p in a.parameters()]
    dmc.update_average(a, b, 0.75)
    for new, old, target in zip(a.parameters(), before, b.parameters()):
        assert torch.allclose(new, 0.75 * old + 0.25 * target)


def test_bad_training_settings_are_named():
    with pytest.raises(ValueError, match="epsilon=1.5"):
        TrainConfig(epsilon=1.5)
    with pytest.raises(ValueError, match="ema=1.0"):
        TrainConfig(ema=1.0)
    assert TrainConfig(guide_minutes=10).guide_at(300) == pytest.approx(0.5)
    assert TrainConfig(guide_minutes=10).guide_at(900) == 0.0 == TrainConfig(guide_minutes=0).guide_at(0)
    assert TrainConfig(minutes=10, lr=1e-3, lr_final=0.1).lr_at(300) == pytest.approx(5.5e-4)
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no CUDA device"):
            dmc.train(TrainConfig(device="cuda", out="/nonexistent/never"), progress=False)
    with pytest.raises(ValueError, match="hidden sizes"):
        TrainConfig(hidden=[0])
    with pytest.raises(ValueError, match="policy='best'"):
        make_bot("neural(policy=best)", pyspiel.load_game("python_page_one"), 0)


def test_a_run_may_start_from_a_bot_files_network():
    """--init: expert iteration's Canasta network (shipped until 2026-12-02) trained longer,
    without its checkpoint."""
    shipped = SHIPPED_BOTS / "earlier" / "python_modern_canasta_expert.safetensors"
    net = dmc.initial_network(TrainConfig(game="python_modern_canasta", init=str(shipped)))
    expected = load_bot(shipped).net.state_dict()
    assert all(torch.equal(v, expected[k]) for k, v in net.state_dict().items())
    fresh = dmc.initial_network(TrainConfig(game="python_modern_canasta"))
    assert not torch.equal(fresh.state_dict()["trunk.0.weight"], expected["trunk.0.weight"])
    with pytest.raises(ValueError, match="python_modern_canasta"):       # another game's network
        dmc.initial_network(TrainConfig(init=str(shipped)))
    with pytest.raises(ValueError, match="gain over the 'rules' bot's move, and this run learns returns"):
        dmc.initial_network(TrainConfig(game="python_american_page_one(players=4)",
                                        init=str(SHIPPED_BOTS / "python_american_page_one.safetensors")))
    with pytest.raises(ValueError, match="by their returns, and this run learns gains over the 'rules' bot"):
        dmc.initial_network(TrainConfig(game="python_modern_canasta", init=str(shipped), target="advantage"))


def test_a_run_of_advantages_may_continue_a_network_over_the_same_baseline():
    """--init with --target advantage: the shipped Canasta network (gains over the tuned rule
    bot's move) trained on, past its lost checkpoint; over another baseline its scores would
    mean something else, so that is refused."""
    shipped = SHIPPED_BOTS / "python_modern_canasta.safetensors"
    tuned = load_bot(shipped).training["baseline"]
    net = dmc.initial_network(TrainConfig(game="python_modern_canasta", init=str(shipped), target="advantage",
                                          baseline=tuned, opponents="rules"))
    expected = load_bot(shipped).net.state_dict()
    assert all(torch.equal(v, expected[k]) for k, v in net.state_dict().items())
    with pytest.raises(ValueError, match=r"gain over the 'rules\(initial_meld=pile.*learns gains over the 'rules' bot"):
        dmc.initial_network(TrainConfig(game="python_modern_canasta", init=str(shipped), target="advantage"))
    with pytest.raises(ValueError, match="and this run learns returns"):
        dmc.initial_network(TrainConfig(game="python_modern_canasta", init=str(shipped)))


SHIPPED = sorted(p for p in SHIPPED_BOTS.glob("*.safetensors") if "." not in p.stem)    # not the networks


def test_a_bot_is_shipped_for_every_game():
    assert [p.stem for p in SHIPPED] == ["python_american_page_one", "python_modern_canasta", "python_page_one"]


@pytest.mark.parametrize("game_string", ["python_page_one(players=4)", "python_american_page_one(players=4)",
                                         "python_modern_canasta"])
def test_the_shipped_bot_plays_the_same_move_in_a_world_resampled_from_its_information(game_string):
    """`neural` as shipped, with its bot file's baseline and play settings (Canasta's
    plays the tuned rule bot's move unless a gain clears its margin): the true state
    and a world redealt from the mover's information state get the same move."""
    game = pyspiel.load_game(game_string)
    checked = conformance.check_bot_ignores_hidden_cards(
        game, lambda me: make_bot("neural", game, me, 0), 60, 8,
        lambda core, me, rng: core.resample_from_infostate(me, rng.random),
        accept=lambda core: len(core.legal_actions()) > 1)
    assert checked > 20


def test_the_shipped_american_page_one_bot_plays_every_deal_of_a_match():
    # A match sets the dealer, the standing and the deals left for each deal
    # (games/american_page_one/match.py DEAL_PARAMETERS): the same game to the bot.
    later_deal = pyspiel.load_game("python_american_page_one(dealer=2,scores=30;-10;0;-20,deals_left=3)")
    state = later_deal.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert make_bot("neural", later_deal, state.current_player(), 0).step(state) in state.legal_actions()


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_shipped_bots_load_through_make_bot_and_are_small(path):
    game = pyspiel.load_game(load_bot(path).metadata["game"])
    # Canasta's is an exact merge of five networks (training/ensemble.py), its
    # zero blocks stored: about 15 MB; a single network of ours is about 1 MB.
    assert path.stat().st_size < 20_000_000
    bots = [make_bot("neural", game, p, p) for p in range(game.num_players())]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(1))
    assert all(game.min_utility() <= r <= game.max_utility() for r in returns)
    assert path.with_suffix(".onnx").exists()


def _children(pid: int) -> set[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return {int(x) for x in out.split()}


def test_actors_exit_when_the_learner_is_killed(tmp_path):
    learner = subprocess.Popen([sys.executable, "-m", "scripts.cli", "train", "--game", "python_page_one(players=3)",
                                "--out", str(tmp_path / "run"), "--minutes", "5", "--actors", "1",
                                "--games-per-batch", "4", "--hidden", "16", "--checkpoint-minutes", "5"],
                               cwd=Path(__file__).resolve().parents[1], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(_children(learner.pid)) < 2:   # the actor and the tracker
            time.sleep(0.5)
        time.sleep(3.0)                                  # the actor is playing and sending samples
        children = _children(learner.pid)
        assert children, "the training never started its actors"
    finally:
        learner.kill()
        learner.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(Path(f"/proc/{c}").exists() for c in children):
        time.sleep(0.5)
    alive = [c for c in children if Path(f"/proc/{c}").exists()
             and "zombie" not in Path(f"/proc/{c}/status").read_text().lower()]
    for c in alive:
        os.kill(c, signal.SIGKILL)
    assert not alive, "an actor outlived its learner"


def test_suit_relabelling_carries_a_samples_other_moves_with_it():
    """A relative sample's reference move is relabelled by the same permutation as its
    action (American Page One: suits interchangeable); -1, no reference, stays -1."""
    from agents.neural.symmetry import symmetry_for
    game = pyspiel.load_game("python_american_page_one(players=4)")
    symmetry = symmetry_for(game, InfoStateEncoder(game).observer)
    actions = np.arange(52)
    references = np.where(actions % 2 == 1, (actions + 13) % 52, -1)     # same rank, the next suit
    obs = np.zeros((52, InfoStateEncoder(game).size), np.float32)
    _, new_actions, new_refs = symmetry.augment(obs, actions, np.random.default_rng(3), references)
    assert np.array_equal(new_actions, symmetry.augment(obs, actions, np.random.default_rng(3))[1])
    drawn = np.random.default_rng(3).integers(0, len(symmetry.perms), 52)   # the permutations it drew
    odd = actions % 2 == 1
    assert np.array_equal(new_refs[odd], symmetry.action_index[drawn[odd], references[odd]])
    assert np.all(new_refs[~odd] == -1)
    assert np.array_equal(new_refs[odd] % 13, new_actions[odd] % 13)      # a rank is kept, the suit moves
    assert len(set(drawn)) > 1 and not np.array_equal(new_actions, actions)


def test_a_project_bot_path_works_from_any_directory_and_a_local_file_comes_first(tmp_path, monkeypatch):
    """`path=bots/...` (the play table's options, docs' commands) names the project's
    file from elsewhere; a file of that name in the working directory is the one read."""
    game = pyspiel.load_game("python_page_one(players=4)")
    monkeypatch.chdir(tmp_path)
    spec = "neural(path=bots/python_page_one.safetensors)"
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert make_bot(spec, game, 0, 0).step(state) == make_bot("neural", game, 0, 0).step(state)
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "python_page_one.safetensors").write_bytes(b"not a bot file")
    with pytest.raises(ValueError, match="bots/python_page_one.safetensors"):
        make_bot(spec, game, 0, 0)
    with pytest.raises(ValueError, match="no_such.safetensors"):
        make_bot("neural(path=bots/no_such.safetensors)", game, 0, 0)
