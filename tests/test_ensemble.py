"""`cardarena ensemble`: the merged network scores by the members' mean exactly,
plays as an ordinary bot file, and refuses members whose scores do not mix."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyspiel
import pytest
import torch

import games  # noqa: F401  (registers our games)
from agents import make_bot
from agents.neural.bot import BlockDiagonal, legal_scores, member_hidden, numpy_layers
from agents.neural.botfile import load_bot, save_bot
from agents.neural.config import NetworkConfig
from agents.neural.encoding import GameIdentity
from training.ensemble import ensemble, merge_networks
from agents.neural.network import PolicyValueNet
from training.onnx_export import sample_states
from tests.test_cli import assert_refused, run_cli

CANASTA = "python_modern_canasta"
BASELINE = "rules(initial_meld=pile,new_meld_min=5,go_out=lead)"


def member(tmp_path: Path, name: str, hidden: tuple[int, ...], seed: int, game: str = CANASTA,
           training: dict | None = None) -> Path:
    """A bot file of a freshly initialised network (weights from `seed`)."""
    g = pyspiel.load_game(game)
    identity = GameIdentity.of(g)
    torch.manual_seed(seed)
    net = PolicyValueNet(identity.tensor_size, identity.num_actions, NetworkConfig(hidden=hidden))
    notes = {"baseline": BASELINE, "play": {"margin": 0.1}} if training is None else training
    return save_bot(tmp_path / f"{name}.safetensors", net, identity, notes)


def test_the_merged_network_scores_every_action_by_the_members_mean(tmp_path):
    paths = [member(tmp_path, "a", (32, 16), 1), member(tmp_path, "b", (64, 8), 2), member(tmp_path, "c", (16, 16), 3)]
    out = tmp_path / "mean.safetensors"
    written = ensemble(paths, out, onnx=False)
    assert written == [out]
    merged = load_bot(out)
    assert merged.net.config.hidden == (112, 40)
    assert merged.training["baseline"] == BASELINE and merged.training["play"] == {"margin": 0.1}
    assert [m["path"] for m in merged.training["members"]] == [str(p) for p in paths]
    obs, mask = sample_states(pyspiel.load_game(CANASTA), 32, 0)
    obs, mask = torch.tensor(obs), torch.tensor(mask)
    with torch.no_grad():
        scores = [load_bot(p).net(obs, mask) for p in paths]
        got_scores, got_values = merged.net(obs, mask)
    mean_scores = sum(s for s, _ in scores) / 3
    mean_values = sum(v for _, v in scores) / 3
    legal = mask > 0
    assert torch.allclose(got_scores[legal], mean_scores[legal], atol=1e-5)
    assert torch.allclose(got_values, mean_values, atol=1e-5)
    assert not torch.allclose(scores[0][0][legal], mean_scores[legal], atol=1e-3)   # the members differ


def test_an_ensemble_plays_as_a_bot_file_and_its_move_follows_the_mean(tmp_path):
    # Its move at margin 0 is the argmax of the members' mean gain over the baseline's move.
    paths = [member(tmp_path, "a", (32, 32), 4), member(tmp_path, "b", (32, 32), 5)]
    out = tmp_path / "pair.safetensors"
    ensemble(paths, out, play={"margin": 0.0}, onnx=False)
    game = pyspiel.load_game(CANASTA)
    bot = make_bot(f"neural(path={out})", game, 0, 0)
    singles = [make_bot(f"neural(path={p},margin=0)", game, 0, 0) for p in paths]
    state, rng, checked = game.new_initial_state(), np.random.default_rng(6), 0
    while not state.is_terminal() and checked < 10:
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
            continue
        legal = state.legal_actions()
        if state.current_player() == 0 and len(legal) > 1:
            baseline = bot.baseline.step(state)
            gains = []
            for single in singles:
                single.encoder.encode(state.core, 0, legal, single.obs[0])
                gains.append(legal_scores(single.layers, single.obs[0], legal))
            mean = (gains[0] + gains[1]) / 2
            mean[legal.index(baseline)] = -np.inf
            expected = legal[int(mean.argmax())] if mean.max() > 0 else baseline
            assert bot.step(state) == expected
            checked += 1
        state.apply_action(legal[rng.integers(len(legal))])
    assert checked == 10


def test_an_ensembles_bot_reads_its_later_layers_by_blocks_with_the_same_scores(tmp_path):
    paths = [member(tmp_path, "a", (32, 16, 8), 7), member(tmp_path, "b", (16, 24, 8), 8)]
    out = tmp_path / "pair.safetensors"
    ensemble(paths, out, onnx=False)
    merged = load_bot(out)
    members = member_hidden(merged.training)
    assert members == [(32, 16, 8), (16, 24, 8)]
    split, dense = numpy_layers(merged.net, members), numpy_layers(merged.net)
    assert [type(w).__name__ for w, _ in split] == ["ndarray", "BlockDiagonal", "BlockDiagonal", "ndarray"]
    assert [block.shape for _, block in split[1][0].blocks] == [(32, 16), (16, 24)]
    obs, mask = sample_states(pyspiel.load_game(CANASTA), 16, 1)
    for row, legal_mask in zip(obs, mask):
        legal = list(np.flatnonzero(legal_mask))
        assert np.allclose(legal_scores(split, row, legal), legal_scores(dense, row, legal), atol=1e-6)
    bot = make_bot(f"neural(path={out})", pyspiel.load_game(CANASTA), 0, 0)
    assert isinstance(bot.layers[1][0], BlockDiagonal)
    assert member_hidden(load_bot(paths[0]).training) is None      # one network: dense as before


def test_a_matrix_with_weights_off_its_blocks_stays_dense():
    w = np.arange(1.0, 17.0).reshape(4, 4)
    assert BlockDiagonal.of(w, [2, 2], [2, 2]) is w              # not block-diagonal: kept whole
    assert BlockDiagonal.of(w, [1, 2], [2, 2]) is w              # sizes that do not tile it
    w[:2, 2:] = 0.0
    w[2:, :2] = 0.0
    blocks = BlockDiagonal.of(w, [2, 2], [2, 2])
    x = np.arange(8.0).reshape(2, 4)
    assert np.array_equal(x @ blocks, x @ w)


def test_members_whose_scores_do_not_mix_are_refused(tmp_path):
    a = member(tmp_path, "a", (16, 16), 1)
    with pytest.raises(ValueError, match="at least two"):
        ensemble([a], tmp_path / "one.safetensors", onnx=False)
    deeper = member(tmp_path, "deep", (16, 16, 16), 2)
    with pytest.raises(ValueError, match="numbers of layers"):
        ensemble([a, deeper], tmp_path / "x.safetensors", onnx=False)
    other_baseline = member(tmp_path, "other", (16, 16), 3, training={"baseline": "rules", "play": {"margin": 0.1}})
    with pytest.raises(ValueError, match="'baseline'"):
        ensemble([a, other_baseline], tmp_path / "x.safetensors", onnx=False)
    returns = member(tmp_path, "returns", (16, 16), 4, training={})
    with pytest.raises(ValueError, match="'baseline'"):
        ensemble([a, returns], tmp_path / "x.safetensors", onnx=False)
    other_play = member(tmp_path, "play", (16, 16), 5, training={"baseline": BASELINE, "play": {"margin": 0.2}})
    with pytest.raises(ValueError, match="--play"):
        ensemble([a, other_play], tmp_path / "x.safetensors", onnx=False)
    page_one = member(tmp_path, "p1", (16, 16), 6, game="python_page_one")
    with pytest.raises(ValueError, match="one game"):
        ensemble([a, page_one], tmp_path / "x.safetensors", onnx=False)
    assert not (tmp_path / "x.safetensors").exists()


def test_the_command_writes_both_files_and_refuses_bad_input_in_one_line(tmp_path, capsys):
    a, b = member(tmp_path, "a", (16, 16), 1), member(tmp_path, "b", (16, 16), 2)
    out = tmp_path / "e.safetensors"
    code, printed, err = run_cli(["ensemble", str(out), str(a), str(b), "--play", "margin=0.05"], capsys)
    assert code == 0, err
    assert printed.split() == ["wrote", str(out), "wrote", str(out.with_suffix(".onnx"))]
    assert load_bot(out).training["play"] == {"margin": 0.05}
    assert_refused(["ensemble", str(out), str(a), str(b)], capsys, "already exist", "--force")
    assert_refused(["ensemble", str(tmp_path / "f.safetensors"), str(a), str(tmp_path / "none.safetensors")],
                   capsys, "no bot file")
    assert_refused(["ensemble", str(tmp_path / "g.safetensors"), str(a), str(b), "--play", "margin=-1"],
                   capsys, "margin")
    assert_refused(["ensemble", str(tmp_path / "h.txt"), str(a), str(b)], capsys, ".safetensors")
