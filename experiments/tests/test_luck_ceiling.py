"""The luck-ceiling experiment: its variance estimator, its ceilings, a small run and its refusals."""

import random
import subprocess
import sys

import pytest

from agents import make_bot
from experiments.luck_ceiling import DealSplit, _Table, ceilings, lineup
from games.load import load_game

GAME = "python_page_one(players=4)"


class _Coin:
    """A one-move state: after action a, rollouts return a's value plus noise."""

    def __init__(self, action=None):
        self.action = action

    def clone(self):
        return _Coin(self.action)

    def apply_action(self, action):
        self.action = action


class _NoisyTable(_Table):
    values = {0: 0.0, 1: 2.0, 2: 5.0}

    def rollout(self, state) -> float:
        return self.values[state.action] + self.rng.gauss(0.0, 3.0)


def test_spread_is_unbiased_for_the_variance_of_the_value_over_the_outcomes():
    table = _NoisyTable(None, ("a", "b"), [0, 1], random.Random(1))
    law = [(0, 0.5), (1, 0.3), (2, 0.2)]
    mean = sum(p * table.values[a] for a, p in law)
    truth = sum(p * (table.values[a] - mean) ** 2 for a, p in law)
    estimates = [table.spread(_Coin(), law, 4, False)[0] for _ in range(20000)]
    assert sum(estimates) / len(estimates) == pytest.approx(truth, rel=0.05)
    assert min(estimates) < 0          # unbiased, so not clipped at zero


def test_ceilings_follow_the_parts_and_a_variance_fully_explained_has_none():
    splits = [DealSplit(d, 0.25, 0.5) for d in (0.0, 2.0, 0.0, 2.0)]     # Var D = 4/3
    c = ceilings(splits)
    assert c["var"] == pytest.approx(4 / 3) and c["cards"] == 0.25 and c["choices"] == 0.5
    assert c["chance_only"] == pytest.approx((4 / 3 / (4 / 3 - 0.25)) ** 0.5)
    assert c["with_choices"] == pytest.approx((4 / 3 / (4 / 3 - 0.75)) ** 0.5)
    assert ceilings([DealSplit(d, 1.0, 1.0) for d in (0.0, 2.0)])["with_choices"] == float("inf")
    with_errors = ceilings([DealSplit(d, 0.25, 0.5, 0.1, 0.2) for d in (0.0, 2.0, 0.0, 2.0)])
    assert with_errors["network_chance_only"] == pytest.approx((4 / 3 / (4 / 3 - 0.25 + 0.1)) ** 0.5)
    assert with_errors["network_with_choices"] == pytest.approx((4 / 3 / (4 / 3 - 0.75 + 0.3)) ** 0.5)


def test_lineups_alternate_and_the_rule_bot_states_no_policy_while_random_states_uniform():
    assert lineup(4, 0) == [0, 1, 0, 1] and lineup(4, 1) == [1, 0, 1, 0]
    game = load_game(GAME)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    legal = state.legal_actions()
    assert make_bot("random", game, state.current_player(), 3).known_policy(state) == \
        [(a, 1 / len(legal)) for a in legal]
    assert make_bot("rules", game, state.current_player(), 3).known_policy(state) is None


def test_a_small_run_prints_the_parts_both_ceilings_and_the_networks_error():
    def run(*extra):
        return subprocess.run([sys.executable, "-m", "experiments.luck_ceiling", "--game", GAME, "--first", "rules",
                               "--second", "random", "--deals", "4", "--rollouts", "2", *extra],
                              check=True, capture_output=True, text=True).stdout
    shipped, without = run(), run("--value", "none")
    assert "4 duplicate deals, seed 0, 2 rollouts an outcome" in shipped
    for line in ("part of Var D from the cards drawn in play", "part of Var D from the stated random choices",
                 "SE factor ceiling, chance events alone", "SE factor ceiling, stated choices adjusted too"):
        assert line in shipped and line in without
    assert "the network's error in the cards' luck" in shipped and "SE factor the network should reach" in shipped
    assert "network" not in without
    # the network only reads the sampled outcomes: the rollouts, and so the parts, are the same
    assert shipped.splitlines()[:7] == without.splitlines()[:7]


def test_nonsense_gets_one_line_and_exit_2():
    cases = [["--game", "nonsense", "--first", "rules", "--second", "random"],
             ["--game", "python_page_one(players=3)", "--first", "rules", "--second", "random"],
             ["--game", GAME, "--first", "rules(x=1)", "--second", "random"],
             ["--game", GAME, "--first", "a=rules", "--second", "random"],
             ["--game", GAME, "--first", "rules", "--second", "random", "--deals", "2"],
             ["--game", GAME, "--first", "rules", "--second", "random", "--rollouts", "1"],
             ["--game", GAME, "--first", "rules", "--second", "random", "--value", "/no/such/net.safetensors"],
             ["--game", "python_page_one(players=2)", "--first", "rules", "--second", "random"]]
    for args in cases:
        done = subprocess.run([sys.executable, "-m", "experiments.luck_ceiling", *args], capture_output=True, text=True)
        assert done.returncode == 2 and done.stdout == "" and len(done.stderr.strip().splitlines()) == 1, args


def test_a_luck_network_is_seated_as_each_table_seats_the_agents(tmp_path):
    """`--value` may name a luck network trained for the two agents: at each table it
    is told which of its agents sits where (its own order, not the command's); one
    trained for other agents is refused in one line."""
    from experiments.luck_ceiling import Setup, valuer
    from tests.test_luck_network import _luck_file
    path = str(_luck_file(tmp_path / "po.luck.safetensors", GAME, ["random", "rules"]))
    game = load_game(GAME)
    setup = Setup(GAME, "rules", "random", 0, 2, path, value_is_luck=True)
    assert valuer(setup, game, lineup(4, 0)).seating == (1, 0, 1, 0)
    assert valuer(setup, game, lineup(4, 1)).seating == (0, 1, 0, 1)
    done = subprocess.run([sys.executable, "-m", "experiments.luck_ceiling", "--game", GAME, "--first", "rules",
                           "--second", "ismcts", "--value", path], capture_output=True, text=True)
    assert done.returncode == 2 and "trained for random, rules, not 'ismcts'" in done.stderr


def test_a_luck_network_read_through_a_lookahead_is_measured_so(tmp_path):
    """The error measured is the luck the file reports: read through its lookahead at
    the random bot's choices, the choices' error is another than the network alone's
    on the same deal, and the deal's own difference is the same."""
    from experiments.luck_ceiling import Setup, split_deal
    from tests.test_luck_network import _luck_file
    plain = str(_luck_file(tmp_path / "p.luck.safetensors", GAME, ["random", "rules"]))
    ahead = str(_luck_file(tmp_path / "a.luck.safetensors", GAME, ["random", "rules"],
                           lookahead={"rollouts": 2, "horizon": 4, "weight": 0.0, "events": "choices"}))
    alone, through = (split_deal(Setup(GAME, "rules", "random", 0, 2, path, value_is_luck=True), 1)
                      for path in (plain, ahead))
    assert alone.difference == through.difference
    assert alone.choices_error != through.choices_error
