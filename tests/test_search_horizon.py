"""Rollouts cut at a horizon and valued by a position's static value, and ISMCTS's
pool of worlds (search.evaluation, search.rollout, search.bots): the values on set
positions, the cut, what `auto` stands for, and that neither reads a hidden card."""

from __future__ import annotations

import random

import pyspiel
import pytest

import games  # noqa: F401
from agents import make_bot
from games.american_page_one.core import hand_of, parse_kind
from games.american_page_one.leaf import APO_POINTS_PER_CARD, american_page_one_value
from games.page_one.leaf import page_one_value
from search.rollout import BotRollout, RandomRollout
from tests import conformance

APO4 = "python_american_page_one(players=4)"


def apo_position(game_string: str, hands: list[str], out: tuple = ()):
    """A play-phase core of `game_string` with the given hands (kinds as 'AS 7H ...')."""
    game = pyspiel.load_game(game_string)
    core = next(s.core for s in conformance.random_states(game, 5, 1)).clone()
    for seat, text in enumerate(hands):
        core.lo[seat], core.hi[seat] = hand_of([parse_kind(k) for k in text.split()])
    core.out = out
    return core


def test_american_page_one_values_a_card_in_hand_against_the_mean_hand():
    core = apo_position(APO4, ["AS 2H", "3C 4C 5C 6C 9D", "KS KH 4D 5D 6D 7D 9H", "QC JD 3D 4H 5H 6H 7H"])
    value = american_page_one_value(core)
    assert value == [APO_POINTS_PER_CARD * (21 / 4 - size) for size in (2, 5, 7, 7)]
    assert abs(sum(value)) < 1e-9 and value[0] > value[1] > value[2] == value[3]


def test_american_page_one_until_last_values_places_as_if_the_deal_ended_now():
    # Seat 2 went out first (+3); of the rest seat 0 holds fewest (+1), seats 1
    # and 3 tie for the last two places (-1 and -3: -2 each).
    core = apo_position("python_american_page_one(players=4,until_last=true)",
                        ["AS", "3C 4C 5C", "", "QC JD 3D"], out=(2,))
    assert american_page_one_value(core) == [1.0, -2.0, 3.0, -2.0]


def test_page_one_value_is_the_result_if_the_game_ended_now():
    game = pyspiel.load_game("python_page_one(players=4,until_last=true)")
    checked = 0
    for state in conformance.random_states(game, 40, 3):
        core = state.core
        ended = core.clone()
        ended._finish(ended.out)
        assert page_one_value(core) == ended.returns()
        checked += len(set(h.bit_count() for h in core.hands)) > 1
    assert checked > 10


def decisions_after(start, world) -> int:
    """How many player decisions `world` made after position `start`."""
    replay, decisions = start.clone(), 0
    for action in world.history()[len(start.history()):]:
        decisions += replay.current_player() >= 0
        replay.apply_action(action)
    return decisions


@pytest.mark.parametrize("game_string, value", [(APO4, american_page_one_value),
                                                ("python_page_one(players=4)", page_one_value)])
@pytest.mark.parametrize("rollout", ["random", "rules"])
def test_a_rollout_stops_at_its_horizon_and_takes_the_static_value(game_string, value, rollout):
    game = pyspiel.load_game(game_string)
    rand = random.Random(2).random
    evaluator = RandomRollout(horizon=6) if rollout == "random" else BotRollout.from_spec("rules", game, 0, horizon=6)
    cut = 0
    for state in conformance.random_states(game, 12, 5):
        world = state.core.clone()
        returns = evaluator.evaluate(world, rand)
        if world.is_terminal():
            assert returns == world.returns() and decisions_after(state.core, world) <= 6
        else:                     # stopped at a decision (chance steps are not counted), valued statically
            cut += 1
            assert world.current_player() >= 0 and decisions_after(state.core, world) == 6
            assert list(returns) == value(world)
    assert cut >= 6


@pytest.mark.parametrize("spec, horizon, pool", [
    ("ismcts(iterations=300)", 10, 16), ("pimc(worlds=10,iterations=30)", 10, None),
    ("ismcts(iterations=300,rollout=rules)", None, None), ("ismcts(rollout=rules,pool=auto)", None, None),
    ("ismcts(horizon=none,pool=none)", None, None),
    ("ismcts(horizon=7,pool=5,rollout=rules)", 7, 5)])
def test_auto_stands_for_american_page_ones_horizon_and_pool_with_random_rollouts(spec, horizon, pool):
    bot = make_bot(spec, pyspiel.load_game(APO4), 0)
    assert bot.horizon == horizon and getattr(bot, "pool", None) == pool
    assert bot.evaluator.horizon == horizon


def test_auto_is_no_horizon_and_no_pool_at_page_one():
    bot = make_bot("ismcts(iterations=300)", pyspiel.load_game("python_page_one(players=4)"), 0)
    assert bot.horizon is None and bot.pool is None


def test_a_pool_draws_that_many_worlds_for_all_the_iterations():
    game = pyspiel.load_game(APO4)
    state = next(s.core for s in conformance.random_states(game, 5, 2) if len(s.legal_actions()) > 1)
    bot = make_bot("ismcts(iterations=50,pool=8)", game, state.current_player(), 1)
    drawn = []
    resample = bot.resample
    bot.resample = lambda *args: drawn.append(resample(*args)) or drawn[-1]
    bot.search(state)
    assert len(drawn) == 8 and bot.iterations == 50


@pytest.mark.parametrize("spec", ["ismcts(iterations=60)", "pimc(worlds=3,iterations=20)",
                                  "ismcts(iterations=40,root=paired,pool=4,horizon=8)",
                                  "pimc(worlds=4,flat=true,rollout=rules,horizon=10)"])
def test_the_cut_and_the_pool_never_read_hidden_cards(spec):
    # The search on the true state and on a world redealt from the player's
    # information state: the same statistics, so the same move, for a fixed seed.
    for game_string in ("python_american_page_one(players=3,hand_size=5,challenge=true,dobon=true,max_turns=200)",
                        "python_page_one(players=4,jokers=2,empty_stock=reshuffle)"):
        game = pyspiel.load_game(game_string)
        rng = random.Random(5)
        checked = 0
        for state in conformance.random_states(game, 8, 4, max_steps=120):
            me = state.current_player()
            if len(state.legal_actions()) < 2:
                continue
            world = state.resample_from_infostate(me, rng.random)
            search = lambda s: make_bot(spec, game, me, 3).search(s)  # noqa: E731
            assert search(state) == search(world)
            checked += 1
        assert checked >= 3


def test_a_seed_fixes_the_moves_with_the_defaults_at_american_page_one():
    game = pyspiel.load_game(APO4)
    states = [s.core for s in conformance.random_states(game, 6, 9) if len(s.legal_actions()) > 1]
    stats = lambda seed: [make_bot("ismcts(iterations=100)", game, s.current_player(), seed).search(s)  # noqa: E731
                          for s in states]
    assert stats(4) == stats(4) != stats(5)
