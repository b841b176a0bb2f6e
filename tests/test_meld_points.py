"""A Canasta meld's `points` in the seat view (what the table's running score adds up) is its face
value as the hand's scorer counts it: at a hand's end, a side's melds' points are its melded cards
(which Modern Canasta counts against a side with no canasta: their size) plus its canasta
bonuses, line for line with the view's own score."""

import random

import pyspiel
import pytest

import games  # noqa: F401  (registers our games)
from agents import make_bot
from games.view import seat_view

CANASTA_LINES = ("canastas",)       # the score lines that are canasta bonuses end with this word


def _finished_hand(game_string: str, seed: int):
    game = pyspiel.load_game(game_string)
    state, rng = game.new_initial_state(), random.Random(seed)
    bots = [make_bot("rules", game, p, seed=seed + p) for p in range(game.num_players())]
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(bots[state.current_player()].step(state))
    return game, state


@pytest.mark.parametrize("game_string", ["python_modern_canasta", "python_classic_canasta(players=4)",
                                         "python_classic_canasta(players=2)"])
@pytest.mark.parametrize("seed", [0, 1])
def test_the_melds_points_are_the_scorers_melded_cards_and_canastas(game_string, seed):
    game, state = _finished_hand(game_string, seed)
    name = game.get_type().short_name
    view = seat_view(name, state, 0, [f"p{s}" for s in range(game.num_players())], ["rules"] * game.num_players())
    lines = {line["label"]: line["values"] for line in view["score"]["lines"]}
    sides = len(view["score"]["total"])
    for side in range(sides):
        melds = [m for z in view["zones"] if z["side"] == side and z["melds"] is not None for m in z["melds"]]
        counted = abs(lines["melded cards"][side]) + sum(v[side] for label, v in lines.items()
                                                     if label.endswith(CANASTA_LINES))
        assert sum(m["points"] for m in melds) == counted
