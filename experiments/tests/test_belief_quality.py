"""experiments/belief_quality.py's measure: the share of the others' hidden cards a world gets right."""

import random

import pyspiel

import games  # noqa: F401
from agents import make_bot
from agents.base import rules_core
from experiments.belief_quality import hidden_cards, main, shared_cards


def _canasta_after_a_pile_take():
    """A rule-bot Canasta hand played until some seat other than 0 holds a card known from the pile."""
    game = pyspiel.load_game("python_modern_canasta")
    bots = [make_bot("rules", game, p, p) for p in range(4)]
    for deal in range(50):
        state, chance = rules_core(game.new_initial_state()), random.Random(deal)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance_outcome(chance.random()))
                continue
            if state.current_player() == 0 and any(any(state.known[s]) for s in (1, 2, 3)):
                return state
            state.apply_action(bots[state.current_player()].step(state))
    raise AssertionError("no pile take by another seat in 50 rule-bot hands")


def test_canasta_hidden_cards_leave_out_what_the_pile_showed():
    state = _canasta_after_a_pile_take()
    seat = next(s for s in (1, 2, 3) if any(state.known[s]))
    hidden = hidden_cards(state, seat)
    assert len(hidden) == sum(state.hands[seat]) - sum(state.known[seat])
    for kind, known in enumerate(state.known[seat]):
        assert hidden.count(kind) == state.hands[seat][kind] - known


def test_the_truth_shares_every_hidden_card_and_a_world_at_most_that():
    state = _canasta_after_a_pile_take()
    found, total = shared_cards(state, state, [1, 2, 3])
    assert found == total > 0
    rand = random.Random(1).random
    for _ in range(10):
        world = state.resample_from_infostate(0, rand)
        f, t = shared_cards(state, world, [1, 2, 3])
        assert t == total and 0 <= f <= total


def test_the_report_names_each_way(capsys):
    main(["--game", "python_modern_canasta", "--deals", "1", "--worlds", "2", "--likeliest-of", "4"])
    out = capsys.readouterr().out
    assert "uniform" in out and "likeliest of 4" in out and "assume=rules" not in out
