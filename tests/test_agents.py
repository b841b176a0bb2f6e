"""Bot specs, the bot factory, and the Page One rule-based bot's rules."""

from __future__ import annotations


import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots

import games  # noqa: F401
from agents import make_bot, parse_spec
from agents.rules.page_one import PageOneRulesBot
from games.cards import parse_card
from tests import conformance
from tests.test_page_one import position, play, swap_hidden


def test_specs_parse_names_and_typed_settings():
    assert parse_spec("random") == ("random", {})
    assert parse_spec(" ismcts(iterations=1000, seconds=0.5, rollout=rules, verbose=true) ") == (
        "ismcts", {"iterations": 1000, "seconds": 0.5, "rollout": "rules", "verbose": True})
    assert parse_spec("neural(path=bots/page_one.pt)") == ("neural", {"path": "bots/page_one.pt"})


def test_a_quoted_value_keeps_its_commas_and_brackets():
    assert parse_spec('engine(cmd="env X=a,b ./bot (fast)",time_limit=3)') == (
        "engine", {"cmd": "env X=a,b ./bot (fast)", "time_limit": 3})
    assert parse_spec("engine(cmd='./bot --opts a,b')") == ("engine", {"cmd": "./bot --opts a,b"})
    assert parse_spec('x(a="3")') == ("x", {"a": "3"})           # quoted: text, not a number


@pytest.mark.parametrize("spec, message", [
    ("ismcts(iterations=1000", "unbalanced"),
    ("ismcts(1000)", "not key=value"),
    ("ismcts(a=1,a=2)", "given twice"),
    ("(a=1)", "malformed"),
    ('engine(cmd="./bot a,b)', "unclosed"),
    ("x(a=it's)", "unclosed"),
])
def test_malformed_specs_are_rejected_with_the_reason(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_spec(spec)


def test_make_bot_names_unknown_bots_and_bad_settings():
    game = pyspiel.load_game("python_page_one")
    with pytest.raises(ValueError, match="unknown bot 'alphago'.*available: .*random"):
        make_bot("alphago", game, 0)
    with pytest.raises(ValueError, match="bad settings for bot 'random'"):
        make_bot("random(depth=3)", game, 0)
    with pytest.raises(ValueError, match="no rule-based bot for game 'tic_tac_toe'"):
        make_bot("rules", pyspiel.load_game("tic_tac_toe"), 0)


def test_bots_play_legal_moves_and_work_with_openspiel_evaluate_bots():
    game = pyspiel.load_game("python_page_one(players=4,jokers=2)")
    for seed in range(20):
        bots = [make_bot(spec, game, p, seed) for p, spec in enumerate(["random", "rules"] * 2)]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(seed))
        assert sum(returns) == pytest.approx(0.0)


def test_random_bot_is_deterministic_for_a_seed():
    game = pyspiel.load_game("python_page_one")
    state = next(conformance.random_states(game, 1, 0))
    picks = lambda seed: [make_bot("random", game, 0, seed).step(state) for _ in range(3)]  # noqa: E731
    assert picks(5) == picks(5)


def rules_bot(state) -> PageOneRulesBot:
    return PageOneRulesBot(pyspiel.load_game(f"python_page_one(players={state.n})"), state.current_player())


def test_rules_bot_leads_a_sure_winner():
    # p0 holds the A of hearts: nothing can beat it, so it keeps the lead with it.
    s = position(["2S 9S AH 4C", "3S 5S KH 7C", "6D 8D TD QD", "JH QH 2C 3C"])
    assert rules_bot(s).step(s) == parse_card("AH")


def test_rules_bot_leads_the_suit_opponents_lack_with_its_lowest_card():
    s = position(["AS 2S 8H 4C", "9S 3D KH 7C", "6D 8D TD QD", "JH QH 2C 3C"], leader=1)
    play(s, "9S", "4D", "5S", "5S", "6S", "6S", "AS")   # p2 and p3 draw for spades; p0 wins
    # p0 has no sure winner; p2 and p3 have shown they lack spades: it leads its lowest spade.
    assert s.current_player() == 0
    assert rules_bot(s).step(s) == parse_card("2S")


def test_rules_bot_follows_with_its_cheapest_winning_card_else_its_lowest():
    s = position(["2S 9H KD 4C", "3S 5S JS AS", "6D 8D TD QD", "JH QH 2C 3C"])
    play(s, "2S")
    assert rules_bot(s).step(s) == parse_card("3S")  # 3S already beats 2S
    s = position(["TS 9H KD 4C", "3S 5S JS AS", "6D 8D TD QD", "JH QH 2C 3C"])
    play(s, "TS")
    assert rules_bot(s).step(s) == parse_card("JS")
    s = position(["AS 9H KD 4C", "3S 5S JS KS", "6D 8D TD QD", "JH QH 2C 3C"])
    play(s, "AS")
    assert rules_bot(s).step(s) == parse_card("3S")  # cannot win: sheds its lowest


def test_rules_bot_does_not_read_hidden_cards():
    game = pyspiel.load_game("python_page_one(players=4,jokers=1)")
    checked = conformance.check_bot_ignores_hidden_cards(
        game, lambda me: PageOneRulesBot(game, me), 300, 9, swap_hidden)
    assert checked > 250
