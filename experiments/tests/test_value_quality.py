"""experiments/value_quality.py: a network's value head against rule-bot deals' returns."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import games  # noqa: F401
from agents import make_bot
from agents.base import rules_core
from games.chance import DealChance
from experiments import value_quality

PAGE_ONE = "python_page_one(players=4)"


def test_positions_carry_the_movers_final_return_and_the_stage_of_the_deal():
    game = pyspiel.load_game(PAGE_ONE)
    obs, returns, stage = value_quality.rule_bot_positions(game, deals=1, seed=4, every=1)
    bots = [make_bot("rules", game, seat, seat) for seat in range(4)]
    state, chance, movers = rules_core(game.new_initial_state()), DealChance(4), []
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(chance(state))
            continue
        movers.append(state.current_player())
        state.apply_action(bots[state.current_player()].step(state))
    assert len(returns) == len(movers) == len(obs)
    assert list(returns) == [state.returns()[m] for m in movers]        # Page One's return scale is 1
    assert list(stage) == [k / len(movers) for k in range(len(movers))]
    every_third = value_quality.rule_bot_positions(game, deals=1, seed=4, every=3)
    assert np.array_equal(every_third[0], obs[::3]) and np.array_equal(every_third[1], returns[::3])


def test_fit_scores_a_perfect_guess_one_and_the_mean_zero():
    actual = np.array([0.5, -1.0, 0.25, 1.0])
    assert value_quality.fit(actual, actual) == pytest.approx((1.0, 1.0))
    noisy = actual + np.array([0.1, -0.1, 0.05, 0.0])
    assert value_quality.fit(np.full(4, actual.mean()) + 1e-9 * actual, actual)[1] == pytest.approx(0.0, abs=1e-6)
    assert 0 < value_quality.fit(noisy, actual)[1] < 1


def test_the_report_rows_and_a_bad_bot_file(capsys):
    value_quality.main(["bots/python_page_one.safetensors", "--game", PAGE_ONE, "--deals", "3", "--every", "2"])
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| bots/")]
    assert [r.split(" | ")[1] for r in rows] == ["whole deal", "first third", "middle third", "last third"]
    with pytest.raises(SystemExit) as e:
        value_quality.main(["bots/python_modern_canasta.safetensors", "--game", PAGE_ONE, "--deals", "1"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "python_modern_canasta" in err, err


def test_a_bad_argument_is_refused_with_one_line(capsys):
    with pytest.raises(SystemExit) as e:
        value_quality.main(["bots/python_page_one.safetensors", "--game", PAGE_ONE, "--deals", "0"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--deals" in err, err
