"""`--target advantage`: the samples (each other move against the rule bot's, on
the same cards and draws) and the bot that plays the rule bot's move unless its
network is sure of a better one."""

from __future__ import annotations

import csv
import dataclasses
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyspiel
import pytest
import torch

import games  # noqa: F401
from agents import make_bot
from training import advantage, dmc
from agents.neural.botfile import load_bot, save_bot
from agents.neural.config import NetworkConfig, TrainConfig
from agents.neural.encoding import GameIdentity, InfoStateEncoder
from agents.neural.network import PolicyValueNet
from games.american_page_one.core import DRAW
from search.rollout import BotRollout
from tests import conformance
from tests.test_american_page_one import FOUR, k, position, swap_hidden

APO = "python_american_page_one(players=4)"
ROOT = Path(__file__).resolve().parents[1]
torch.set_num_threads(1)


@pytest.fixture(scope="module")
def apo() -> pyspiel.Game:
    return pyspiel.load_game(APO)


def net_with_head(game: pyspiel.Game, bias: dict[int, float]) -> PolicyValueNet:
    """A network whose every score is its head's bias: `bias` where given, else 0."""
    identity = GameIdentity.of(game)
    net = PolicyValueNet(identity.tensor_size, identity.num_actions, NetworkConfig(hidden=(8,)))
    with torch.no_grad():
        for p in net.parameters():
            p.zero_()
        for action, value in bias.items():
            net.policy_head.bias[action] = value
    return net


def advantage_bot_file(game, net, path):
    return save_bot(path, net, GameIdentity.of(game), dmc.scores_notes("advantage"))


def test_going_out_is_worth_more_than_drawing_and_the_rule_move_gets_no_sample(apo):
    s = position(["4H", *FOUR[1:]], top="9H")            # 4♥ goes out and wins the deal
    playout = BotRollout.from_spec("rules", apo, 0)
    rule_move = make_bot("rules", apo, 0).step(s)
    assert rule_move == k("4H")
    gains = advantage.move_advantages(s, s.legal_actions(), rule_move, playout, 7)
    assert set(gains) == set(s.legal_actions()) - {rule_move} == {DRAW}
    assert gains[DRAW] <= 0
    assert advantage.move_advantages(s, s.legal_actions(), rule_move, playout, 7) == gains  # same draws
    # Measured the other way round, from drawing, going out gains at least as much, and
    # on some draws strictly more (after a draw another player may go out first).
    ups = [advantage.move_advantages(s, s.legal_actions(), DRAW, playout, seed)[k("4H")] for seed in range(20)]
    assert min(ups) >= 0 and max(ups) > 0
    assert not s.is_terminal() and s.current_player() == 0          # the position itself is untouched


def test_probe_samples_are_other_moves_of_rule_bot_deals_scored_by_placement_differences(apo):
    encoder = InfoStateEncoder(apo)
    bots = advantage.ProbeBots.make(apo, "rules", None, 1)
    obs, actions, targets, references, played = advantage.play_probe_batch(apo, encoder, bots, random.Random(3),
                                                                           games=2, probe=1.0)
    assert played == 2 and len(actions) > 20 and obs.shape == (len(actions), encoder.size)
    assert np.all(np.abs(targets) <= 2) and np.allclose(targets * 3, np.round(targets * 3))
    assert np.any(targets != 0)
    # Each sample names the rule bot's move it is measured from: another move, the same for
    # every sample of one decision (the rows of one decision share their information state).
    assert len(references) == len(actions) and np.all(references != actions)
    decision = np.concatenate([[0], np.cumsum(np.any(obs[1:] != obs[:-1], axis=1))])
    for d in np.unique(decision):
        mine = decision == d
        assert len(set(references[mine])) == 1 and len(set(actions[mine])) == mine.sum()
        assert references[mine][0] not in actions[mine]
    fewer = advantage.play_probe_batch(apo, encoder, bots, random.Random(3), games=2, probe=0.2)[1]
    assert 0 < len(fewer) < len(actions)


def test_with_opponents_the_baseline_plays_one_side_and_only_its_decisions_are_probed(apo, monkeypatch):
    canasta = pyspiel.load_game("python_modern_canasta")
    bots = advantage.ProbeBots.make(canasta, "rules", "random", 2)
    assert bots.sides == ((0, 2), (1, 3))
    drawn = set()
    for seed in range(12):
        seated, playout, probed = bots.seat(random.Random(seed))
        drawn.add(probed)
        assert [type(b).__name__ for b in seated] == [
            type(bots.baseline[s] if s in probed else bots.opponents[s]).__name__ for s in range(4)]
        assert [b is bots.baseline_playout[s] for s, b in enumerate(playout.bots)] == [s in probed for s in range(4)]
    assert drawn == {frozenset((0, 2)), frozenset((1, 3))}
    assert {type(b).__name__ for b in bots.opponents} != {type(b).__name__ for b in bots.baseline}

    # Without partnerships each seat is a side; here the baseline (rules) sits in seat 2 only.
    only_two = dataclasses.replace(advantage.ProbeBots.make(apo, "rules", "random", 3), sides=((2,),))
    movers = []
    real = advantage.move_advantages
    monkeypatch.setattr(advantage, "move_advantages",
                        lambda state, *rest: movers.append(state.current_player()) or real(state, *rest))
    actions = advantage.play_probe_batch(apo, InfoStateEncoder(apo), only_two, random.Random(4), games=2,
                                         probe=1.0)[1]
    assert len(movers) > 3 and set(movers) == {2} and len(actions) >= len(movers)


def test_positions_from_another_bot_are_its_own_and_gains_are_still_measured_from_the_baseline(apo, monkeypatch):
    encoder = InfoStateEncoder(apo)
    # A positions bot that plays as the baseline does changes nothing: the same samples, draw for draw.
    plain = advantage.play_probe_batch(apo, encoder, advantage.ProbeBots.make(apo, "rules", None, 1),
                                       random.Random(3), games=2, probe=0.5)
    same = advantage.play_probe_batch(apo, encoder, advantage.ProbeBots.make(apo, "rules", None, 1, "rules"),
                                      random.Random(3), games=2, probe=0.5)
    for a, b in zip(plain, same):
        assert np.array_equal(a, b)

    # A random bot moves instead: its seats are its own, the playouts are still the baseline's, and
    # each probed decision's gains are measured from the rule bot's move there, not the random bot's.
    bots = advantage.ProbeBots.make(apo, "rules", None, 1, "random")
    seated, playout, probed = bots.seat(random.Random(0))
    assert seated is bots.positions and playout.bots == bots.baseline_playout and probed == {0, 1, 2, 3}
    probes = []
    real = advantage.move_advantages
    monkeypatch.setattr(advantage, "move_advantages",
                        lambda state, legal, move, *rest: probes.append((state.clone(), move))
                        or real(state, legal, move, *rest))
    obs, actions, targets, references, _ = advantage.play_probe_batch(apo, encoder, bots, random.Random(3),
                                                                      games=2, probe=1.0)
    rules = make_bot("rules", apo, 0)
    assert len(probes) > 10
    assert all(move == rules.step(state) for state, move in probes)
    assert set(references) <= {move for _, move in probes} and np.all(references != actions)
    # The random bot's deals are not the rule bot's: it meets positions the rule bot never does.
    assert not np.array_equal(obs[:len(plain[0])], plain[0][:len(obs)])


def test_a_positions_setting_is_only_for_advantage_runs_and_a_bad_one_is_refused_before_the_run(tmp_path):
    with pytest.raises(ValueError, match="positions='random'.*only a run with target=advantage"):
        TrainConfig(game=APO, out=str(tmp_path), positions="random")
    with pytest.raises(ValueError, match="positions="):
        advantage.check_bots(pyspiel.load_game(APO), "rules", "", "nonsense_bot")


def test_a_network_of_advantages_over_another_network_plays_that_network_unless_a_move_clears_the_margin(
        apo, tmp_path):
    drawer = advantage_bot_file(apo, net_with_head(apo, {DRAW: 0.3}), tmp_path / "first.safetensors")
    notes = dmc.scores_notes("advantage", f"neural(path={drawer})")
    second = save_bot(tmp_path / "second.safetensors", net_with_head(apo, {}), GameIdentity.of(apo), notes)
    bot, first = make_bot(f"neural(path={second})", apo, 0), make_bot(f"neural(path={drawer})", apo, 0)
    assert bot.baseline.baseline is not None            # its baseline is itself a network over the rule bot
    states = [s for s in conformance.random_states(apo, 60, 5) if len(s.legal_actions()) > 1]
    draws = 0
    for state in states:
        bot.player = first.player = bot.baseline.player = state.current_player()
        move = bot.step(state)
        assert move == first.step(state)
        draws += move == DRAW
    assert draws > 5


def test_a_network_of_advantages_plays_the_rule_bot_unless_a_move_clears_the_margin(apo, tmp_path):
    states = [s for s in conformance.random_states(apo, 60, 2) if len(s.legal_actions()) > 1]
    level = make_bot(f"neural(path={advantage_bot_file(apo, net_with_head(apo, {}), tmp_path / 'a.safetensors')})",
                     apo, 0)
    drawer = advantage_bot_file(apo, net_with_head(apo, {DRAW: 0.3}), tmp_path / "b.safetensors")
    keen, shy = make_bot(f"neural(path={drawer})", apo, 0), make_bot(f"neural(path={drawer},margin=0.5)", apo, 0)
    draws = 0
    for state in states:
        rule_move = make_bot("rules", apo, state.current_player()).step(state.core)
        for bot in (level, keen, shy):
            bot.player = state.current_player()
        assert level.step(state) == rule_move == shy.step(state)       # gains of 0, or under the margin
        if DRAW in state.legal_actions() and rule_move != DRAW:
            assert keen.step(state) == DRAW
            draws += 1
        else:
            assert keen.step(state) == rule_move
    assert draws > 5
    with pytest.raises(ValueError, match="margin=-1"):
        make_bot(f"neural(path={drawer},margin=-1)", apo, 0)


def test_a_network_of_advantages_does_not_read_hidden_cards(apo, tmp_path):
    torch.manual_seed(4)
    identity = GameIdentity.of(apo)
    net = PolicyValueNet(identity.tensor_size, identity.num_actions, NetworkConfig(hidden=(32,)))
    path = advantage_bot_file(apo, net, tmp_path / "c.safetensors")
    checked = conformance.check_bot_ignores_hidden_cards(
        apo, lambda me: make_bot(f"neural(path={path},margin=0)", apo, me), 120, 5, swap_hidden,
        accept=lambda core: len(core.legal_actions()) > 1)
    assert checked > 30
    # A network of advantages over that network reads no more than its baseline does.
    notes = dmc.scores_notes("advantage", f"neural(path={path},margin=0)")
    nested = save_bot(tmp_path / "c2.safetensors", net, identity, notes)
    checked = conformance.check_bot_ignores_hidden_cards(
        apo, lambda me: make_bot(f"neural(path={nested},margin=0)", apo, me), 120, 5, swap_hidden,
        accept=lambda core: len(core.legal_actions()) > 1)
    assert checked > 30
    # Relative scores subtract the baseline's move's score: still only what the seat sees.
    relative = save_bot(tmp_path / "c3.safetensors", net, identity, dmc.scores_notes("advantage", relative=True))
    checked = conformance.check_bot_ignores_hidden_cards(
        apo, lambda me: make_bot(f"neural(path={relative},margin=0)", apo, me), 120, 5, swap_hidden,
        accept=lambda core: len(core.legal_actions()) > 1)
    assert checked > 30


def test_training_on_advantages_exports_a_bot_that_names_its_baseline(tmp_path):
    cfg = TrainConfig(game=APO, out=str(tmp_path / "run"), minutes=0.05, actors=1, games_per_batch=1,
                      buffer_size=2048, batch_size=16, checkpoint_minutes=1.0, eval_deals=2, hidden=[16],
                      target="advantage", probe=0.5)
    ckpt = dmc.train(cfg, progress=False)
    assert dmc.load_checkpoint(ckpt)["stats"]["samples"] > 0
    bot_path = dmc.export(ckpt, tmp_path / "adv.safetensors", onnx=False, play={"margin": 0.02})[0]
    training = load_bot(bot_path).training
    assert training["baseline"] == "rules" and "policy improvement" in training["method"]
    bot = make_bot(f"neural(path={bot_path})", pyspiel.load_game(APO), 2)
    assert bot.baseline is not None and bot.margin == 0.02
    with pytest.raises(ValueError, match="margin=-1"):
        dmc.export(ckpt, tmp_path / "bad.safetensors", onnx=False, play={"margin": -1})
    assert not (tmp_path / "bad.safetensors").exists()
    # The lab's re-rating of a run's snapshots (experiments/neural_curve.py), run as the command it is.
    done = subprocess.run([sys.executable, "-m", "experiments.neural_curve", str(tmp_path / "run"), "--deals", "2",
                           "--workers", "1", "--settings", "margin=0.01"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    with open(tmp_path / "run" / "rated_curve.csv") as f:
        rated = list(csv.DictReader(f))
    assert len(rated) == 1 and int(rated[0]["eval_games"]) >= 2 and float(rated[0]["cpu_minutes"]) > 0
    assert (tmp_path / "run" / "rated_curve.png").exists()
    with pytest.raises(ValueError, match="probe=0"):
        TrainConfig(target="advantage", probe=0)

    # The next step of policy iteration: that network is the baseline, against random opponents.
    spec = f"neural(path={bot_path})"
    second = dmc.train(dataclasses.replace(cfg, out=str(tmp_path / "run2"), baseline=spec, opponents="random"),
                       progress=False)
    assert dmc.load_checkpoint(second)["stats"]["samples"] > 0
    training = load_bot(dmc.export(second, tmp_path / "adv2.safetensors", onnx=False)[0]).training
    assert training["baseline"] == "neural(path=adv.safetensors)" and spec in training["method"]
    assert training["config"]["opponents"] == "random"
    assert dmc.curve_label(dataclasses.replace(cfg, baseline=spec)) == f"network, margin 0.05 over {tmp_path.name}/adv"
    assert dmc.curve_label(cfg) == "network, margin 0.05 over rules"
    tuned = "rules(initial_meld=pile,go_out=lead)"          # a rule bot's settings are part of its name
    assert dmc.curve_label(dataclasses.replace(cfg, baseline=tuned)) == f"network, margin 0.05 over {tuned}"
    assert dmc.curve_label(TrainConfig()) == "network (greedy)"
    with pytest.raises(ValueError, match="baseline='neural\\(path=missing.safetensors\\)'"):
        dmc.train(dataclasses.replace(cfg, out=str(tmp_path / "run3"), baseline="neural(path=missing.safetensors)"))
    assert not (tmp_path / "run3").exists()
    with pytest.raises(ValueError, match="only a run with target=advantage plays a baseline"):
        TrainConfig(target="return", opponents="random")


def test_a_bot_file_carries_its_play_defaults_and_a_spec_overrides_them(apo, tmp_path):
    notes = {**dmc.scores_notes("advantage"), "play": {"margin": 0.5, "symmetric": True}}
    path = save_bot(tmp_path / "d.safetensors", net_with_head(apo, {DRAW: 0.3}), GameIdentity.of(apo), notes)
    from_file = make_bot(f"neural(path={path})", apo, 0)
    assert (from_file.margin, from_file.symmetry is not None) == (0.5, True)
    overridden = make_bot(f"neural(path={path},margin=0.1,symmetric=false)", apo, 0)
    assert (overridden.margin, overridden.symmetry) == (0.1, None)
    bad = save_bot(tmp_path / "e.safetensors", net_with_head(apo, {}), GameIdentity.of(apo), {"play": {"depth": 2}})
    with pytest.raises(ValueError, match="unknown play setting.*depth"):
        make_bot(f"neural(path={bad})", apo, 0)


def test_a_network_of_advantages_is_refused_as_a_search_prior(apo, tmp_path):
    path = advantage_bot_file(apo, net_with_head(apo, {}), tmp_path / "f.safetensors")
    with pytest.raises(ValueError, match="no prior"):
        make_bot(f"ismcts(iterations=10,prior={path})", apo, 0)


def test_relative_scores_are_gains_once_the_baseline_moves_score_is_subtracted(apo, tmp_path):
    """With `relative` the file's scores are values up to one number a position: a move
    scoring as high as the rule bot's gains nothing, however high both score."""
    states = [s for s in conformance.random_states(apo, 60, 2) if len(s.legal_actions()) > 1]
    notes = dmc.scores_notes("advantage", relative=True)
    assert notes == {"baseline": "rules", "relative": True}
    everything_high = {a: 0.5 for a in range(apo.num_distinct_actions())}
    flat = save_bot(tmp_path / "flat.safetensors", net_with_head(apo, everything_high), GameIdentity.of(apo), notes)
    drawer = save_bot(tmp_path / "draw.safetensors", net_with_head(apo, {**everything_high, DRAW: 0.8}),
                      GameIdentity.of(apo), notes)
    as_gains = advantage_bot_file(apo, net_with_head(apo, everything_high), tmp_path / "gains.safetensors")
    level, keen, eager = (make_bot(f"neural(path={p})", apo, 0) for p in (flat, drawer, as_gains))
    assert level.relative and not eager.relative
    departures = draws = 0
    for state in states:
        rule_move = make_bot("rules", apo, state.current_player()).step(state.core)
        for bot in (level, keen, eager):
            bot.player = state.current_player()
        assert level.step(state) == rule_move            # every gain 0.5 - 0.5
        departures += eager.step(state) != rule_move      # read as gains, every move gains 0.5
        if DRAW in state.legal_actions() and rule_move != DRAW:
            assert keen.step(state) == DRAW               # 0.8 - 0.5 clears the margin
            draws += 1
        else:
            assert keen.step(state) == rule_move
    assert draws > 5 and departures == len(states)


def test_the_relative_learner_step_fits_differences_not_scores():
    """train_step with references regresses score(action) - score(reference) on the
    target and leaves the level of a position's scores free."""
    torch.manual_seed(0)
    net = PolicyValueNet(4, 3, NetworkConfig(hidden=(16,)))
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
    obs = torch.eye(4)
    actions, references = torch.tensor([0, 1, 2, 0]), torch.tensor([1, 2, 0, 2])
    gains = torch.tensor([0.4, -0.3, 0.1, 0.25])
    for _ in range(400):
        loss = dmc.train_step(net, optimizer, obs, actions, gains, value_too=False, references=references)
    assert loss < 1e-4
    scores, _ = net.action_values(obs)
    fitted = (scores.gather(1, actions[:, None]) - scores.gather(1, references[:, None])).squeeze(1)
    assert torch.allclose(fitted, gains, atol=0.02)
    taken = scores.gather(1, actions[:, None]).squeeze(1)
    assert not torch.allclose(taken, gains, atol=0.05)   # the scores themselves are not the gains


def test_a_relative_run_may_start_from_gains_and_not_the_other_way(tmp_path):
    canasta = pyspiel.load_game("python_modern_canasta")
    identity = GameIdentity.of(canasta)
    net = PolicyValueNet(identity.tensor_size, identity.num_actions, NetworkConfig(hidden=(8,)))
    gains = save_bot(tmp_path / "gains.safetensors", net, identity, dmc.scores_notes("advantage"))
    relative = save_bot(tmp_path / "rel.safetensors", net, identity, dmc.scores_notes("advantage", relative=True))
    run = TrainConfig(game="python_modern_canasta", target="advantage", relative=True)
    for start in (gains, relative):
        assert dmc.initial_network(dataclasses.replace(run, init=str(start))).config == net.config
    with pytest.raises(ValueError, match="relative scores whose differences are the gains over the 'rules' bot's "
                                         "move, and this run learns gains over"):
        dmc.initial_network(dataclasses.replace(run, init=str(relative), relative=False))
    with pytest.raises(ValueError, match="relative=True: only a run with target=advantage"):
        TrainConfig(relative=True)


def test_training_relative_scores_exports_a_bot_that_says_so(tmp_path):
    cfg = TrainConfig(game=APO, out=str(tmp_path / "run"), minutes=0.05, actors=1, games_per_batch=1,
                      buffer_size=2048, batch_size=16, checkpoint_minutes=1.0, eval_deals=2, hidden=[16],
                      target="advantage", probe=0.5, relative=True, eval_play="margin=0.3")
    ckpt = dmc.train(cfg, progress=False)
    assert dmc.load_checkpoint(ckpt)["stats"]["samples"] > 0
    training = load_bot(dmc.export(ckpt, tmp_path / "rel.safetensors", onnx=False)[0]).training
    assert training["baseline"] == "rules" and training["relative"] is True and "play" not in training
    # The curve rated each snapshot at the margin it was told to, and the snapshot keeps it.
    snapshot = next((tmp_path / "run" / dmc.SNAPSHOTS).glob("*.safetensors"))
    assert load_bot(snapshot).training["relative"] is True
    assert load_bot(snapshot).training["play"] == {"margin": 0.3}
    assert make_bot(f"neural(path={snapshot})", pyspiel.load_game(APO), 0).margin == 0.3
    assert dmc.curve_label(cfg) == "network, margin 0.3 over rules"
    assert make_bot(f"neural(path={tmp_path / 'rel.safetensors'})", pyspiel.load_game(APO), 1).relative
