"""Rollouts with one policy for the searcher's side and another for the rest
(`rollout_opponents`, search.rollout.make_evaluator): who plays which seat, that the
playout is the deal those bots play seat by seat, refusals, and no hidden card read."""

from __future__ import annotations

import random

import pyspiel
import pytest

import games  # noqa: F401
from agents import make_bot
from agents.base import rules_core
from search.rollout import make_evaluator, side_of

CANASTA = "python_modern_canasta"
TUNED = "rules(initial_meld=pile,new_meld_min=5,go_out=lead)"


def play(game, bots, seed: int) -> tuple[list[int], list[float]]:
    rng = random.Random(seed)
    state = rules_core(game.new_initial_state())
    moves = []
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
            continue
        move = bots[state.current_player()].step(state)
        moves.append(move)
        state.apply_action(move)
    return moves, state.returns()


def test_a_side_is_the_partnership_at_canasta_and_the_seat_alone_elsewhere():
    assert side_of(pyspiel.load_game(CANASTA), 1) == {1, 3}
    assert side_of(pyspiel.load_game(CANASTA), 2) == {0, 2}
    assert side_of(pyspiel.load_game("python_page_one(players=4)"), 2) == {2}


def test_the_searchers_side_plays_the_rollout_and_the_others_the_opponents_bot():
    """Seat 1's rollouts: the tuned strategy at seats 1 and 3, the rule bot at 0 and 2;
    a deal played by those bots is move for move the deal that one bot a seat plays."""
    game = pyspiel.load_game(CANASTA)
    evaluator = make_evaluator(TUNED, game, 0, player=1, opponents="rules")
    assert [bot.strategy.spec() for bot in evaluator.bots] == ["rules", TUNED, "rules", TUNED]
    for seed in range(3):
        by_seat = [make_bot(TUNED if seat in (1, 3) else "rules", game, seat, 0) for seat in range(4)]
        assert play(game, evaluator.bots, seed) == play(game, by_seat, seed)
    page_one = pyspiel.load_game("python_page_one(players=4)")
    evaluator = make_evaluator("rules", page_one, 0, player=2, opponents="random")
    assert [type(bot).__name__ for bot in evaluator.bots][2] != type(evaluator.bots[0]).__name__


def test_a_bad_opponents_bot_is_named():
    game = pyspiel.load_game(CANASTA)
    with pytest.raises(ValueError, match="rollout_opponents='nobot'"):
        make_bot("pimc(worlds=2,iterations=2,rollout=rules,rollout_opponents=nobot)", game, 0, 0)


@pytest.mark.parametrize("spec", [f"pimc(worlds=2,iterations=4,rollout={TUNED},rollout_opponents=rules)",
                                  f"ismcts(iterations=8,rollout={TUNED},rollout_opponents=rules)"])
def test_per_side_rollouts_never_read_hidden_cards(spec):
    game = pyspiel.load_game(CANASTA)
    rng = random.Random(3)
    moves = 0
    state = rules_core(game.new_initial_state())
    while not state.is_terminal() and moves < 6:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(actions, probs)[0])
            continue
        me = state.current_player()
        if len(state.legal_actions()) > 1:
            world = state.resample_from_infostate(me, rng.random)
            assert make_bot(spec, game, me, 7).search(state) == make_bot(spec, game, me, 7).search(world)
            moves += 1
        state.apply_action(make_bot("rules", game, me, 0).step(state))
