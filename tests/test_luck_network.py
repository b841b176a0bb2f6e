"""A luck network (eval/luck.py LuckNetwork, training/luck_value.py): a value for
luck that knows who sits where, read only from the first decision on, trained on
the differences between an event's outcomes."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

import games  # noqa: F401
from eval.config import file_sha256
from eval.luck import LuckNetwork, luck_events, luck_judge, luck_network, state_values
from eval.tournament import TournamentConfig
from games.chance import DealChance
from games.load import load_game
from games.seeding import derive_seed
from search.netfile import NetFileError, save
from search.value import FullStateEncoder, perspective, value_network
import training.luck_value as luck_value
from training.luck_value import (LuckData, Recipe, SparseRows, averaged_error, build_data, load_data, play_game, run,
                                 save_data, seatings, train)

PAGE_ONE = "python_page_one(players=4)"


def _luck_file(path, game_string: str, agents: list[str], seed: int = 0, hidden: int = 16, **notes):
    """A luck network of random weights for `agents` at the game (`notes`: more training notes)."""
    game = load_game(game_string)
    n = game.num_players()
    size = LuckNetwork.input_size(FullStateEncoder(game).size, n, len(agents))
    rng = np.random.default_rng(seed)
    layers = [(rng.normal(0, 0.1, (hidden, size)), rng.normal(0, 0.1, hidden)),
              (rng.normal(0, 0.3, (n, hidden)), np.zeros(n))]
    return save(path, layers, kind="luck", game=str(game), short_name=game.get_type().short_name, players=n,
                output_shape=[n], scale=1.0, training={"agents": agents, **notes})


def _random_deal(game, seed: int) -> list[int]:
    rng, chance = random.Random(seed), DealChance(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(chance(state) if state.is_chance_node() else rng.choice(state.legal_actions()))
    return state.history()


def test_its_input_says_which_agent_sits_at_each_seat_from_the_player_to_move(tmp_path):
    game = load_game(PAGE_ONE)
    net = luck_network(str(_luck_file(tmp_path / "po.luck.safetensors", PAGE_ONE, ["rules", "random"])), game)
    state = game.new_initial_state()
    for action in _random_deal(game, 3)[:40]:
        state.apply_action(action)
    assert not state.is_chance_node()
    me, width = perspective(state), net.encoder.size
    row = np.empty(net.net.mlp.input_size, np.float32)
    net.encode(state, [0, 1, 0, 1], row)
    assert np.array_equal(row[:width], FullStateEncoder(game).encode(state, me))
    seats = row[width:].reshape(4, 2)
    assert [int(np.argmax(seats[k])) for k in range(4)] == [[0, 1, 0, 1][(me + k) % 4] for k in range(4)]
    assert seats.sum() == 4
    one, other = net.seated([0, 1, 0, 1]).batch([state]), net.seated([1, 0, 1, 0]).batch([state])
    assert not np.allclose(one, other)      # the same cards, the agents swapped: another value
    # Outputs are per relative seat: seat s reads output (s - me) % n.
    out = net.net.mlp(row[None, :])[0]
    assert np.allclose(one[0], [out[(s - me) % 4] for s in range(4)])


def test_a_file_that_is_not_a_luck_network_for_these_agents_is_refused_in_one_line(tmp_path):
    game = load_game(PAGE_ONE)
    path = _luck_file(tmp_path / "po.luck.safetensors", PAGE_ONE, ["rules", "random"])
    with pytest.raises(ValueError, match="trained for rules, random, not 'ismcts'"):
        luck_network(str(path), game).for_agents(["rules", "ismcts"])
    with pytest.raises(NetFileError, match="made for"):
        luck_network(str(path), load_game("python_page_one(players=3)"))
    with pytest.raises(NetFileError, match="not a luck network"):
        luck_network(str(value_network("shipped", game).net.path), game)
    with pytest.raises(NetFileError, match="is not a file"):
        luck_network(str(tmp_path), game)
    nameless = _luck_file(tmp_path / "x.luck.safetensors", PAGE_ONE, [])
    with pytest.raises(NetFileError, match="must name the agents"):
        luck_network(str(nameless), game)
    config = TournamentConfig.create(PAGE_ONE, ["rules", "ismcts"], deals=1, seed=0)
    with pytest.raises(ValueError, match="not 'ismcts'"):
        luck_judge(config, str(path))


def test_its_luck_weighs_to_nothing_and_starts_at_the_first_decision(tmp_path):
    """The luck of each outcome a chance event allowed, weighed by its probability,
    sums to exactly 0 (unbiased whatever the weights), and no event of the deal is measured."""
    game = load_game(PAGE_ONE)
    net = luck_network(str(_luck_file(tmp_path / "po.luck.safetensors", PAGE_ONE, ["rules", "random"])), game)
    seated = net.seated([0, 1, 0, 1])
    actions = _random_deal(game, 5)
    events = luck_events(game, actions, seated)
    state, first_decision = game.new_initial_state(), None
    for i, a in enumerate(actions):
        if not state.is_chance_node() and first_decision is None:
            first_decision = i
        state.apply_action(a)
    assert events and min(e.move for e in events) > first_decision
    assert len(luck_events(game, actions, value_network("shipped", game))) > len(events)   # the shipped net: the deal too
    event = events[len(events) // 2].move
    before = game.new_initial_state()
    for a in actions[:event]:
        before.apply_action(a)
    total = sum(p * luck_events(game, actions[:event] + [o], seated)[-1].luck[0]
                for o, p in before.chance_outcomes())
    assert abs(total) < 1e-9
    children = []
    for o, _ in before.chance_outcomes():
        child = before.clone()
        child.apply_action(o)
        children.append(child)
    assert np.ptp(state_values(seated, children)[:, 0]) > 0      # and the terms are not all nothing


def test_events_hold_each_outcome_with_the_same_rollout_seeds():
    """Two draws of one outcome at an event are rolled out with the same seeds, so
    their targets agree exactly (common random numbers); every event has its outcomes."""
    recipe = Recipe(PAGE_ONE, ("rules", "random"), 2, 2, 7)
    twins = events = 0
    for index, seats in enumerate(seatings(load_game(PAGE_ONE), 2, 8, 7)):
        got = play_game((recipe, index, seats))
        x, y, child = np.array(got["x"]), np.array(got["y"]), np.array(got["row_child"])
        assert len(y) % 2 == 0 and len(y) > 0
        assert np.all(np.diff(child) >= 0) and child.max() < len(y)
        events += len(y) // 2
        for e in range(len(y) // 2):
            a, b = (x[child == c] for c in (2 * e, 2 * e + 1))
            if len(a) and a.shape == b.shape and np.array_equal(a, b):
                twins += 1
                assert np.array_equal(y[2 * e], y[2 * e + 1])
    assert twins > 0 and events > 50


def test_without_rollouts_each_event_holds_the_outcome_the_game_drew_and_the_games_result():
    """--rollouts 0: one child an event (the outcome the game itself took), at the
    same events as the rollout recipe's, every target the result of the very game
    the recipe plays."""
    game = load_game(PAGE_ONE)
    recipe, rolled = Recipe(PAGE_ONE, ("rules", "random"), 1, 0, 4), Recipe(PAGE_ONE, ("rules", "random"), 2, 1, 4)
    events = 0
    for index, seats in enumerate(seatings(game, 2, 3, 4)):
        got, twin = play_game((recipe, index, seats)), play_game((rolled, index, seats))
        y = np.array(got["y"])
        assert len(y) == len(twin["y"]) // 2 > 0           # the same events, one outcome each
        events += len(y)
        assert np.all(y == y[0]) and y[0].sum() == pytest.approx(0.0) and np.ptp(y[0]) > 0
        # The game the events followed is the one the rollout recipe plays (its own draws left aside):
        bots = luck_value._bots(game, recipe, list(seats), derive_seed(4, index))
        chance = DealChance(derive_seed(luck_value._TABLE, 4, index))
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(chance(state) if state.is_chance_node() else bots[state.current_player()].step(state))
        assert np.array_equal(y[0], state.returns())
    assert events > 10


def test_training_on_the_games_results_fits_their_levels():
    """One outcome an event (the games' own results): nothing to centre on, so the
    fit is the plain error, reported beside the results' spread about their mean."""
    rng = np.random.default_rng(1)
    events, n, d = 3000, 2, 12
    x = rng.normal(size=(events, d)).astype(np.float32)
    y = (x @ rng.normal(size=(d, n)) + rng.normal(0, 0.3, (events, n))).astype(np.float32)
    data = LuckData(SparseRows.of(x.astype(np.float16)), np.arange(events), np.ones(events, np.float32),
                    np.zeros(events, np.int64), np.zeros((events, n), np.float32), y, np.arange(events) // 10, 1)
    _, _, curve, report = train(data, agents=1, hidden=(16, 32), epochs=12, batch=64, lr=3e-3, weight_decay=0.0,
                                level=0.05, held_out=0.2, seed=0, progress=False)
    assert "held_out_centred_error" not in report
    assert report["held_out_error"] < 0.2 * report["held_out_spread"]
    assert curve[-1]["held_out"] < curve[0]["held_out"]


def test_events_gathered_in_blocks_are_the_games_events_end_to_end(monkeypatch):
    """build_data gathers the games into blocks to keep its memory to the events'
    own size; the blocks' seams change nothing: each game's rows, children and
    events follow the last game's, numbered on, whatever the block."""
    recipe = Recipe(PAGE_ONE, ("rules", "random"), 2, 1, 3)
    games = [play_game((recipe, g, seats)) for g, seats in enumerate(seatings(load_game(PAGE_ONE), 2, 5, 3))]
    monkeypatch.setattr(luck_value, "_BLOCK", 2)
    data = build_data(recipe, 5, workers=1, progress=False)
    children = np.cumsum([0] + [len(g["y"]) for g in games])
    assert np.array_equal(data.x.dense(np.arange(len(data.x))),
                          np.concatenate([np.array(g["x"], np.float32) for g in games]))
    numbered_on = [np.array(g["row_child"]) + c for g, c in zip(games, children)]
    assert np.array_equal(data.row_child, np.concatenate(numbered_on))
    assert np.array_equal(data.y, np.concatenate([np.array(g["y"], np.float32) for g in games]))
    assert np.array_equal(data.const, np.concatenate([np.array(g["const"], np.float32) for g in games]))
    assert np.array_equal(data.row_seat, np.concatenate([g["row_seat"] for g in games]))
    assert np.array_equal(data.event_game, np.repeat(np.arange(5), [len(g["y"]) // 2 for g in games]))
    assert len(data.row_weight) == len(data.x)


def test_inputs_kept_sparse_read_back_as_they_were_in_any_order():
    """SparseRows keeps only the nonzero entries; any rows read back (repeated,
    out of order, all zero, none at all) are the dense rows, and rows joined end
    to end read as the dense arrays stacked."""
    rng = np.random.default_rng(4)
    dense = (rng.random((40, 9)) < 0.2) * rng.integers(1, 5, (40, 9)).astype(np.float16)
    dense[7] = 0
    rows = SparseRows.of(dense)
    assert len(rows.value) == np.count_nonzero(dense) and len(rows) == 40
    for chosen in (np.arange(40), np.array([7, 3, 3, 39, 0]), np.array([], np.int64)):
        assert np.array_equal(rows.dense(chosen), dense[chosen].astype(np.float32))
    more = dense[::-1].copy()
    joined = SparseRows.joined([SparseRows.of(dense), SparseRows.of(more)])
    assert np.array_equal(joined.dense(np.arange(80)), np.concatenate([dense, more]).astype(np.float32))


def _same_events(a: LuckData, b: LuckData) -> bool:
    fields = ("row_child", "row_weight", "row_seat", "const", "y", "event_game")
    return (all(np.array_equal(getattr(a, k), getattr(b, k)) for k in fields)
            and np.array_equal(a.x.dense(np.arange(len(a.x))), b.x.dense(np.arange(len(b.x)))))


def test_a_file_of_events_grows_by_the_games_it_lacks_into_the_events_of_them_all(tmp_path):
    """Events kept for the first games of a recipe are played on from the last
    game they hold: the file then holds exactly what playing every game at once
    makes, so a longer run reuses the hours a shorter one spent. A file of more
    games than asked for is refused in one line."""
    import argparse
    recipe = Recipe(str(load_game(PAGE_ONE)), ("rules", "random"), 2, 1, 5)     # as run names it
    whole = build_data(recipe, 5, workers=1, progress=False)
    assert _same_events(build_data(recipe, 3, workers=1, progress=False)
                        .followed_by(build_data(recipe, 5, workers=1, progress=False, first=3)), whole)
    events = tmp_path / "e.npz"
    for games in (3, 5):
        args = argparse.Namespace(game=PAGE_ONE, agents=["rules", "random"], out=str(tmp_path / f"{games}.safetensors"),
                                  games=games, outcomes=2, rollouts=1, events=str(events), workers=1, threads=1,
                                  held_out=0.34, hidden=[8, 8], seat_layers=1, epochs=1, batch=16, lr=1e-3,
                                  weight_decay=0.0, level=0.05, seed=5, quiet=True, coupling="numbers", horizon=0,
                                  bootstrap=None)
        run(args)
        assert load_data(events, recipe, games)[1] == games
    assert _same_events(load_data(events, recipe, 5)[0], whole)
    with pytest.raises(ValueError, match="holds the events of 5 games, more than --games 4"):
        load_data(events, recipe, 4)
    with pytest.raises(ValueError, match="another recipe .its seed differ"):
        load_data(events, Recipe(recipe.game, ("rules", "random"), 2, 1, 6), 5)
    with pytest.raises(ValueError, match="another recipe .its coupling differ"):
        load_data(events, Recipe(recipe.game, ("rules", "random"), 2, 1, 5, "stock"), 5)
    # A file from before the stock coupling names none: its rollouts drew from the seeds' numbers.
    with np.load(events) as z:
        arrays = {k: z[k] for k in z.files}
    stored = json.loads(str(arrays["recipe"]))
    del stored["coupling"]
    arrays["recipe"] = np.array(json.dumps(stored))
    older = tmp_path / "older.npz"
    np.savez(older, **arrays)
    assert _same_events(load_data(older, recipe, 5)[0], whole)
    with pytest.raises(ValueError, match="another recipe .its coupling differ"):
        load_data(older, Recipe(recipe.game, ("rules", "random"), 2, 1, 5, "stock"), 5)
    # Nor a horizon: its rollouts played to the end. Events made with a bootstrap are another recipe.
    boot = _luck_file(tmp_path / "boot.luck.safetensors", PAGE_ONE, ["rules", "random"])
    with pytest.raises(ValueError, match="another recipe .its horizon, bootstrap differ"):
        load_data(older, Recipe(recipe.game, ("rules", "random"), 2, 1, 5, "numbers", 3, str(boot)), 5)


def test_coupled_stocks_are_uniform_shuffles_of_what_each_outcome_leaves_and_differ_in_one_card():
    """The stock coupling (train-luck --coupling stock): after each outcome drawn at
    an event, a stock that is exactly what the outcome leaves of the deck, in a uniformly
    random order (every arrangement as often, within 4.5 standard errors, over 6,000
    seeds), and the same card as after any other outcome at every place but one."""
    from collections import Counter
    law = [(0, 0.4), (1, 0.2), (2, 0.4)]            # a deck of two 0s, one 1 and two 2s
    deck = Counter({0: 2, 1: 1, 2: 2})
    arrangements = [Counter(), Counter()]
    seeds = 6000
    for seed in range(seeds):
        stocks = luck_value.coupled_stocks(law, [0, 1], seed)
        for k, (outcome, stock) in enumerate(zip((0, 1), stocks)):
            assert Counter(stock) == deck - Counter({outcome: 1})
            arrangements[k][tuple(stock)] += 1
        assert sum(a != b for a, b in zip(*stocks)) == 1
    for counts, expected in zip(arrangements, (12, 6)):       # 4!/(2!) and 4!/(2! 2!) arrangements
        assert len(counts) == expected
        share = 1 / expected
        se = (share * (1 - share) / seeds) ** 0.5
        assert all(abs(c / seeds - share) < 4.5 * se for c in counts.values()), counts
    assert luck_value.coupled_stocks(law, [2, 2], 3)[0] == luck_value.coupled_stocks(law, [2, 2], 3)[1]
    not_a_deck = [(0, 1 / math.pi), (1, 1 - 1 / math.pi)]      # no whole numbers of copies make these
    assert luck_value.coupled_stocks(not_a_deck, [0, 1], 0) is None


def test_a_rollout_to_a_horizon_is_valued_there_by_the_bootstrap_network(tmp_path):
    """--horizon H --bootstrap FILE: a rollout plays H decisions (the same bots and
    chance as a full one) and returns the bootstrap's values where it stopped, seated
    as the rollout's table is; a game that ends first gives its returns; the events
    file names the bootstrap by its bytes."""
    game = load_game(PAGE_ONE)
    # The bootstrap names its agents in the other order: seats are mapped by name.
    boot = _luck_file(tmp_path / "boot.luck.safetensors", PAGE_ONE, ["random", "rules"], seed=3)
    network = luck_network(str(boot), game)
    seats = [0, 1, 0, 1]
    for horizon in (1, 3, 9):
        recipe = Recipe(PAGE_ONE, ("rules", "random"), 2, 1, 0, "stock", horizon, str(boot))
        state = game.new_initial_state()
        chance = DealChance(11)
        while state.is_chance_node():
            state.apply_action(chance(state))
        full = Recipe(PAGE_ONE, ("rules", "random"), 2, 1, 0, "stock")
        for seed in range(4):
            got = luck_value._rollout(game, recipe, seats, state, seed, None)
            bots, played = luck_value._bots(game, full, seats, seed), state.clone()
            chance_of_seed, decisions = DealChance(seed), 0
            while not played.is_terminal() and decisions < horizon:
                if played.is_chance_node():
                    played.apply_action(chance_of_seed(played))
                else:
                    played.apply_action(bots[played.current_player()].step(played))
                    decisions += 1
            while played.is_chance_node():        # the chance before the next decision is drawn too
                played.apply_action(chance_of_seed(played))
            want = (played.returns() if played.is_terminal()
                    else state_values(network.seated([1, 0, 1, 0]), [played])[0])
            assert np.allclose(got, want)
    assert luck_value.bootstrap_digest(recipe) == __import__("hashlib").sha256(boot.read_bytes()).hexdigest()


def test_it_learns_the_seatings_a_tournament_of_its_agents_plays():
    """Every lineup and rotation at four-player Page One, a partnership each at
    four-player Canasta: what the harness seats (eval/schedule.py)."""
    page_one = {tuple(s) for s in seatings(load_game(PAGE_ONE), 2, 60, 0)}
    assert page_one == {(0, 1, 0, 1), (1, 0, 1, 0), (0, 0, 1, 1), (1, 1, 0, 0), (0, 1, 1, 0), (1, 0, 0, 1)}
    canasta = {tuple(s) for s in seatings(load_game("python_classic_canasta(players=4)"), 2, 60, 0)}
    assert canasta == {(0, 1, 0, 1), (1, 0, 1, 0)}


def test_training_learns_the_differences_and_ignores_what_siblings_share():
    """Synthetic events: each outcome's target is a linear function of its input plus
    a large offset its siblings share; the centred loss learns the function and
    leaves the offset alone."""
    rng = np.random.default_rng(0)
    events, m, n, d = 3000, 2, 2, 12
    x = rng.normal(size=(events * m, d)).astype(np.float32)
    w = rng.normal(size=(d, n))
    offset = np.repeat(rng.normal(0, 5.0, (events, n)), m, axis=0)
    y = (x @ w + offset).astype(np.float32)
    data = LuckData(SparseRows.of(x.astype(np.float16)), np.arange(events * m), np.ones(events * m, np.float32),
                    np.zeros(events * m, np.int64), np.zeros((events * m, n), np.float32), y,
                    np.arange(events) // 10, m)
    layers, scale, curve, report = train(data, agents=1, hidden=(16, 32), epochs=12, batch=64, lr=3e-3,
                                         weight_decay=0.0, level=0.0, held_out=0.2, seed=0, progress=False)
    assert report["held_out_centred_error"] < 0.05 * report["held_out_centred_spread"]
    assert curve[-1]["held_out"] < curve[0]["held_out"]
    # The held-out error read in numpy, as a file noting "averaged" is read, over the one identity relabelling:
    # the figure training reports (the same rows, columns, weights and scale).
    first = int(np.flatnonzero(data.event_game >= 240)[0])
    assert averaged_error(data, layers, scale, first, np.arange(d)[None], agents=1) == pytest.approx(
        report["held_out_centred_error"], rel=1e-4)



def test_training_under_relabellings_learns_what_only_a_relabelling_shows():
    """Synthetic events whose targets are the same under swapping two inputs: the
    training games show only one order of the two, the held-out games only the
    other. Read under the swap, the network learns the held-out order too; read
    as they are, it cannot."""
    rng = np.random.default_rng(1)
    events, m, n, d = 3000, 2, 2, 12
    x = rng.normal(size=(events * m, d)).astype(np.float32)
    held = np.arange(events * m) // m >= 2400               # games 240-299 of 300: the held-out fifth
    wrong_order = (x[:, 0] < x[:, 1]) != held
    x[wrong_order, 0], x[wrong_order, 1] = x[wrong_order, 1], x[wrong_order, 0].copy()
    alike = x[:, 0] + x[:, 1] + 2 * np.abs(x[:, 0] - x[:, 1])   # the same under the swap
    y = np.stack([(k + 1) * alike + x[:, 2 + k] for k in range(n)], 1)
    y += np.repeat(rng.normal(0, 5.0, (events, n)), m, axis=0)
    data = LuckData(SparseRows.of(x.astype(np.float16)), np.arange(events * m), np.ones(events * m, np.float32),
                    np.zeros(events * m, np.int64), np.zeros((events * m, n), np.float32), y.astype(np.float32),
                    np.arange(events) // 10, m)
    swap = np.arange(d)
    swap[[0, 1]] = [1, 0]

    def held_out_error(permutations):
        _, _, _, report = train(data, agents=1, hidden=(16, 32), epochs=12, batch=64, lr=3e-3, weight_decay=0.0,
                                level=0.0, held_out=0.2, seed=0, permutations=permutations, progress=False)
        return report["held_out_centred_error"], report["held_out_centred_spread"]

    relabelled, spread = held_out_error(np.stack([np.arange(d), swap]))
    as_they_are, _ = held_out_error(None)
    assert relabelled < 0.1 * spread
    assert relabelled < 0.3 * as_they_are


@pytest.mark.parametrize("hidden, seat_layers", [((5, 9), 1), ((5, 6, 9), 2), ((5, 6, 3, 9), 3)])
def test_the_shared_seat_layers_are_written_as_the_plain_network_they_are(hidden, seat_layers):
    """The model's layers shared by every seat, written as a block matrix (the
    first) and block-diagonal ones (the later): the plain perceptron a network
    file holds gives the model's outputs exactly."""
    import torch

    from search.netfile import Mlp
    from training.luck_value import seat_shared
    players, agents, seat_inputs = 4, 2, 7
    model = seat_shared(players, agents, seat_inputs, hidden, seat_layers)
    x = torch.randn(11, players * (seat_inputs + agents))
    with torch.no_grad():
        expected = model(x).numpy()
    layers = model.plain_layers()
    assert [w.shape[0] for w, _ in layers] == [players * h for h in hidden[:seat_layers]] + [*hidden[seat_layers:], 4]
    assert np.allclose(Mlp(layers)(x.numpy()), expected, atol=1e-5)
    with pytest.raises(ValueError, match="seat_layers"):
        seat_shared(players, agents, seat_inputs, hidden, len(hidden))


def test_a_shared_seat_layer_is_read_once_a_seat_with_the_same_outputs():
    """eval.luck reads a first layer written as identical seat blocks one seat at a
    time (a quarter of the arithmetic), with the plain perceptron's outputs; a
    first layer that is not such a block matrix is read as it is."""
    from eval.luck import seat_shared_or_plain
    from search.netfile import Mlp
    from training.luck_value import seat_shared
    players, agents, seat_inputs = 4, 2, 7
    layers = seat_shared(players, agents, seat_inputs, (5, 9)).plain_layers()
    x = np.random.default_rng(0).random((13, players * (seat_inputs + agents))).astype(np.float32)
    fast = seat_shared_or_plain(Mlp(layers), players, agents)
    assert fast.seat_layers == 1
    assert np.allclose(fast(x), Mlp(layers)(x), atol=1e-5)
    (w, b), *rest = layers
    w = w.copy()
    w[0, players * seat_inputs - 1] = 0.5        # the first seat's neuron reads the last seat's cards
    assert isinstance(seat_shared_or_plain(Mlp([(w, b), *rest]), players, agents), Mlp)
    b = b.copy()
    b[-1] += 1.0                                  # one seat's bias differs
    assert isinstance(seat_shared_or_plain(Mlp([(layers[0][0], b), *rest]), players, agents), Mlp)


def test_a_tower_of_shared_seat_layers_is_read_once_a_seat_as_far_as_it_is_shared():
    """Two layers each seat reads alone are both read a seat at a time; a second
    layer whose blocks differ (the seats no longer read alike) is read as it is,
    after a first layer read a seat at a time: the outputs are the plain
    perceptron's either way."""
    from eval.luck import seat_shared_or_plain
    from search.netfile import Mlp
    from training.luck_value import seat_shared
    players, agents, seat_inputs = 4, 2, 7
    layers = seat_shared(players, agents, seat_inputs, (5, 6, 9), seat_layers=2).plain_layers()
    x = np.random.default_rng(1).random((13, players * (seat_inputs + agents))).astype(np.float32)
    fast = seat_shared_or_plain(Mlp(layers), players, agents)
    assert fast.seat_layers == 2 and np.allclose(fast(x), Mlp(layers)(x), atol=1e-5)
    w, b = layers[1]
    w = w.copy()
    w[0, 0] += 0.5                                                # the first seat's block differs
    mixed = [layers[0], (w, b), *layers[2:]]
    fast = seat_shared_or_plain(Mlp(mixed), players, agents)
    assert fast.seat_layers == 1
    assert np.allclose(fast(x), Mlp(mixed)(x), atol=1e-5)


def test_an_event_relabelled_reads_as_the_game_with_its_suits_relabelled(tmp_path):
    """suit_relabellings: the luck network's input under a suit relabelling is the
    input of the very game played with those suits (every seat's view, the seats'
    agents unchanged); a game whose suits differ declares none."""
    from itertools import permutations
    from tests.suit_support import page_one_suits_relabelled
    from eval.luck import suit_relabellings
    game = load_game(PAGE_ONE)
    net = luck_network(str(_luck_file(tmp_path / "po.luck.safetensors", PAGE_ONE, ["rules", "random"])), game)
    relabellings = suit_relabellings(game, 2)
    assert relabellings is not None and relabellings.shape == (24, net.net.mlp.input_size)
    checked = 0
    for seed in range(6):
        state = game.new_initial_state()
        for action in _random_deal(game, seed)[:30 + 7 * seed]:
            state.apply_action(action)
        for p, perm in enumerate(permutations(range(4))):
            relabelled = page_one_suits_relabelled(state.core, perm)
            row, expected = np.empty(net.net.mlp.input_size, np.float32), np.empty(net.net.mlp.input_size, np.float32)
            net.encode(state, [0, 1, 1, 0], row)
            net.encode(relabelled, [0, 1, 1, 0], expected)
            assert np.array_equal(row[relabellings[p]], expected)
            checked += p > 0 and not np.array_equal(row, expected)
    assert checked > 100       # the relabelling moved something almost every time
    assert suit_relabellings(load_game("python_classic_canasta(players=4)"), 2) is None


def test_a_network_read_averaged_over_the_suits_values_a_game_as_its_suits_relabelled(tmp_path):
    """A file noting `"averaged": "suits"` is read as the mean of its plain readings
    over the 24 relabelled inputs, so a position and the same game with its suits
    relabelled get the same values (read plainly, they differ); a file asking an
    average the game has no symmetry for, or of anything but the suits, is refused."""
    from itertools import permutations
    from eval.luck import suit_relabellings
    from tests.suit_support import page_one_suits_relabelled
    game = load_game(PAGE_ONE)
    plain = luck_network(str(_luck_file(tmp_path / "p.luck.safetensors", PAGE_ONE, ["rules", "random"])), game)
    averaged = luck_network(str(_luck_file(tmp_path / "a.luck.safetensors", PAGE_ONE, ["rules", "random"],
                                           averaged="suits")), game)
    relabellings = suit_relabellings(game, 2)
    state = game.new_initial_state()
    for action in _random_deal(game, 4)[:36]:
        state.apply_action(action)
    seating = [0, 1, 1, 0]
    row = np.empty(plain.net.mlp.input_size, np.float32)
    plain.encode(state, seating, row)
    mean = np.mean([plain.net.mlp(row[r][None]) for r in relabellings], axis=0) * plain.net.scale
    assert np.allclose(averaged.seated(seating).batch([state]), np.roll(mean, perspective(state)), atol=1e-6)
    moved = 0
    for perm in list(permutations(range(4)))[1:]:
        twin = page_one_suits_relabelled(state.core, perm)
        assert np.allclose(averaged.seated(seating).batch([twin]), averaged.seated(seating).batch([state]), atol=1e-6)
        moved += not np.allclose(plain.seated(seating).batch([twin]), plain.seated(seating).batch([state]), atol=1e-4)
    assert moved > 15
    canasta = "python_classic_canasta(players=4)"
    with pytest.raises(NetFileError, match="declares no suit symmetry"):
        luck_network(str(_luck_file(tmp_path / "c.luck.safetensors", canasta, ["rules", "random"], averaged="suits")),
                     load_game(canasta))
    with pytest.raises(NetFileError, match="only 'suits' or 'none'"):
        luck_network(str(_luck_file(tmp_path / "b.luck.safetensors", PAGE_ONE, ["rules", "random"],
                                    averaged="ranks")), game)


def test_train_luck_writes_a_network_read_averaged_where_the_suits_are_alike(tmp_path):
    """The recipe end to end on a few games: Page One's network notes it was
    trained relabelled and is read averaged; classic Canasta's, neither. Each is
    read a seat at a time through as many layers as it was trained to share, and
    notes how its rollouts were coupled and stopped (classic Canasta's at a horizon,
    under a bootstrap network it names by its bytes)."""
    import argparse
    from search.netfile import load
    classic = "python_classic_canasta(players=2)"
    boot = _luck_file(tmp_path / "boot.luck.safetensors", classic, ["rules", "random"])
    for game_string, averaged, seat_layers, coupling, horizon in ((PAGE_ONE, "suits", 2, "numbers", 0),
                                                                   (classic, "none", 1, "stock", 2)):
        out = tmp_path / f"{averaged}.luck.safetensors"
        args = argparse.Namespace(game=game_string, agents=["rules", "random"], out=str(out), games=3, outcomes=2,
                                  rollouts=1, events=None, workers=1, threads=1, held_out=0.34, hidden=[8, 8, 8],
                                  seat_layers=seat_layers, epochs=1, batch=16, lr=1e-3, weight_decay=0.0, level=0.05,
                                  seed=0, quiet=True, coupling=coupling, horizon=horizon,
                                  bootstrap=str(boot) if horizon else None)
        run(args)
        notes = load(out, kind="luck", game=load_game(game_string)).training
        assert (notes["relabelled"], notes["averaged"], notes["seat_layers"]) == (averaged, averaged, seat_layers)
        assert notes["coupling"] == coupling and notes["horizon"] == horizon
        assert notes["bootstrap"] == (file_sha256(boot) if horizon else "")
        network = luck_network(str(out), load_game(game_string))
        assert (network.relabellings is None) == (averaged == "none")
        assert network.values.seat_layers == seat_layers


def _choice_of_seat_1(game, actions: list[int]) -> int:
    """A move mid-deal where seat 1 chose among several."""
    state, moves = game.new_initial_state(), []
    for i, a in enumerate(actions):
        if not state.is_chance_node() and state.current_player() == 1 and len(state.legal_actions()) > 1:
            moves.append(i)
        state.apply_action(a)
    return moves[len(moves) // 2]


def test_a_lookahead_reads_each_outcome_through_the_agents_rollouts_and_keeps_the_luck_unbiased(tmp_path):
    """Read through a lookahead, a random choice's luck weighs to exactly 0 over
    the moves the policy allowed (the rollouts' seeds are fixed before the move, so
    every move is valued alike whichever was taken), it differs from the plain
    network's, a chance event's is the plain network's (the lookahead serves
    choices alone), and the same history gives the same numbers again."""
    from agents import stated_policy
    game = load_game(PAGE_ONE)
    plain = _luck_file(tmp_path / "po.luck.safetensors", PAGE_ONE, ["rules", "random"])
    ahead = _luck_file(tmp_path / "la.luck.safetensors", PAGE_ONE, ["rules", "random"],
                       lookahead={"rollouts": 3, "horizon": 4, "weight": 0.25, "events": "choices"})
    seats = [0, 1, 0, 1]
    policies = [stated_policy(["rules", "random"][a], game) for a in seats]
    looked, flat = (luck_network(str(p), game).seated(seats) for p in (ahead, plain))
    actions = _random_deal(game, 11)
    move = _choice_of_seat_1(game, actions)
    before = game.new_initial_state()
    for a in actions[:move]:
        before.apply_action(a)
    law = policies[before.current_player()](before)
    lucks = [luck_events(game, actions[:move] + [a], looked, policies)[-1] for a, _ in law]
    assert all(e.choice and e.move == move for e in lucks)
    assert abs(sum(p * e.luck[0] for e, (_, p) in zip(lucks, law))) < 1e-9
    plain_lucks = [luck_events(game, actions[:move] + [a], flat, policies)[-1].luck[0] for a, _ in law]
    assert not np.allclose([e.luck[0] for e in lucks], plain_lucks)
    events, flat_events = luck_events(game, actions, looked, policies), luck_events(game, actions, flat, policies)
    assert [e.move for e in events] == [e.move for e in flat_events]
    assert all(np.allclose(a.luck, b.luck) for a, b in zip(events, flat_events) if not a.choice)
    assert [e.luck for e in luck_events(game, actions, looked, policies)] == [e.luck for e in events]


def test_a_lookahead_at_every_event_reads_chance_through_rollouts_too(tmp_path):
    game = load_game(PAGE_ONE)
    seats = [0, 1, 0, 1]
    plain = luck_network(str(_luck_file(tmp_path / "p.luck.safetensors", PAGE_ONE, ["rules", "random"])), game)
    ahead = luck_network(str(_luck_file(tmp_path / "a.luck.safetensors", PAGE_ONE, ["rules", "random"],
                                        lookahead={"rollouts": 2, "horizon": 0, "weight": 0.5, "events": "all"})), game)
    actions = _random_deal(game, 12)
    a, b = luck_events(game, actions, ahead.seated(seats)), luck_events(game, actions, plain.seated(seats))
    chance = [(x.luck, y.luck) for x, y in zip(a, b) if not x.choice]
    assert chance and not all(np.allclose(x, y) for x, y in chance)
    event = a[len(a) // 2].move                 # a draw in play: its luck weighs to 0 over what it allowed
    before = game.new_initial_state()
    for action in actions[:event]:
        before.apply_action(action)
    assert before.is_chance_node()
    total = sum(p * luck_events(game, actions[:event] + [o], ahead.seated(seats))[-1].luck[2]
                for o, p in before.chance_outcomes())
    assert abs(total) < 1e-9


@pytest.mark.parametrize("lookahead, words", [
    ({"rollouts": 0, "horizon": 4, "weight": 0.25, "events": "choices"}, "out of range"),
    ({"rollouts": 4, "horizon": 4, "weight": 1.0, "events": "choices"}, "out of range"),
    ({"rollouts": 4, "horizon": -1, "weight": 0.5, "events": "choices"}, "out of range"),
    ({"rollouts": 4, "horizon": 4, "weight": 0.5, "events": "chance"}, "out of range"),
    ({"rollouts": 4.0, "horizon": 4, "weight": 0.5, "events": "all"}, "out of range"),
    ({"rollouts": 4, "horizon": 4, "weight": 0.5}, "must give rollouts, horizon, weight and events"),
    ([4, 4, 0.5, "all"], "must give rollouts, horizon, weight and events")])
def test_a_malformed_lookahead_is_refused_in_one_line(tmp_path, lookahead, words):
    path = _luck_file(tmp_path / "x.luck.safetensors", PAGE_ONE, ["rules", "random"], lookahead=lookahead)
    with pytest.raises(NetFileError, match=words):
        luck_network(str(path), load_game(PAGE_ONE))


def test_luck_lookahead_writes_the_network_read_through_a_lookahead_under_its_own_name(tmp_path, capsys):
    from scripts.cli import main
    plain = _luck_file(tmp_path / "po.luck.safetensors", PAGE_ONE, ["rules", "random"])
    out = tmp_path / "la.luck.safetensors"
    main(["luck-lookahead", str(plain), "--out", str(out), "--rollouts", "4", "--horizon", "6", "--weight", "0.5",
          "--at", "all"])
    game = load_game(PAGE_ONE)
    read, first = luck_network(str(out), game), luck_network(str(plain), game)
    assert read.lookahead.notes() == {"rollouts": 4, "horizon": 6, "weight": 0.5, "events": "all"}
    assert first.lookahead is None
    assert all(np.array_equal(w, v) for (w, _), (v, _) in zip(read.net.mlp.layers, first.net.mlp.layers))
    config = TournamentConfig.create(PAGE_ONE, ["rules", "random"], deals=1, seed=0)
    assert luck_judge(config, str(out)).identity != luck_judge(config, str(plain)).identity
