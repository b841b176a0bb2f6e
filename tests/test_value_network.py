"""Value networks: the file (search.netfile), the encoding of a full state, the search's
leaf evaluation at a horizon, and the recipe from self-play to a file (training/)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from agents import make_bot
from agents.base import rules_core
from search.netfile import NetFileError, load, save
from search.value import FullStateEncoder, ValueNetwork, value_network
from tests.test_search import page_one_states

PAGE_ONE = "python_page_one(players=4,jokers=2,empty_stock=reshuffle)"


def write_net(path: Path, game: pyspiel.Game, hidden: int = 8, seed: int = 0, **overrides) -> Path:
    """A random value network of the right shapes for `game`."""
    rng = np.random.default_rng(seed)
    size, n = FullStateEncoder(game).size, game.num_players()
    layers = [(rng.normal(0, 0.1, (hidden, size)), rng.normal(0, 0.1, hidden)),
              (rng.normal(0, 0.5, (n, hidden)), rng.normal(0, 0.1, n))]
    settings = dict(kind="value", game=str(game), short_name=game.get_type().short_name, players=n,
                    output_shape=[n], scale=2.0)
    settings.update(overrides)
    return save(path, layers, **settings)


@pytest.fixture
def page_one():
    return pyspiel.load_game(PAGE_ONE)


# ------------------------------------------------------------------ the file
def test_a_value_file_reads_back_the_network_it_was_written_with(tmp_path, page_one):
    path = write_net(tmp_path / "v.safetensors", page_one)
    net = load(path, kind="value", game=page_one, input_size=FullStateEncoder(page_one).size)
    x = np.random.default_rng(1).random(net.mlp.input_size).astype(np.float32)
    w0, b0 = net.mlp.layers[0]
    w1, b1 = net.mlp.layers[1]
    assert np.allclose(net.mlp(x), np.maximum(x @ w0.T + b0, 0) @ w1.T + b1, atol=1e-5)
    assert net.scale == 2.0 and net.output_shape == (4,)


def _tamper(path: Path, edit) -> Path:
    """Rewrites a safetensors file's header with `edit(header)` (tensor bytes kept)."""
    raw = path.read_bytes()
    length = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + length])
    edit(header)
    text = json.dumps(header).encode()
    out = path.with_name("tampered.safetensors")
    out.write_bytes(len(text).to_bytes(8, "little") + text + raw[8 + length:])
    return out


@pytest.mark.parametrize("edit, message", [
    (lambda h: h["__metadata__"].update(kind="belief"), "not a value network"),
    (lambda h: h["__metadata__"].update(format="cardarena-bot"), "not a cardarena network file"),
    (lambda h: h["__metadata__"].update(input_size="7"), "its input is 7 numbers"),
    (lambda h: h["__metadata__"].update(players="3"), "made for"),
    (lambda h: h["__metadata__"].update(output_shape="[1000000000]"), "malformed metadata"),
    (lambda h: h["__metadata__"].update(scale="NaN"), "malformed metadata"),
    (lambda h: h["__metadata__"].update(training='{"baseline": "engine(cmd=touch /tmp/x)"}'), "checksum"),
    (lambda h: h["layer.0.weight"].update(shape=[100000, 100000]), "layer 0 has shape"),
    (lambda h: h.update({"module:os.system": h.pop("layer.1.bias")}), "unexpected tensor"),
    (lambda h: h.pop("layer.1.bias"), "needs a weight and a bias"),
])
def test_a_tampered_value_file_is_refused_in_one_line(tmp_path, page_one, edit, message):
    bad = _tamper(write_net(tmp_path / "v.safetensors", page_one), edit)
    with pytest.raises(NetFileError, match=message) as err:
        load(bad, kind="value", game=page_one, input_size=FullStateEncoder(page_one).size)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("content", [b"", b"\x80\x04K.", b"PK\x03\x04" + b"0" * 40, b"\xff" * 16])
def test_what_is_not_a_network_file_is_refused(tmp_path, page_one, content):
    path = tmp_path / "junk.safetensors"
    path.write_bytes(content)
    with pytest.raises(NetFileError):
        load(path, kind="value", game=page_one)


def test_a_search_refuses_a_value_file_of_another_game(tmp_path, page_one):
    canasta = pyspiel.load_game("python_modern_canasta")
    path = write_net(tmp_path / "canasta.safetensors", canasta)
    with pytest.raises(ValueError, match="value="):
        make_bot(f"ismcts(iterations=10,value={path})", page_one, 0, 0)


# ------------------------------------------------------------------ the encoding
def test_every_seat_gets_its_own_value_whichever_seat_the_network_reads_from(tmp_path, page_one):
    net = value_network(str(write_net(tmp_path / "v.safetensors", page_one)), page_one)
    encoder = FullStateEncoder(page_one)
    for state in page_one_states(PAGE_ONE, 6, 3):
        me = state.current_player()
        out = net.net.mlp(encoder.encode(rules_core(state), me)) * net.net.scale
        values = net.values(rules_core(state))
        assert values == pytest.approx([float(out[(seat - me) % 4]) for seat in range(4)], abs=1e-5)
        assert np.allclose(net.batch([rules_core(state)])[0], values, atol=1e-5)


def test_the_encoding_holds_every_hand(page_one):
    # Two worlds of one information state differ in the others' hands: the encoding tells them apart.
    encoder = FullStateEncoder(page_one)
    rng = random.Random(5)
    for state in page_one_states(PAGE_ONE, 6, 4):
        me = state.current_player()
        world = rules_core(state).resample_from_infostate(me, rng.random)
        if any(world.hands[s] != rules_core(state).hands[s] for s in range(4)):
            assert not np.array_equal(encoder.encode(rules_core(state), me), encoder.encode(world, me))


# ------------------------------------------------------------------ the search
@pytest.mark.parametrize("spec", ["ismcts(iterations=60,value={})", "pimc(worlds=3,iterations=20,value={})",
                                  "ismcts(iterations=60,rollout=rules,horizon=3,value={})"])
def test_a_search_with_a_value_network_never_reads_hidden_cards(tmp_path, page_one, spec):
    spec = spec.format(write_net(tmp_path / "v.safetensors", page_one))
    rng = random.Random(11)
    for state in page_one_states(PAGE_ONE, 12, 2):
        me = state.current_player()
        world = state.resample_from_infostate(me, rng.random)
        assert make_bot(spec, page_one, me, 7).search(state) == make_bot(spec, page_one, me, 7).search(world)


def test_the_network_values_the_leaf_in_place_of_a_playout(tmp_path, page_one):
    # horizon 0: every leaf's value is the network's, so an iteration plays no move past the tree.
    net = value_network(str(write_net(tmp_path / "v.safetensors", page_one)), page_one)
    bot = make_bot(f"ismcts(iterations=40,value={net.net.path})", page_one, 0, 0)
    assert bot.horizon == 0 and bot.evaluator.leaf == bot.value_net.values
    state = rules_core(page_one_states(PAGE_ONE, 1, 9)[0])
    world = state.resample_from_infostate(state.current_player(), random.Random(1).random)
    assert bot.evaluator.evaluate(world.clone(), random.Random(2).random) == pytest.approx(net.values(world))


@pytest.mark.parametrize("setting, message", [("horizon=none", "with a value network"),
                                              ("horizon=-1", "with a value network"),
                                              ("horizon=auto", None), ("horizon=4", None)])
def test_a_horizon_with_a_value_network_is_a_number_of_moves(tmp_path, page_one, setting, message):
    spec = f"ismcts(iterations=10,value={write_net(tmp_path / 'v.safetensors', page_one)},{setting})"
    if message is None:
        make_bot(spec, page_one, 0, 0)
    else:
        with pytest.raises(ValueError, match=message):
            make_bot(spec, page_one, 0, 0)


def test_a_missing_shipped_value_network_is_one_clear_line():
    game = pyspiel.load_game("kuhn_poker")
    with pytest.raises(ValueError, match="no value network shipped for kuhn_poker with 2 players"):
        make_bot("ismcts(iterations=10,value=shipped)", game, 0, 0)


# ------------------------------------------------------------------ the recipe
def test_self_play_then_regression_writes_a_network_a_search_reads(tmp_path):
    from scripts.cli import main
    game_string = "python_page_one(players=3)"
    data, out = tmp_path / "sp.db", tmp_path / "v.safetensors"
    main(["selfplay", "--game", game_string, "--policy", "rules", "--deals", "40", "--out", str(data),
          "--seed", "3", "--quiet"])
    main(["train-value", "--game", game_string, "--data", str(data), "--out", str(out), "--epochs", "3",
          "--per-game", "4", "--hidden", "16", "--quiet", "--check-positions", "3", "--check-playouts", "3"])
    report = json.loads(Path(f"{out.with_suffix('')}.report.json").read_text())
    assert report["games"] == 4 and report["positions"] == 16 and report["playout_check"]["positions"] == 3
    assert Path(f"{out.with_suffix('')}.curve.png").stat().st_size > 0
    import onnxruntime
    twin = onnxruntime.InferenceSession(str(out.with_suffix(".onnx")), providers=["CPUExecutionProvider"])
    x = np.random.default_rng(2).random((3, twin.get_inputs()[0].shape[1]), dtype=np.float32)
    assert np.allclose(twin.run(["y"], {"x": x})[0], load(out, kind="value").mlp(x), atol=1e-5)
    game = pyspiel.load_game(game_string)
    net = value_network(str(out), game)
    assert net.net.training["train_positions"] == 36 * 4
    bot = make_bot(f"pimc(worlds=2,iterations=10,value={out})", game, 0, 1)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert bot.step(state) in state.legal_actions()


@pytest.mark.parametrize("game_string, used", [("python_page_one(players=4)", True),
                                               ("python_page_one(players=4,jokers=2)", False),
                                               ("python_modern_canasta(score0=1500,first_player=2)", True),
                                               ("python_american_page_one(players=4,dobon=true)", False)])
def test_the_table_values_with_a_shipped_network_only_at_the_variant_it_learnt(game_string, used):
    # A match's later deals (scores, first player) are the same variant; other rules are not.
    from search.analysis import review_evaluator
    evaluator = review_evaluator(pyspiel.load_game(game_string))
    assert (evaluator.value == "shipped") == used and (evaluator.horizon is not None) == used
