"""The Modern American Canasta rule-based bot: what a club player would do."""

from __future__ import annotations

import pyspiel

import games  # noqa: F401  (registers the games)
from agents import make_bot
from eval.match import play_game
from games.modern_canasta.actions import ASK, DISCARD_BASE, DRAW, NO, TAKE, YES, meld_action
from games.modern_canasta.cards import ACE, KING, QUEEN, counts_of, parse_kind
from games.modern_canasta.core import MELD, CanastaState, set_up

K = parse_kind


def hands(*texts: str) -> list[list[int]]:
    return [counts_of(t) for t in texts] + [counts_of("")] * (4 - len(texts))


def bot_for(seat: int):
    return make_bot("rules", pyspiel.load_game("python_modern_canasta"), seat, 0)


def test_make_bot_gives_the_canasta_rule_bot():
    assert type(bot_for(0)).__name__ == "ModernCanastaRulesBot"


def test_it_asks_its_partner_when_it_can_go_out_and_goes_out_after_yes():
    s = set_up(hands("K K K 9", "5 5 5", "Q Q 8", "6 6 6"), phase=MELD, melded=1,
               canastas=[[(ACE, 7, 0, 0), (QUEEN, 5, 2, 0)], []], melds={(0, KING): (3, 0, 0)})
    bot = bot_for(0)
    assert bot.step(s) == ASK
    s.apply_action(ASK)
    assert bot_for(2).step(s) == YES          # its partner holds little
    s.apply_action(YES)
    while not s.is_terminal():
        s.apply_action(bot.step(s))
    assert s.scores[0].going_out == 100


def test_a_partner_with_an_expensive_hand_says_no():
    s = set_up(hands("K K K 9", "5 5 5", "A A A Jk 8", "6 6 6"), phase=MELD, melded=1,
               canastas=[[(ACE, 5, 2, 0), (QUEEN, 5, 2, 0)], []], melds={(0, KING): (3, 0, 0)})
    s.apply_action(ASK)
    assert bot_for(2).step(s) == NO


def test_it_takes_a_large_pile_and_draws_rather_than_take_a_small_one():
    base = dict(melded=3, melds={(0, QUEEN): (3, 0, 0)})
    big = set_up(hands("K K 9 8 4"), pile=[K("5"), K("6"), K("K")], **base)
    assert bot_for(0).step(big) == TAKE
    small = set_up(hands("K K 9 8 4"), pile=[K("K")], **base)
    assert bot_for(0).step(small) == DRAW


def test_an_unmelded_side_takes_the_pile_only_holding_the_initial_meld():
    rich = set_up(hands("K K A A A A Q Q Q 9 5"), pile=[K("5"), K("6"), K("K")])
    assert bot_for(0).step(rich) == TAKE            # K K (not the top K) + 4 Aces + 3 queens: 130
    poor = set_up(hands("K K 9 8 5 4"), pile=[K("5"), K("6"), K("K")])
    assert bot_for(0).step(poor) == DRAW


def test_it_lays_an_initial_meld_that_meets_the_requirement():
    s = set_up(hands("K K K A A A Q Q Q Jk 9 5 4", "4 4"), phase=MELD)
    bot = bot_for(0)
    while s.current_player() == 0:
        s.apply_action(bot.step(s))
    assert s.melded & 1 and not s.pending


def test_it_does_not_feed_the_next_opponent_a_pair_it_is_known_to_hold():
    s = set_up(hands("9 8 2 Jk", "9 9 4 4 5"), phase=MELD, melded=3, pile=[K("6")],
               canastas=[[(KING, 7, 0, 0)], []])
    s.known[1][K("9")] = 2                          # p1 picked up two 9s with the pile
    assert bot_for(0).step(s) == DISCARD_BASE + K("8")


def test_it_completes_a_canasta_with_wild_cards_on_five_naturals():
    s = set_up(hands("2 Jk 9 8 4"), phase=MELD, melded=1, melds={(0, KING): (5, 0, 0)})
    s.fresh = False
    assert bot_for(0).step(s) == meld_action(KING, 0, 1, 1)


def test_rules_beat_random_over_many_hands():
    game = pyspiel.load_game("python_modern_canasta")
    total = 0.0
    hands_played = 40
    for k in range(hands_played):
        bots = [make_bot("rules" if (s + k) % 2 == 0 else "random", game, s, k) for s in range(4)]
        returns, _ = play_game(game, bots, k)
        total += returns[0] if k % 2 == 0 else returns[1]
    assert total / hands_played > 0.5          # more than 500 points a hand


def test_it_plays_whole_hands_against_itself():
    game = pyspiel.load_game("python_modern_canasta")
    for k in range(6):
        bots = [make_bot("rules", game, s, k) for s in range(4)]
        returns, decisions = play_game(game, bots, 100 + k)
        assert decisions > 0 and returns[0] == -returns[1]
    assert isinstance(game.new_initial_state().core, CanastaState)


def test_it_does_not_read_hidden_cards():
    from tests import conformance
    from tests.test_modern_canasta_shared import swap_hidden
    game = pyspiel.load_game("python_modern_canasta")
    checked = conformance.check_bot_ignores_hidden_cards(
        game, lambda me: make_bot("rules", game, me), 150, 9, swap_hidden)
    assert checked > 120


def test_it_works_with_openspiel_evaluate_bots():
    import numpy as np
    from open_spiel.python.algorithms import evaluate_bots
    game = pyspiel.load_game("python_modern_canasta")
    for seed in range(3):
        bots = [make_bot(spec, game, p, seed) for p, spec in enumerate(["rules", "random"] * 2)]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(seed))
        assert returns[0] == -returns[1] == returns[2]
