"""Belief networks: the hidden cards' places each game declares, the weights that draw a
search's worlds (never a world the seat's information rules out), and the recipe."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from agents import make_bot
from agents.neural.encoding import InfoStateEncoder
from search.belief import (BeliefSampler, belief_network, effective_size, hidden_layout, importance_weights,
                           mask_of, masked_log_softmax)
from search.netfile import save
from tests import conformance

CANASTAS = ["python_modern_canasta", "python_classic_canasta(players=2)", "python_classic_canasta(players=3)",
            "python_classic_canasta(players=4)"]


def decision_cores(game_string: str, count: int, seed: int) -> list:
    game = pyspiel.load_game(game_string)
    return [s.core for s in conformance.random_states(game, 3 * count, seed) if len(s.legal_actions()) > 1][:count]


def write_belief(path: Path, game: pyspiel.Game, seed: int = 0) -> Path:
    """A random belief network of the right shapes for `game`."""
    core = next(iter(conformance.random_states(game, 1, 1))).core
    shape = hidden_layout(core, 0).shape
    rng = np.random.default_rng(seed)
    size = InfoStateEncoder(game).size
    layers = [(rng.normal(0, 0.1, (16, size)), rng.normal(0, 0.1, 16)),
              (rng.normal(0, 1.0, (int(np.prod(shape)), 16)), rng.normal(0, 0.1, int(np.prod(shape))))]
    return save(path, layers, kind="belief", game=str(game), short_name=game.get_type().short_name,
                players=game.num_players(), output_shape=list(shape))


# ------------------------------------------------------------------ what each game declares
@pytest.mark.parametrize("game_string", CANASTAS)
def test_the_hidden_places_hold_every_card_the_seat_cannot_see_and_their_margins_are_known(game_string):
    rng = random.Random(3)
    for core in decision_cores(game_string, 12, 5):
        me = core.current_player()
        layout = hidden_layout(core, me)
        assert layout.shape[0] == pyspiel.load_game(game_string).num_players()
        assert (layout >= 0).all()
        # The stock row is the stock; the hand rows, each hand less what every seat knows it holds.
        assert list(layout[-1]) == list(core.stock)
        for k in range(1, layout.shape[0]):
            seat = (me + k) % layout.shape[0]
            assert layout[k - 1].sum() == sum(core.hands[seat]) - sum(core.known[seat])
        # A world the seat cannot tell from this one has the same margins, and (almost always) other cells.
        differs = 0
        for _ in range(5):
            world = hidden_layout(core.resample_from_infostate(me, rng.random), me)
            assert np.array_equal(world.sum(axis=0), layout.sum(axis=0))
            assert np.array_equal(world.sum(axis=1), layout.sum(axis=1))
            differs += not np.array_equal(world, layout)
        assert differs or layout.sum() - layout[-1].sum() <= 1


@pytest.mark.parametrize("game_string", ["python_page_one(players=4,jokers=2,empty_stock=reshuffle)",
                                         "python_page_one(players=3)", "python_american_page_one(players=4)",
                                         "python_american_page_one(players=3,dobon=true,challenge=true)"])
def test_every_game_says_where_its_hidden_cards_lie_with_margins_its_seat_knows(game_string):
    rng = random.Random(4)
    game = pyspiel.load_game(game_string)
    for core in decision_cores(game_string, 15, 6):
        me = core.current_player()
        layout = hidden_layout(core, me)
        assert layout.shape[0] == game.num_players() and (layout >= 0).all()
        for _ in range(4):
            world = hidden_layout(core.resample_from_infostate(me, rng.random), me)
            assert np.array_equal(world.sum(axis=0), layout.sum(axis=0))
            assert np.array_equal(world.sum(axis=1), layout.sum(axis=1))


def test_the_mask_allows_exactly_the_cells_the_margins_allow():
    layout = np.array([[0, 2, 0], [0, 0, 0], [1, 0, 3]], np.float32)     # a seat with no hidden card; kinds 0..2
    assert mask_of(layout).tolist() == [[True, True, True], [False, False, False], [True, True, True]]
    logp = masked_log_softmax(np.zeros((3, 3), np.float32), mask_of(layout))
    assert np.allclose(np.exp(logp).sum(axis=0), 1.0) and np.isneginf(logp[1]).all()


# ------------------------------------------------------------------ the weights
def test_importance_weights_favour_the_layouts_the_belief_finds_likely():
    # Two candidate layouts of one card of each of two kinds between two places.
    a = np.array([[1, 0], [0, 1]], np.float32)
    b = np.array([[0, 1], [1, 0]], np.float32)
    log_q = np.log(np.array([[0.9, 0.1], [0.1, 0.9]]))
    w = importance_weights([a, b, a, b], log_q)
    assert w[0] == pytest.approx(w[2]) and w[0] / w[1] == pytest.approx(81.0, rel=1e-4)
    assert w.sum() == pytest.approx(1.0) and (w > 0).all()
    assert importance_weights([a, b], log_q, power=0.0) == pytest.approx([0.5, 0.5])
    assert effective_size(np.array([0.5, 0.5])) == pytest.approx(2.0)


@pytest.mark.parametrize("game_string", ["python_modern_canasta", "python_classic_canasta(players=3)"])
def test_every_world_the_belief_hands_the_search_is_one_the_seat_could_be_in(tmp_path, game_string):
    game = pyspiel.load_game(game_string)
    sampler = BeliefSampler(belief_network(str(write_belief(tmp_path / "b.safetensors", game)), game), 8)
    rng = random.Random(2)
    for core in decision_cores(game_string, 6, 7):
        me = core.current_player()
        seen = core.information_state_string(me)
        for _ in range(10):
            world = sampler.draw(core, me, lambda: core.resample_from_infostate(me, rng.random), rng.random)
            assert world.information_state_string(me) == seen
        assert 1.0 <= sampler.last_effective_size <= 8.0


@pytest.mark.parametrize("spec", ["ismcts(iterations=40,belief={})", "pimc(worlds=3,iterations=15,belief={})"])
def test_a_search_with_a_belief_never_reads_hidden_cards(tmp_path, spec):
    game_string = "python_modern_canasta"
    game = pyspiel.load_game(game_string)
    spec = spec.format(write_belief(tmp_path / "b.safetensors", game))
    rng = random.Random(11)
    for core in decision_cores(game_string, 4, 2):
        me = core.current_player()
        world = core.resample_from_infostate(me, rng.random)
        assert make_bot(spec, game, me, 7).search(core) == make_bot(spec, game, me, 7).search(world)


def test_a_search_with_a_belief_draws_new_worlds_at_each_decision_of_a_game_played_in_place(tmp_path):
    """A referee applies every move to one state object: the belief's worlds of the last
    decision (another phase, other hands) must not be reused for the next one."""
    game = pyspiel.load_game("python_modern_canasta")
    spec = f"pimc(worlds=2,flat=true,rollout=random,belief={write_belief(tmp_path / 'b.safetensors', game)})"
    bots = [make_bot(spec, game, seat, seat) for seat in range(4)]
    rng = random.Random(5)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal() and decisions < 60:
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
            continue
        legal = state.legal_actions()
        action = bots[state.current_player()].step(state)
        assert action in legal
        decisions += len(legal) > 1
        state.apply_action(action)
    assert decisions == 60


@pytest.mark.parametrize("setting, message", [("belief=shipped", "does not say where hidden cards lie"),
                                              ("belief_candidates=1", "at least 2"),
                                              ("belief_power=nan", "belief_power")])
def test_bad_belief_settings_are_refused(tmp_path, setting, message):
    game = pyspiel.load_game("kuhn_poker" if "shipped" in setting else "python_modern_canasta")
    if "shipped" not in setting:
        setting += f",belief={write_belief(tmp_path / 'b.safetensors', game)}"
    with pytest.raises(ValueError, match=message):
        make_bot(f"ismcts(iterations=10,{setting})", game, 0, 0)


# ------------------------------------------------------------------ the recipe
def test_self_play_then_cross_entropy_writes_a_calibrated_belief_a_search_reads(tmp_path):
    from scripts.cli import main
    game_string = "python_classic_canasta(players=2)"
    data, out = tmp_path / "sp.db", tmp_path / "b.safetensors"
    main(["selfplay", "--game", game_string, "--policy", "rules", "--deals", "30", "--out", str(data), "--quiet"])
    main(["train-belief", "--game", game_string, "--data", str(data), "--out", str(out), "--epochs", "2",
          "--per-game", "6", "--hidden", "16", "--quiet", "--check-positions", "3", "--uniform-worlds", "6"])
    report = json.loads(Path(f"{out.with_suffix('')}.report.json").read_text())
    assert report["checked_positions"] == 3 and report["perplexity_checked_uniform"] > 1.0
    assert 0.0 <= report["calibration_error"] <= 1.0 and report["calibration"]
    game = pyspiel.load_game(game_string)
    assert belief_network(str(out), game).net.output_shape == (2, 15)
    bot = make_bot(f"ismcts(iterations=10,belief={out})", game, 0, 1)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert bot.step(state) in state.legal_actions()
