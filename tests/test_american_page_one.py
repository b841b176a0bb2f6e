"""American Page One: a scenario test for each rule, special card and local rule
of the page, then the shared checks across rule combinations."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections import Counter
from pathlib import Path

import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from games.american_page_one.core import (AFTER_DRAW, ANSWER, CHALLENGE, CHOOSE_DEALER, DOBON, DONE,
                                          DRAW, EV_DEAL, EV_RESHUFFLE, EV_SHOW_TO, EV_STARTER_BACK,
                                          EV_STUCK, JOKER, MULTI, NAME,
                                          NAME_SUIT, NO_DOBON, OFFER, PASS, PLAY, STARTER,
                                          AmericanPageOneRules, AmericanPageOneState, dealt_position,
                                          hand_kinds, hand_of, hand_size, parse_kind, set_up)
from games.params import GameParameterError
from games.protocol import outcome_at
from tests import conformance

S, H, D, C = range(4)


def K(text: str) -> list[int]:
    return [parse_kind(t) for t in text.split()]


def k(text: str) -> int:
    return parse_kind(text)


def rules(players: int = 4, **params) -> AmericanPageOneRules:
    return AmericanPageOneRules.from_params({"players": players, **params})


def position(hands: list[str], top: str, turn: int = 0, suit: int = -1, discard: str = "",
             stock: str | None = None, **params) -> AmericanPageOneState:
    return set_up(rules(len(hands), **params), [K(h) for h in hands], k(top), turn, suit,
                  K(discard) if discard else [], stock=None if stock is None else K(stock))


def play(state: AmericanPageOneState, *moves) -> None:
    """Applies moves given as card text (plays or chance cards) or raw action ints."""
    for m in moves:
        state.apply_action(k(m) if isinstance(m, str) else m)


def hand(state: AmericanPageOneState, seat: int) -> list[int]:
    return hand_kinds(state.lo[seat], state.hi[seat])


FOUR = ["4C 6D", "5C 6S", "4D 7S", "9C TD"]     # plain hands for seats that only watch


# ---------------------------------------------------------------- base rules
def test_the_deal_starts_left_of_the_dealer_and_the_starter_counts_as_the_dealers():
    r = rules(3, hand_size=5, dealer=1)
    hands = [K("2S 3S 4S 5S 6S"), K("2H 3H 4H 5H 6H"), K("2D 3D 4D 5D 6D")]
    s = dealt_position(r, hands, k("9C"), dealer=1)
    deals = [(seat, v) for kind, seat, v in s.events() if kind == EV_DEAL]
    assert deals[0] == (2, k("2D")) and deals[1] == (0, k("2S"))   # dealt from the dealer's left
    assert s.top == k("9C") and s.current_player() == 2 and s.phase == PLAY
    assert len(s.stock) == 108 - 15 - 1


def test_a_random_dealer_is_a_chance_node_and_each_player_gets_the_default_hand_size():
    for players, size in ((2, 7), (4, 7), (5, 6), (7, 5)):
        s = AmericanPageOneState(rules(players))
        assert s.is_chance_node() and s.chance_outcomes() == [(p, 1 / players) for p in range(players)]
        s.apply_action(players - 1)
        for _ in range(players * size):
            s.apply_action(s.sample_chance_outcome(0.3))
        assert [hand_size(s.lo[p], s.hi[p]) for p in range(players)] == [size] * players
        s.apply_action(s.sample_chance_outcome(0.3))          # the starter
        assert s.top >= 0


def test_play_a_card_of_the_suit_or_rank_8s_and_jokers_are_wild_or_draw():
    s = position(["2H 9C KD 8S Jk 4C", *FOUR[1:]], top="9H")
    assert s.legal_actions() == sorted(K("8S 2H 9C")) + [JOKER, DRAW]
    with pytest.raises(ValueError, match="illegal action 37 \\(K♦\\) for p0"):
        s.apply_action(k("KD"))


def test_after_drawing_only_the_drawn_card_may_be_played_or_the_player_passes():
    s = position(["2C 4C", *FOUR[1:]], top="9H")
    play(s, DRAW)
    assert s.is_chance_node() and s.actor == 0
    play(s, "7H")
    assert s.phase == AFTER_DRAW and s.legal_actions() == [k("7H"), PASS]
    play(s, "7H")
    assert s.current_player() == 1 and s.top == k("7H")
    s = position(["2C 4C", *FOUR[1:]], top="9H")
    play(s, DRAW, "3S")
    assert s.legal_actions() == [PASS]             # 3♠ fits neither ♥ nor 9
    play(s, PASS)
    assert s.current_player() == 1 and hand(s, 0) == K("3S 2C 4C")[:1] + K("2C 4C")


def test_a_player_may_draw_and_pass_while_holding_a_playable_card():
    s = position(["5H 4C", *FOUR[1:]], top="9H")
    assert DRAW in s.legal_actions() and k("5H") in s.legal_actions()
    play(s, DRAW, "6H", PASS)                      # the drawn 6♥ fits, but it may pass
    assert s.current_player() == 1 and sorted(hand(s, 0)) == sorted(K("5H 4C 6H"))


def test_an_empty_stock_is_remade_from_the_discards_under_the_top_card():
    s = position(["5C 4C", *FOUR[1:]], top="9H", discard="2D 3D", stock="")
    play(s, DRAW)
    assert s.events()[-1][0] == EV_RESHUFFLE
    assert sorted(s.stock) == K("2D 3D") and hand_kinds(s.pile_lo, s.pile_hi) == K("9H")
    s = position(["5C 4C", *FOUR[1:]], top="9H", stock="")
    assert s.legal_actions() == [PASS]             # nothing left to draw: pass
    play(s, PASS)
    assert s.current_player() == 1


def test_going_out_wins_the_sum_of_the_others_points_and_each_loses_its_own():
    s = position(["4H", "8C Jk KS 2D 3S QH JC AS 5D", "TC 9D", "7S"], top="9H")
    play(s, "4H")
    assert s.is_terminal()
    # 8 and joker 50; 2 3 J Q 20; K 10; numbers their rank; A 1.
    assert s.returns() == [196 + 19 + 7, -196, -19, -7]


def test_going_out_on_a_special_card_ends_the_deal_without_its_effect():
    s = position(["2H", "5C 6C", "7D", "TS"], top="9H")
    play(s, "2H")
    assert s.is_terminal() and hand(s, 1) == K("5C 6C")    # p1 draws nothing


# ------------------------------------------------------------- special cards
def test_two_makes_the_next_player_draw_two_unless_it_answers_and_answers_stack():
    s = position(["2H 5S", "2C 6D", "4D 7S", "9C TD"], top="9H")
    play(s, "2H")
    assert s.phase == ANSWER and s.current_player() == 1 and s.pending == 2
    assert s.legal_actions() == [k("2C"), DRAW]
    play(s, "2C")
    assert s.current_player() == 2 and s.pending == 4
    assert s.legal_actions() == [DRAW]              # no 2: it must take them
    play(s, DRAW, "3S", "4S", "5S", "6S")
    # It drew four and its turn is gone: it may not answer after drawing.
    assert s.current_player() == 3 and s.phase == PLAY and s.pending == 0
    assert len(hand(s, 2)) == 6 and s.top == k("2C")


def test_three_makes_the_next_player_draw_three():
    s = position(["3H 5S", "3C 6D", "4D 7S", "9C TD"], top="9H")
    play(s, "3H")
    assert s.pending == 3 and s.legal_actions() == [k("3C"), DRAW]
    play(s, DRAW, "4S", "5S", "6S")
    assert s.current_player() == 2 and len(hand(s, 1)) == 5


def test_eight_is_wild_and_names_a_suit_never_a_rank():
    s = position(["8S 5S", "5D 6D 9H", "4D 7S", "9C TD"], top="9H")
    play(s, "8S")
    assert s.phase == NAME and s.legal_actions() == [NAME_SUIT + x for x in range(4)]
    play(s, NAME_SUIT + D)
    assert s.current_player() == 1
    assert s.legal_actions() == K("5D 6D") + [DRAW]    # the 9♥ no longer fits


def test_jack_skips_the_next_player():
    s = position(["JH 5S", *FOUR[1:]], top="9H")
    play(s, "JH")
    assert s.current_player() == 2


def test_queen_reverses_the_direction():
    s = position(["QH 5S", "5H", "4D", "9C TD"], top="9H")
    play(s, "QH")
    assert s.current_player() == 3 and s.dir == -1
    play(s, DRAW, "2S", PASS)
    assert s.current_player() == 2


def test_joker_is_wild_names_a_suit_and_the_next_draws_four_unless_it_answers_with_a_joker():
    s = position(["Jk 5S", "Jk 2C", "2D 7S", "9C TD"], top="9H")
    assert JOKER in s.legal_actions()
    play(s, JOKER, NAME_SUIT + C)
    assert s.current_player() == 1 and s.pending == 4
    assert s.legal_actions() == [JOKER, DRAW]       # a 2 does not answer a joker
    play(s, JOKER, NAME_SUIT + S)
    assert s.current_player() == 2 and s.pending == 8 and s.legal_actions() == [DRAW]
    play(s, DRAW, *["3H"] * 2, *["4H"] * 2, *["5H"] * 2, *["6H"] * 2)
    assert s.current_player() == 3 and len(hand(s, 2)) == 10 and s.suit == S


@pytest.mark.parametrize("starter, to_move, phase, pending", [
    ("2S", 1, ANSWER, 2),      # the first player must answer or draw 2
    ("JS", 2, PLAY, 0),        # the first player is skipped
    ("QS", 3, PLAY, 0),        # play goes to the dealer's right
    ("8S", 0, NAME, 0),        # the dealer names the suit
    ("Jk", 0, NAME, 0),        # the dealer names the suit; the first player then answers
])
def test_a_special_starter_acts_as_if_the_dealer_played_it(starter, to_move, phase, pending):
    r = rules(4, hand_size=2, dealer=0)
    s = dealt_position(r, [K("4C 5C"), K("4D 5D"), K("4H 5H"), K("6C 6D")], k(starter), dealer=0)
    assert s.current_player() == to_move and s.phase == phase and s.pending == pending
    if starter == "Jk":
        play(s, NAME_SUIT + H)
        assert s.current_player() == 1 and s.pending == 4 and s.suit == H


# --------------------------------------------------------------- local rules
def test_linked_draws_answer_each_other_by_suit():
    s = position(["2S 5C", "3S 3H 2D Jk", "4D 7S", "9C TD"], top="9S", linked_draws=True)
    play(s, "2S")
    # ♠3 (the suit), any 2 (the rank), the joker; not ♥3.
    assert s.legal_actions() == K("3S 2D") + [JOKER, DRAW]
    play(s, "3S")
    assert s.pending == 5
    s = position(["Jk 5C", "2H 3H 2S", "4D 7S", "9C TD"], top="9S", linked_draws=True)
    play(s, JOKER, NAME_SUIT + H)
    assert s.legal_actions() == K("2H 3H") + [DRAW]
    play(s, "3H")
    assert s.pending == 7


def test_unanswerable_draws_are_taken_at_once_even_when_the_deal_is_won_on_them():
    s = position(["2H 5S", "2C 6D", "4D 7S", "9C TD"], top="9H", unanswerable=True)
    play(s, "2H")
    assert s.is_chance_node() and s.actor == 1       # no answer: p1 draws at once
    play(s, "3S", "4S")
    assert s.current_player() == 2 and len(hand(s, 1)) == 4
    s = position(["2H", "5C", "4D 7S", "9C TD"], top="9H", unanswerable=True)
    play(s, "2H")
    assert not s.is_terminal() and s.actor == 1
    play(s, "KS", "8C")                               # p1 must still draw its two
    assert s.is_terminal()
    assert s.returns() == [5 + 10 + 50 + 11 + 19, -(5 + 10 + 50), -11, -19]


@pytest.mark.parametrize("params, card, points", [
    ({"draw_two": False}, "2H", 2), ({"draw_three": False}, "3H", 3),
    ({"skip": "none"}, "JH", 10), ({"reverse": "none"}, "QH", 10)])
def test_a_special_card_switched_off_is_a_plain_card_with_plain_points(params, card, points):
    s = position([f"{card} 5S", *FOUR[1:]], top="9H", **params)
    play(s, card)
    assert s.current_player() == 1 and s.phase == PLAY and s.pending == 0 and s.dir == 1
    s = position(["5H", card, "4D", "6C"], top="9H", **params)
    play(s, "5H")
    assert s.returns()[1] == -points


def test_eights_switched_off_are_plain_cards():
    s = position(["8S 5C", *FOUR[1:]], top="9H", wild_eight=False)
    assert s.legal_actions() == [DRAW]
    s = position(["8H 5C", *FOUR[1:]], top="9H", wild_eight=False)
    play(s, "8H")
    assert s.current_player() == 1 and s.suit == H
    s = position(["5H", "8S", "4D", "6C"], top="9H", wild_eight=False)
    play(s, "5H")
    assert s.returns()[1] == -8


def test_jokers_switched_off_leave_a_104_card_deck():
    r = rules(jokers=False)
    s = AmericanPageOneState(r)
    assert len(s.stock) == 104 and JOKER not in s.stock
    assert pyspiel.load_game("python_american_page_one(jokers=false)").max_utility() == \
        r.tables.deck_points == 2 * (4 * 50 + 16 * 20 + 4 * 10 + 4 * (4 + 5 + 6 + 7 + 9 + 10) + 4)


@pytest.mark.parametrize("params, card, effect", [
    ({"skip": "ace"}, "AH", "skip"), ({"skip": "seven"}, "7H", "skip"),
    ({"reverse": "nine"}, "9C", "reverse"), ({"reverse": "jack", "skip": "ace"}, "JH", "reverse")])
def test_skip_and_reverse_may_be_other_ranks(params, card, effect):
    s = position([f"{card} 5S", "5H", "4D", "9C TD"], top="9H", **params)
    play(s, card)
    assert s.current_player() == (2 if effect == "skip" else 3)
    s = position(["5H", card, "4D", "6C"], top="9H", **params)
    play(s, "5H")
    assert s.returns()[1] == -20                      # a special card scores 20
    if params.get("skip") == "ace":
        s = position(["JH 5S", *FOUR[1:]], top="9H", **params)
        play(s, "JH")
        assert s.current_player() == (3 if effect == "reverse" else 1)


def test_several_cards_of_a_rank_at_once_multiply_their_effect():
    s = position(["2H 2C 2S 5D", "6C 7C", "4D 7S", "9C TD"], top="9H", multi_play=True)
    play(s, "2H")
    assert s.phase == MULTI and s.legal_actions() == K("2S 2C") + [DONE]
    play(s, "2C", DONE)
    assert s.current_player() == 1 and s.pending == 4 and s.top == k("2C")
    s = position(["JH JC JS 5D", "6C", "4D", "7C", "9C TD"], top="9H", multi_play=True)
    play(s, "JH", "JC", "JS", DONE)
    assert s.current_player() == 4                    # three players skipped
    s = position(["QH QC 5D", "6C", "4D", "9C TD"], top="9H", multi_play=True)
    play(s, "QH", "QC", DONE)
    assert s.dir == 1 and s.current_player() == 1     # two reverses cancel
    s = position(["8H 8C 5D", *FOUR[1:]], top="9H", multi_play=True)
    play(s, "8H", "8C", DONE)
    assert s.phase == NAME                            # one suit for both
    play(s, NAME_SUIT + D)
    assert s.current_player() == 1 and s.suit == D


def test_several_cards_may_go_out_together():
    s = position(["5H 5C", *FOUR[1:]], top="9H", multi_play=True)
    play(s, "5H", "5C")
    assert s.is_terminal() and s.returns()[0] > 0


def test_going_out_on_a_special_card_may_be_forbidden_and_costs_the_penalty():
    s = position(["2H", "6C 7C", "4D 7S", "9C TD"], top="9H", no_special_finish=True, penalty=1)
    play(s, "2H")
    assert s.is_chance_node() and s.actor == 0         # the penalty draw
    play(s, "KS")
    assert not s.is_terminal() and hand(s, 0) == K("KS")
    assert s.current_player() == 1 and s.pending == 2  # the 2 still works


def test_a_drawn_card_may_be_kept_from_play_until_the_next_turn():
    s = position(["5C 4C", *FOUR[1:]], top="9H", play_drawn=False)
    play(s, DRAW, "7H")                                 # fits, but may not be played now
    assert s.current_player() == 1 and k("7H") in hand(s, 0)


def test_draw_until_playable_forbids_passing_and_drawing_by_choice():
    s = position(["5H 4C", *FOUR[1:]], top="9H", draw_until_playable=True)
    assert s.legal_actions() == [k("5H")]               # it can play, so it must
    s = position(["5C 4C", *FOUR[1:]], top="9H", draw_until_playable=True)
    assert s.is_chance_node() and s.actor == 0          # it cannot: it draws, no choice
    play(s, "2S", "3C")
    assert s.is_chance_node()
    play(s, "KH")
    assert s.current_player() == 0 and s.legal_actions() == [k("KH")]


def test_stuck_players_pass_when_nothing_can_be_drawn_under_draw_until_playable():
    s = position(["5C 4C", "5D", "4H", "6C"], top="9H", stock="", draw_until_playable=True)
    assert s.current_player() == 2                     # p0 and p1 could neither play nor draw
    assert [(e[0], e[1]) for e in s.events()] == [(EV_STUCK, 0), (EV_STUCK, 1)]


def test_the_penalty_count_is_a_parameter():
    s = position(["Jk KC", "5D", "4D 7S", "9C TD"], top="9H", challenge=True, penalty=5)
    play(s, JOKER, NAME_SUIT + C, CHALLENGE)           # p0 held no ♥: the challenge fails
    assert s.is_chance_node() and s.actor == 1 and s.draw_left == 9


def test_a_joker_starter_is_redrawn_and_other_specials_act_from_beside_the_dealer():
    r = rules(4, hand_size=2, dealer=0, starter="redraw_joker")
    s = dealt_position(r, [K("4C 5C"), K("4D 5D"), K("4H 5H"), K("6C 6D")], JOKER, dealer=0)
    assert s.phase == STARTER and s.events()[-1][0] == EV_STARTER_BACK and s.stock.count(JOKER) == 4
    play(s, "8S")
    assert s.current_player() == 1 and s.suit == S      # nobody names a suit on the 8
    s = dealt_position(r, [K("4C 5C"), K("4D 5D"), K("4H 5H"), K("6C 6D")], k("QS"), dealer=0)
    assert s.current_player() == 0 and s.dir == -1      # reversed from beside the dealer
    s = dealt_position(r, [K("4C 5C"), K("4D 5D"), K("4H 5H"), K("6C 6D")], k("2S"), dealer=0)
    assert s.current_player() == 1 and s.pending == 2


def test_play_on_to_the_last_player_scores_by_finishing_order():
    s = position(["5H", "6H 7C", "6D 2D"], top="9H", until_last=True)
    play(s, "5H")
    assert not s.is_terminal() and s.out == (0,) and s.current_player() == 1
    play(s, "6H", "6D")
    assert s.current_player() == 1                     # p0 is passed over
    play(s, DRAW, "8S", PASS, "2D")                    # p2 goes out: only p1 is left
    assert s.is_terminal() and s.returns() == [2.0, -2.0, 0.0]


def test_playing_on_to_the_last_player_a_card_that_goes_out_still_acts():
    s = position(["2H", "5C", "6C", "7C"], top="9H", until_last=True)
    play(s, "2H")
    assert s.current_player() == 1 and s.phase == ANSWER and s.pending == 2


def test_dobon_is_offered_to_every_other_player_in_turn_order_and_wins_the_deal():
    s = position(["7H 5C", "3S 4D", "2D 5S", "KC"], top="9H", dobon=True)
    play(s, "7H")
    assert s.phase == OFFER and s.current_player() == 1
    assert s.legal_actions() == [DOBON, NO_DOBON]      # 3 + 4 = 7
    play(s, DOBON)
    assert s.current_player() == 2 and s.legal_actions() == [DOBON, NO_DOBON]   # 2 + 5 = 7
    play(s, NO_DOBON)
    assert s.current_player() == 3 and s.legal_actions() == [NO_DOBON]
    play(s, NO_DOBON)
    assert s.is_terminal()
    assert sorted(hand(s, 0)) == sorted(K("7H 5C"))    # the 7♥ went back to p0
    assert s.returns() == [-12, 12 + 25 + 10, -25, -10]        # a 2 scores 20


def test_several_dobon_callers_share_the_points_and_a_going_out_is_void():
    s = position(["7H", "3S 4D", "2D 5S", "KC"], top="9H", dobon=True)
    play(s, "7H", DOBON, DOBON, NO_DOBON)
    assert s.is_terminal() and hand(s, 0) == K("7H")
    assert s.returns() == [-7 / 1, (7 + 10) / 2, (7 + 10) / 2, -10]


def test_dobon_gaeshi_returns_the_callers_last_card_and_wins():
    s = position(["7H 2D 3C", "5H 3S 4D", "6H 2C 3D", "KH KC"], top="9H", turn=1,
                 dobon=True, dobon_gaeshi=True)
    play(s, "5H", NO_DOBON, NO_DOBON, NO_DOBON)        # p1's last card: 5♥
    play(s, "6H", NO_DOBON, NO_DOBON, NO_DOBON)
    play(s, "KH", NO_DOBON, NO_DOBON, NO_DOBON)
    play(s, "7H")
    assert s.current_player() == 1 and s.legal_actions() == [DOBON, NO_DOBON]   # 3 + 4 = 7
    play(s, DOBON, NO_DOBON, NO_DOBON)
    # Dobon-gaeshi: p0 first (7♥ 2♦ 3♣ = 12), then p2 (2♣ 3♦ = 5, the rank of p1's 5♥), p3.
    assert s.current_player() == 0 and s.legal_actions() == [NO_DOBON]
    play(s, NO_DOBON)
    assert s.current_player() == 2 and s.legal_actions() == [DOBON, NO_DOBON]
    play(s, DOBON, NO_DOBON)
    assert s.is_terminal()
    assert sorted(hand(s, 1)) == sorted(K("3S 4D 5H"))  # p1's win is void: its 5♥ came back
    assert s.returns() == [-47, -29, 47 + 29 + 10, -10]


@pytest.mark.parametrize("starter, gaeshi", [("dealer", True), ("redraw_joker", False)])
def test_dobon_gaeshi_matches_the_starter_as_the_dealers_last_play(starter, gaeshi):
    """The page counts the starter as the dealer's play (「この台札は親が場に出したものとみなして
    進行する」), so a dealer who calls Dobon before playing again can be matched on it; under
    redraw_joker it is nobody's play."""
    r = rules(4, hand_size=3, dobon=True, dobon_gaeshi=True, dealer=0, starter=starter)
    s = dealt_position(r, [K("4H 5D Jk"), K("9S TC TD"), K("4C 3D Jk"), K("6C 8D KD")], k("7S"))
    play(s, "9S", NO_DOBON, NO_DOBON)
    assert s.current_player() == 0 and s.legal_actions() == [DOBON, NO_DOBON]    # 4 + 5 + 0 = 9
    play(s, DOBON, NO_DOBON)                       # the Dobon-gaeshi offers: p1 (9 + 10 + 10)
    assert s.current_player() == 2                 # p2: 4 + 3 + 0 = 7, the starter's 7♠
    assert s.legal_actions() == ([DOBON, NO_DOBON] if gaeshi else [NO_DOBON])
    play(s, DOBON if gaeshi else NO_DOBON, NO_DOBON)
    assert s.is_terminal()
    if gaeshi:     # p0's win is void and its last play, the starter, comes back to its hand
        assert sorted(hand(s, 0)) == sorted(K("4H 5D Jk 7S"))
        assert s.returns() == [-66, -29, 66 + 29 + 66, -66]
    else:
        assert sorted(hand(s, 0)) == sorted(K("4H 5D Jk"))
        assert s.returns() == [29 + 74 + 66, -29, -74, -66]


def test_a_joker_challenge_that_succeeds_makes_the_jokers_player_draw_four():
    s = position(["Jk 5H KC", "6C 7C", "4D 7S", "9C TD"], top="9H", challenge=True)
    play(s, JOKER, NAME_SUIT + C)
    assert s.legal_actions() == [DRAW, CHALLENGE]
    play(s, CHALLENGE)
    shown = [e for e in s.events() if e[0] == EV_SHOW_TO]
    assert shown == [(EV_SHOW_TO, 0, (1, *hand_of(K("5H KC"))))]
    assert s.is_chance_node() and s.actor == 0 and s.draw_left == 4
    play(s, "2S", "3S", "4S", "5S")
    assert s.current_player() == 1 and s.phase == PLAY and s.pending == 0 and s.suit == C
    assert "5♥ K♣" in s.information_state_string(1)
    assert "5♥" not in s.information_state_string(2)   # the hand is shown to the challenger alone


def test_a_hand_shown_to_a_challenger_reaches_no_other_player():
    game = pyspiel.load_game("python_american_page_one(challenge=true)")
    observer = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))

    def views(joker_hand: str):
        s = position([joker_hand, "6C 7C", "4D 7S", "9C TD"], top="9H", challenge=True)
        play(s, JOKER, NAME_SUIT + C, CHALLENGE, "2S", "3S", "4S", "5S")
        out = []
        for player in range(4):
            observer.set_from(s, player)
            out.append((observer.string_from(s, player), observer.tensor.copy()))
        return out

    a, b = views("Jk 5H KC"), views("Jk 6H QC")    # both held a ♥: the same verdict
    for player in (2, 3):
        assert a[player][0] == b[player][0] and (a[player][1] == b[player][1]).all()
    assert a[1][0] != b[1][0] and not (a[1][1] == b[1][1]).all()   # the challenger saw each


def test_a_joker_challenge_that_fails_costs_the_penalty_and_the_four():
    s = position(["Jk 8H KC", "6C 7C", "4D 7S", "9C TD"], top="9H", challenge=True)
    play(s, JOKER, NAME_SUIT + C, CHALLENGE)           # an 8 of the suit is safe
    assert s.actor == 1 and s.draw_left == 6
    play(s, *["2S"] * 2, *["3S"] * 2, "4S", "5S")
    assert s.current_player() == 2 and len(hand(s, 1)) == 8


def test_a_joker_answering_a_joker_cannot_be_challenged():
    s = position(["Jk 5H", "Jk 7C", "4D 7S", "9C TD"], top="9H", challenge=True)
    play(s, JOKER, NAME_SUIT + C)
    assert CHALLENGE in s.legal_actions()
    play(s, JOKER, NAME_SUIT + S)
    assert s.legal_actions() == [DRAW]


# --------------------------------------------------------------- parameters
def test_parameters_are_validated_with_clear_errors():
    with pytest.raises(Exception, match="players=8: out of range"):
        pyspiel.load_game("python_american_page_one(players=8)")
    with pytest.raises(Exception, match="skip='king': must be one of jack, ace, seven, none"):
        pyspiel.load_game("python_american_page_one(skip=king)")
    with pytest.raises(Exception, match="one rank cannot both skip and reverse"):
        pyspiel.load_game("python_american_page_one(reverse=jack)")
    with pytest.raises(Exception, match="dobon_gaeshi=true needs dobon=true"):
        pyspiel.load_game("python_american_page_one(dobon_gaeshi=true)")
    with pytest.raises(Exception, match="needs play_drawn=true"):
        pyspiel.load_game("python_american_page_one(draw_until_playable=true,play_drawn=false)")
    with pytest.raises(Exception, match="scores='1;2': needs 4 numbers"):
        pyspiel.load_game("python_american_page_one(scores=1;2)")
    with pytest.raises(pyspiel.SpielError, match="colour"):
        pyspiel.load_game("python_american_page_one(colour=1)")
    with pytest.raises(GameParameterError, match="hand_size=11: out of range"):
        rules(7, hand_size=11)


def test_game_info_follows_the_parameters():
    for n in range(2, 8):
        g = pyspiel.load_game(f"python_american_page_one(players={n},max_turns=100)")
        assert g.num_players() == n and g.max_game_length() == 100 * (14 + 2 * n) + 2
        assert g.max_utility() == -g.min_utility() == 2 * 828


def test_the_information_state_hides_other_hands_and_draws():
    s = position(["5C 4C", "KD 2C", "4D 7S", "9C TD"], top="9H")
    play(s, DRAW, "7H", PASS)
    mine, theirs = s.information_state_string(0), s.information_state_string(1)
    assert "p0 draws 7♥" in mine and "7♥" not in theirs and "p0 draws a card" in theirs


# ------------------------------------------------------------ shared checks
# Every parameter off its default at least once, in combinations; short hands
# and a low turn cap so that random play goes out and ends quickly.
VARIANTS = [
    "python_american_page_one(max_turns=60)",
    "python_american_page_one(players=2,hand_size=3,max_turns=60,multi_play=true,no_special_finish=true,"
    "penalty=1)",
    "python_american_page_one(players=3,hand_size=3,max_turns=60,linked_draws=true,starter=redraw_joker,"
    "challenge=true,penalty=5)",
    "python_american_page_one(hand_size=3,max_turns=60,unanswerable=true,play_drawn=false,skip=ace,"
    "reverse=nine,dealer=2,challenge=true)",
    "python_american_page_one(players=5,hand_size=2,max_turns=60,draw_until_playable=true,challenge=true)",
    "python_american_page_one(hand_size=2,max_turns=60,dobon=true,dobon_gaeshi=true,multi_play=true)",
    "python_american_page_one(players=4,hand_size=1,max_turns=60,until_last=true,draw_two=false,"
    "draw_three=false,wild_eight=false,skip=seven,reverse=jack,penalty=0)",
    "python_american_page_one(players=7,hand_size=2,max_turns=60,jokers=false,skip=none,reverse=none,"
    "scores=1;2;3;-6;0;0;0,deals_left=2)",
    "python_american_page_one(players=3,hand_size=2,max_turns=60,draw_until_playable=true,dobon=true,"
    "linked_draws=true,multi_play=true)",
]


def conserved(core: AmericanPageOneState) -> None:
    """Every card of the deck (108, or 104 without jokers) is in exactly one place."""
    counts = [0] * 53
    for seat in range(core.n):
        for x in hand_kinds(core.lo[seat], core.hi[seat]):
            counts[x] += 1
    for x in core.stock:
        counts[x] += 1
    for x in hand_kinds(core.pile_lo, core.pile_hi):
        counts[x] += 1
    assert sum(counts) == core.rules.deck_size and counts == core.rules.tables.counts, str(core)


@pytest.mark.parametrize("game_string", VARIANTS)
def test_random_sim(game_string):
    conformance.check_random_sim(game_string, 3)


@pytest.mark.parametrize("game_string", VARIANTS)
def test_history_of_states_played_from_python(game_string):
    conformance.check_history(pyspiel.load_game(game_string), 5, 3)


@pytest.mark.parametrize("game_string", VARIANTS)
def test_cards_are_conserved(game_string):
    conformance.check_invariant(pyspiel.load_game(game_string), 15, 1, conserved)


def swap_hidden(core: AmericanPageOneState, player: int, rng: random.Random):
    """Swaps a card between two places `player` cannot see (opponent hands, stock)."""
    places = [s for s in range(core.n) if s != player and core.lo[s]] + ([-1] if core.stock else [])
    if len(places) < 2:
        return None
    a, b = rng.sample(places, 2)
    other = core.clone()
    take = lambda p: rng.choice(other.stock if p < 0 else hand_kinds(other.lo[p], other.hi[p]))  # noqa: E731
    x, y = take(a), take(b)
    other.stock_kinds = None       # the stock changes behind the core's back
    for place, out, into in ((a, x, y), (b, y, x)):
        if place < 0:
            other.stock.remove(out)
            other.stock.append(into)
        else:
            cards = hand_kinds(other.lo[place], other.hi[place])
            cards.remove(out)
            other.lo[place], other.hi[place] = hand_of(cards + [into])
    return other


@pytest.mark.parametrize("game_string", VARIANTS)
def test_play_out_makes_the_same_moves_as_the_protocol_loop(game_string):
    """The rollout fast path: with the same random numbers, the same moves."""
    conformance.check_play_out(pyspiel.load_game(game_string), 8, 6)


@pytest.mark.parametrize("game_string", VARIANTS)
def test_chance_outcomes_count_the_stock_along_a_deal(game_string):
    """The stock's kind multiset kept for chance_outcomes: at every chance node of
    random deals (drawn both ways, some right after a clone) the outcomes are
    each kind in the stock with its copies over the stock's size, in kind order."""
    game = pyspiel.load_game(game_string)
    rng = random.Random(4)
    checked = 0
    for _ in range(6):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                core = state.core
                if core.phase != CHOOSE_DEALER:
                    counts = Counter(core.stock)
                    assert outcomes == [(k, counts[k] / len(core.stock)) for k in sorted(counts)]
                    checked += 1
                if rng.random() < 0.1:
                    state = state.clone()
                if rng.random() < 0.5:
                    state.apply_action(outcome_at(outcomes, rng.random()))
                else:
                    state.apply_action(state.core.sample_chance_outcome(rng.random()))
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
    assert checked > 50


@pytest.mark.parametrize("game_string", VARIANTS)
def test_hidden_information_does_not_leak(game_string):
    checked = conformance.check_hidden_information(pyspiel.load_game(game_string), 20, 2, swap_hidden)
    assert checked > 20


@pytest.mark.parametrize("game_string", VARIANTS)
def test_resampled_worlds_are_consistent(game_string):
    conformance.check_resample(pyspiel.load_game(game_string), 10, 3, 2, conserved)


@pytest.mark.parametrize("game_string", VARIANTS)
def test_every_illegal_action_is_refused_naming_it(game_string):
    assert conformance.check_rejects_illegal_actions(pyspiel.load_game(game_string), 30, 6) > 30


@pytest.mark.parametrize("game_string", VARIANTS)
def test_private_view_keys_exactly_the_information_state(game_string):
    assert conformance.check_private_view(pyspiel.load_game(game_string), 15, 5) > 15


def reshuffled(core: AmericanPageOneState) -> bool:
    return any(e[0] == EV_RESHUFFLE for e in core.events())


def reshuffled_twice(core: AmericanPageOneState) -> bool:
    return sum(e[0] == EV_RESHUFFLE for e in core.events()) >= 2


@pytest.mark.parametrize("game_string, accept", [
    ("python_american_page_one(players=2,max_turns=300)", reshuffled),
    ("python_american_page_one(players=2,max_turns=300,draw_until_playable=true,challenge=true)", reshuffled),
    # Cards played after two reshuffles may come from any of three stocks; the
    # failed challenges' voids make most choices of stocks inconsistent.
    ("python_american_page_one(players=3,max_turns=400,challenge=true,multi_play=true,until_last=true,"
     "no_special_finish=true,penalty=5)", reshuffled_twice)])
def test_resampled_worlds_are_consistent_after_reshuffles(game_string, accept):
    conformance.check_resample(pyspiel.load_game(game_string), 6, 4, 2, conserved, accept=accept,
                               max_steps=1500)


# Every pair of local rules together (where they may be combined), in short deals.
TOGGLES = {"linked_draws": True, "unanswerable": True, "multi_play": True, "no_special_finish": True,
           "play_drawn": False, "draw_until_playable": True, "starter": "redraw_joker",
           "until_last": True, "dobon": True, "dobon_gaeshi": True, "challenge": True,
           "draw_two": False, "draw_three": False, "wild_eight": False, "jokers": False,
           "skip": "ace", "reverse": "nine", "penalty": 0}


def _pairs() -> list[dict]:
    combos = []
    for i, (a, b) in enumerate(itertools.combinations(TOGGLES, 2)):
        params = {a: TOGGLES[a], b: TOGGLES[b], "players": 2 + i % 4, "hand_size": 2, "max_turns": 40}
        if "dobon_gaeshi" in params:
            params["dobon"] = True
        try:
            AmericanPageOneRules.from_params(params)
        except GameParameterError:
            continue           # a contradiction the parameter checks name (tested above)
        combos.append(params)
    return combos


PAIRS = _pairs()


def test_most_pairs_of_local_rules_may_be_combined():
    assert len(PAIRS) > 140


@pytest.mark.parametrize("params", PAIRS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_every_pair_of_local_rules_passes_the_shared_checks(params):
    game = pyspiel.load_game("python_american_page_one", params)
    pyspiel.random_sim_test(game, 1, serialize=True, verbose=False)
    conformance.check_invariant(game, 2, 0, conserved)
    conformance.check_hidden_information(game, 3, 1, swap_hidden)
    conformance.check_resample(game, 3, 2, 1, conserved)


def test_resample_works_through_pyspiel_and_openspiel_ismcts():
    from open_spiel.python.algorithms import ismcts, mcts
    game = pyspiel.load_game("python_american_page_one(max_turns=40)")
    state = next(conformance.random_states(game, 1, 5))
    p = state.current_player()
    world = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0., 1.))
    assert world.information_state_string(p) == state.information_state_string(p)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, None), 2.0, 10,
                           random_state=__import__("numpy").random.RandomState(0))
    assert bot.step(state) in state.legal_actions()


# ------------------------------------------------------- uniform resampling
def test_resample_weighs_a_hidden_card_by_its_unseen_copies():
    # Two players, one card each: p1's card is any of the 106 cards p0 has not
    # seen, so a kind with two unseen copies is twice as likely as one with one.
    r = rules(2, hand_size=1, dealer=0)
    s = dealt_position(r, [K("7S"), K("KH")], k("7D"), dealer=0)
    unseen = list(r.tables.counts)
    unseen[k("7S")] -= 1
    unseen[k("7D")] -= 1
    rng = random.Random(6)
    samples = 20_000
    counts = Counter()
    for _ in range(samples):
        w = s.resample_from_infostate(0, rng.random)
        counts[hand(w, 1)[0]] += 1
    chi2 = sum((counts[x] - samples * unseen[x] / 106) ** 2 / (samples * unseen[x] / 106)
               for x in range(53))
    assert chi2 < 52 + 6 * math.sqrt(2 * 52), chi2
    assert counts[k("7S")] < counts[k("7H")] * 0.75          # one unseen 7♠ against two 7♥
    assert s.cache[0][1].exact              # the view p0 sampled from: {player: (log, view)}


def test_resample_keeps_what_draw_until_playable_revealed():
    # p1 could not play on 9♥ (no ♥, 9, 8 or joker), drew 4♠ and kept it, then drew a
    # playable card it must now play. For p0: its three older cards hold none of
    # those, its last draw is one, uniformly among the unseen copies.
    r = rules(2, hand_size=2, dealer=0, draw_until_playable=True)
    s = dealt_position(r, [K("KC QC"), K("5C 6D")], k("9H"), dealer=0)
    play(s, "4S", "2H")
    assert s.current_player() == 1 and s.legal_actions() == [k("2H")]
    fits = set(K("9S 9D 9C 8S 8H 8D 8C")) | {JOKER} | set(range(13, 26))
    rng = random.Random(7)
    last = Counter()
    for _ in range(3000):
        w = s.resample_from_infostate(0, rng.random)
        cards = hand(w, 1)
        assert sum(x in fits for x in cards) == 1
        assert w.legal_actions() == [x for x in cards if x in fits]
        last[next(x for x in cards if x in fits)] += 1
    unseen = {x: (4 if x == JOKER else 2) - (x == k("9H")) for x in fits}
    total = sum(unseen.values())
    chi2 = sum((last[x] - 3000 * unseen[x] / total) ** 2 / (3000 * unseen[x] / total) for x in fits)
    dof = len(fits) - 1
    assert chi2 < dof + 6 * math.sqrt(2 * dof), chi2


def test_resample_keeps_a_successful_challenge_true_for_a_third_player():
    # p0 played a joker on 9♥ and a challenge found it held a ♥. p2 did not see
    # the hand: in every world p2 samples, p0 held a ♥ then.
    r = rules(3, hand_size=3, dealer=2, challenge=True)
    s = dealt_position(r, [K("Jk 5H KC"), K("6C 7C 2D"), K("4D 7S 3S")], k("9H"), dealer=2)
    play(s, JOKER, NAME_SUIT + C, CHALLENGE, "2S", "3S", "4S", "5S")
    assert s.current_player() == 1
    rng = random.Random(8)
    hearts = Counter()
    for _ in range(300):
        w = s.resample_from_infostate(2, rng.random)
        shown = [e for e in w.events() if e[0] == EV_SHOW_TO][0][2]
        held = hand_kinds(shown[1], shown[2])
        assert any(13 <= x < 26 and x != k("8H") for x in held)
        hearts[sum(13 <= x < 26 for x in held)] += 1
    assert len(hearts) > 1                    # the other cards vary: not the real hand


def test_a_penalty_card_played_next_turn_is_not_taken_for_a_card_seen_as_drawn():
    # p0 goes out on J♦ (not allowed): it draws two, the J skips p1 and p0 plays
    # 6♦, which may be either penalty card (or none of them: it was seen only as played).
    r = rules(2, hand_size=3, dealer=1, no_special_finish=True)
    s = dealt_position(r, [K("5H 5D JD"), K("KC 4C QS")], k("9H"), dealer=1)
    play(s, "5H", DRAW, "6S", PASS, "5D", DRAW, "7S", PASS, "JD", "9S", "6D", "6D")
    assert s.current_player() == 1 and hand(s, 0) == K("9S")
    rng = random.Random(9)
    kept = Counter()
    for _ in range(200):
        w = s.resample_from_infostate(1, rng.random)
        assert w.information_state_string(1) == s.information_state_string(1)
        replayed = AmericanPageOneState(r)
        for action in w.history():
            replayed.apply_action(action)
        assert str(replayed) == str(w)
        kept[hand(w, 0)[0]] += 1
    assert len(kept) > 20          # p0's last card is any unseen card, not the real 9♠


# --------------------------------------------------------------------- match
def test_a_match_rotates_the_dealer_and_adds_up_the_scores():
    from games.american_page_one.match import AmericanPageOneMatch
    from eval.match import play_game
    from agents import make_bot
    m = AmericanPageOneMatch(3, {"players": 3, "hand_size": 3}, first_dealer=1)
    history: list[list[float]] = []
    dealers = []
    while (params := m.next_deal(history)) is not None:
        game = pyspiel.load_game(m.game_string(params))
        dealers.append(game.rules.dealer)
        assert list(game.rules.scores) == m.scores(history)
        assert game.rules.deals_left == 2 - len(history)
        bots = [make_bot("rules", game, p, seed=len(history)) for p in range(3)]
        returns, _ = play_game(game, bots, seed=len(history))
        history.append(returns)
    assert dealers == [1, 2, 0] and len(history) == 3
    assert m.result(history) == [sum(h[p] for h in history) for p in range(3)]
    assert abs(sum(m.result(history))) < 1e-9
    with pytest.raises(GameParameterError, match="set by the match"):
        AmericanPageOneMatch(2, {"dealer": 1})
    with pytest.raises(ValueError, match="3 deals, 2 were played"):
        m.result(history[:2])


# ------------------------------------------------------------ rule-based bot
def rules_bot(state: AmericanPageOneState, player: int):
    from agents.rules.american_page_one import AmericanPageOneRulesBot
    return AmericanPageOneRulesBot(None, player)


def test_the_bot_does_not_read_hidden_cards():
    from agents import make_bot
    game = pyspiel.load_game("python_american_page_one(players=4,challenge=true)")
    checked = conformance.check_bot_ignores_hidden_cards(
        game, lambda me: make_bot("rules", game, me), 150, 9, swap_hidden)
    assert checked > 100


def test_the_bot_names_the_suit_it_holds_most():
    s = position(["8S 5D 6D 2D KC", *FOUR[1:]], top="9H")
    play(s, "8S")
    assert rules_bot(s, 0).step(s) == NAME_SUIT + D


def test_the_bot_keeps_its_answers_and_uses_them_on_a_draw_card():
    s = position(["2C 5H KC 6C", "2H 7D", "4D 7S", "9C TD"], top="9H")
    assert rules_bot(s, 0).step(s) == k("5H")          # a plain card, not the 2
    play(s, "5H")
    s = position(["2H 5S", "2C 6D", "4D 7S", "9C TD"], top="9H")
    play(s, "2H")
    assert rules_bot(s, 1).step(s) == k("2C")          # answers rather than drawing


def test_the_bot_attacks_a_next_player_near_out_and_dumps_points_when_anyone_is():
    s = position(["2H 5H KH", "6D 7D", "4D 7S 8D", "9C TD 3C"], top="9H")
    assert rules_bot(s, 0).step(s) == k("2H")          # p1 holds two cards: make it draw
    s = position(["5H KH QS", "6D 7D 8D", "4D 7S", "9C TD 3C"], top="9H")
    assert rules_bot(s, 0).step(s) == k("KH")          # p2 is near out: shed the 10 points


@pytest.mark.parametrize("game_string", [
    "python_american_page_one(players=4)",
    "python_american_page_one(players=3,multi_play=true,challenge=true,dobon=true,dobon_gaeshi=true,"
    "no_special_finish=true)",
    "python_american_page_one(players=5,draw_until_playable=true,linked_draws=true,until_last=true)"])
def test_the_bot_plays_whole_deals_legally(game_string):
    from agents import make_bot
    from eval.match import play_game
    game = pyspiel.load_game(game_string)
    for seed in range(3):
        bots = [make_bot("rules", game, p, seed) for p in range(game.num_players())]
        returns, decisions = play_game(game, bots, seed)
        assert abs(sum(returns)) < 1e-9 and decisions > 0


def test_the_bot_beats_random_play():
    from eval.match import run_match
    rows = run_match("python_american_page_one(players=4)", ["random", "rules"], 24, progress=False)
    random_row, rules_row = rows
    assert rules_row.mean_return - rules_row.mean_return_ci > 0 > random_row.mean_return


def test_the_harness_match_keeps_the_variant_it_was_loaded_with():
    from eval.config import match_format
    game = pyspiel.load_game("python_american_page_one(players=3,dobon=true,penalty=5)")
    match = match_format(game, "deals=2,first_dealer=1")
    first = match.next_deal([])
    assert (first["players"], first["dobon"], first["penalty"]) == (3, True, 5)
    assert (first["dealer"], first["deals_left"]) == (1, 1)
    second = match.next_deal([[30.0, -10.0, -20.0]])
    assert (second["dealer"], second["scores"], second["deals_left"]) == (2, "30;-10;-20", 0)
    assert pyspiel.load_game("python_american_page_one", second).num_players() == 3
    assert match.next_deal([[0.0] * 3] * 2) is None
    with pytest.raises(ValueError, match="deals"):
        match_format(game, "")


def test_a_later_view_starts_from_the_stocks_the_earlier_view_chose():
    # In the same long deal, the viewer's view one turn later keeps the earlier
    # view's stock for every card played before it and searches only the new
    # cards: no integer program (a second a view) at each new information state.
    record = json.loads((Path(__file__).parent / "data" / "apo_long_deal.json").read_text())
    state = pyspiel.load_game(record["game"]).new_initial_state()
    actions, viewer = record["actions"], record["viewer"]
    for action in actions[:1285]:
        state.apply_action(action)
    core, rng = state.core, random.Random(2)
    assert core.current_player() == viewer
    core.resample_from_infostate(viewer, rng.random)
    _, earlier = core.cache[viewer]
    assert earlier._solved                       # from nothing, it took the integer program
    for action in actions[1285:1289]:
        state.apply_action(action)
    world = core.resample_from_infostate(viewer, rng.random)
    _, later = core.cache[viewer]
    assert later is not earlier and not later._solved
    shared = earlier.chosen.keys() & later.chosen.keys()
    assert len(shared) == len(earlier.chosen) and len(later.chosen) > len(earlier.chosen)
    assert all(later.chosen[key] == earlier.chosen[key] for key in shared)
    assert world.information_state_string(viewer) == core.information_state_string(viewer)
    conserved(world)


def test_a_long_deal_with_five_reshuffles_still_resamples():
    # A deal between mostly random seats (1,297 actions, 5 reshuffles, 272 cards played
    # after them whose stock must be chosen): the depth-first choice runs out of budget
    # here, and the integer program (BeliefView._solve_epochs) finds one.
    from games.american_page_one.belief import BeliefView
    record = json.loads((Path(__file__).parent / "data" / "apo_long_deal.json").read_text())
    state = pyspiel.load_game(record["game"]).new_initial_state()
    for action in record["actions"]:
        state.apply_action(action)
    core, viewer = state.core, record["viewer"]
    assert BeliefView(core, viewer)._choose_epochs(random.Random(0).random) is None
    rng = random.Random(1)
    for _ in range(3):
        world = core.resample_from_infostate(viewer, rng.random)
        assert world.information_state_string(viewer) == core.information_state_string(viewer)
        conserved(world)


@pytest.mark.parametrize("game_string", [
    "python_american_page_one(players=4)",
    "python_american_page_one(players=3,multi_play=true,challenge=true,no_special_finish=true,"
    "skip=ace,reverse=nine)",
    "python_american_page_one(players=5,linked_draws=true,play_drawn=false)"])
def test_what_the_bot_says_its_moves_show_is_true_of_its_hand(game_string):
    # The rule bot's `lacked` (what a resampler may assume its moves show) is
    # sound: at every move of rule-bot deals, the hand holds none of the kinds it
    # names, and drawing or playing a card names some in most deals.
    from agents.rules.american_page_one import AmericanPageOneRulesBot
    game = pyspiel.load_game(game_string)
    bot, named = AmericanPageOneRulesBot(game, 0), 0
    for seed in range(12):
        state, rng = game.new_initial_state().core, random.Random(seed)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance_outcome(rng.random()))
                continue
            action = bot.step(state)
            lacked = bot.lacked(state, action)
            held = hand_kinds(state.lo[state.current_player()], state.hi[state.current_player()])
            assert not [kind for kind in held if lacked >> kind & 1], (str(state), action)
            named += lacked != 0
            state.apply_action(action)
    assert named > 100


def test_resampling_under_the_rule_bot_keeps_what_its_draws_showed():
    # p1 (a rule bot) drew on 9♠ holding more than three cards: under the model
    # it held no plain spade, no 9, no 8 then, so no world gives it one from
    # before that draw; without the model some do. Worlds are still consistent.
    from agents.rules.american_page_one import AmericanPageOneRulesBot
    game = pyspiel.load_game("python_american_page_one(players=3,dealer=2)")
    model = AmericanPageOneRulesBot(game, 1)
    for seed in range(200):
        state, rng = game.new_initial_state().core, random.Random(seed)
        while state.is_chance_node():
            state.apply_action(state.sample_chance_outcome(rng.random()))
        while state.current_player() == 0:
            state.apply_action(model.step(state))
        if state.current_player() == 1 and state.phase == PLAY and model.step(state) == DRAW:
            break
    lacked = model.lacked(state, DRAW)
    held_before = hand_kinds(state.lo[1], state.hi[1])
    state.apply_action(DRAW)
    while state.is_chance_node():
        state.apply_action(state.sample_chance_outcome(rng.random()))
    drawn = state.drawn
    state.apply_action(model.step(state))
    while state.current_player() not in (0, -4):
        state.apply_action(state.sample_chance_outcome(rng.random()) if state.is_chance_node()
                           else model.step(state))
    assume, plain = Counter(), Counter()
    sampler = random.Random(1)
    for _ in range(300):
        for counts, world in ((assume, state.resample_assuming(0, sampler.random, model)),
                              (plain, state.resample_from_infostate(0, sampler.random))):
            assert world.information_state_string(0) == state.information_state_string(0)
            conserved(world)
            counts["lacking" if not any(lacked >> k & 1 for k in _dealt(world, 1)) else "holding"] += 1
    assert lacked and not any(lacked >> k & 1 for k in held_before) and drawn >= 0
    assert assume["holding"] == 0 and plain["holding"] > 30


def _dealt(state: AmericanPageOneState, seat: int) -> list[int]:
    return [value for kind, who, value in state.events() if kind == EV_DEAL and who == seat]


def test_resampling_under_a_model_the_others_did_not_follow_draws_as_without_it():
    # p1 drew on 4♠ while holding 5♠ and passed (a rule bot would have played
    # it), then played the 5♠: under the model it lacked plain spades after its
    # pass and acquired nothing since, which contradicts the play. The view then
    # draws as without the model, and its worlds stay consistent.
    from agents.rules.american_page_one import AmericanPageOneRulesBot
    game_rules = rules(3, dealer=2, hand_size=4)
    state = dealt_position(game_rules, [K("4S 5D 6D 7D"), K("5S 6C 7C 9C"), K("6S TC JD KD")], k("9S"),
                           dealer=2)
    model = AmericanPageOneRulesBot(None, 1)
    play(state, "4S")
    assert model.lacked(state, DRAW) >> k("5S") & 1 and model.step(state) == k("5S")
    play(state, DRAW, "TH", PASS, "6S", DRAW, "2H", PASS, "5S")
    from games.american_page_one.belief import BeliefView
    with pytest.raises(ValueError, match="no hidden acquisition"):
        BeliefView(state, 0, model)
    sampler = random.Random(3)
    for _ in range(20):
        world = state.resample_assuming(0, sampler.random, model)
        assert world.information_state_string(0) == state.information_state_string(0)
        conserved(world)
    _, view = state.cache[(0, AmericanPageOneRulesBot)]
    assert view.opp[1].voids == []
