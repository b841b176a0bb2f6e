"""Classic Canasta: a scenario test for every row of the page's standard column and
every scoring item, with the page's figures; then the encoding, the parameters and
the match. The shared checks are in test_classic_canasta_shared.py."""

from __future__ import annotations

import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from games import registry
from games.classic_canasta.actions import (BLACK_SLOT, COMMIT, DISCARD_BASE, DRAW, MELD_BASE,
                                           NUM_ACTIONS, TAKE_JOKER, TAKE_PAIR, TAKE_TWO, WITHDRAW,
                                           action_to_string, decode_meld, discard_action,
                                           meld_action)
from games.classic_canasta.core import (DRAW_CARD, END_LAST_THREE, END_OUT, END_STOCK, MELD,
                                        PICKUP, REPLACE, TURN, ClassicRules, ClassicState, deal,
                                        set_up, threshold_for)
from games.classic_canasta.match import ClassicCanastaMatch
from games.classic_canasta.scoring import side_score
from games.modern_canasta.cards import (ACE, BLACK_THREE, DECK, FIVE, JOKER, KING, NINE, NUM_KINDS,
                                        QUEEN, RED_THREE, SEVEN, TWO, counts_of, parse_kind)
from games.protocol import CHANCE, IllegalActionError

C = counts_of
K = parse_kind
NO_MELDS = [(0, 0, 0)] * 12


def meld(rank: str, naturals: int = 0, twos: int = 0, jokers: int = 0) -> int:
    slot = BLACK_SLOT if rank == "3b" else K(rank)
    return meld_action(slot, naturals, twos, jokers)


def discard(rank: str) -> int:
    return discard_action(K(rank))


def hands(n: int, *texts: str) -> list[list[int]]:
    return [C(t) for t in texts] + [C("")] * (n - len(texts))


def play(state: ClassicState, *actions: int) -> None:
    for a in actions:
        state.apply_action(a)


def natural_hands(n: int, size: int) -> list[list[int]]:
    """Hands of naturals only (no 3s), in dealing order."""
    return [[(i * size + c) % 11 for c in range(size)] for i in range(n)]


def melds_of(state: ClassicState, side: int) -> dict[str, tuple[int, int, int]]:
    from games.modern_canasta.cards import KIND_NAMES
    return {("3b" if s == BLACK_SLOT else KIND_NAMES[s]): m
            for s, m in enumerate(state.open_melds(side)) if any(m)}


def full_position(hand0: str, pile: str, melds: dict, stock: str = "",
                  threes: tuple[int, int] = (4, 0)) -> ClassicState:
    """Four players and a stock of just `stock`: every card not placed goes to seat 1."""
    placed = C(hand0 + " " + pile + " " + stock)
    for (_, slot), (n, t, j) in melds.items():
        placed[slot] += n
        placed[TWO] += t
        placed[JOKER] += j
    placed[RED_THREE] += sum(threes)
    rest = [DECK[k] - placed[k] for k in range(NUM_KINDS)]
    assert not rest[RED_THREE]
    return set_up([C(hand0), rest, C(""), C("")], pile=[K(k) for k in pile.split()], melds=melds,
                  threes=list(threes), stock=C(stock))


# ------------------------------------------------------------------ players
def test_four_play_in_two_partnerships_two_or_three_each_for_themselves():
    four = pyspiel.load_game("python_classic_canasta(players=4)")
    assert four.num_players() == 4 and registry.partnerships(four) == ((0, 2), (1, 3))
    for n in (2, 3):
        game = pyspiel.load_game(f"python_classic_canasta(players={n})")
        assert game.num_players() == n and registry.partnerships(game) is None
    # Four players: p0 goes out, seats 0 and 2 score together against 1 and 3.
    s = set_up(hands(4, "K", "Q Q", "", "J J"), phase=MELD, melds={(0, ACE): (7, 0, 0)})
    play(s, discard("K"))
    x = s.returns()[0]
    assert s.returns() == [x, -x, x, -x] and x == (s.scores[0].total - s.scores[1].total) / 1000
    # Three players: each seat is its own side; a seat's return is its points less the others' mean.
    s = set_up(hands(3, "K", "Q Q", "J J 5"), phase=MELD, melds={(0, ACE): (7, 0, 0)})
    play(s, discard("K"))
    totals = [sc.total for sc in s.scores]
    assert len(totals) == 3
    assert s.returns() == pytest.approx([(t - (sum(totals) - t) / 2) / 1000 for t in totals])
    assert sum(s.returns()) == pytest.approx(0)


# ------------------------------------------------------------------ deal
@pytest.mark.parametrize("n,size", [(4, 11), (2, 15), (3, 13)])
def test_deal_11_each_with_four_15_with_two_13_with_three_and_one_card_turned_up(n, size):
    s = ClassicState(ClassicRules(players=n, first_player=1))
    deal(s, natural_hands(n, size), upcards=[KING])
    assert s.sizes == [size] * n and s.pile == [KING] and not s.frozen
    assert s.stock_size == 108 - n * size - 1
    assert s.phase == TURN and s.current_player() == 1     # the seat left of the dealer starts


def test_a_wild_card_or_red_three_turned_up_is_covered_and_freezes_the_pile():
    s = ClassicState(ClassicRules(players=4))
    deal(s, natural_hands(4, 11), upcards=[JOKER])
    assert s.is_chance_node() and s.pile == [JOKER]        # another card is turned onto it
    play(s, RED_THREE, KING)
    assert s.pile == [JOKER, RED_THREE, KING] and s.frozen and s.phase == TURN


# ------------------------------------------------------------------ draw
def test_four_players_draw_one_card():
    s = ClassicState(ClassicRules(players=4))
    deal(s, natural_hands(4, 11), upcards=[KING])
    play(s, DRAW)
    assert s.current_player() == CHANCE
    play(s, QUEEN)
    assert s.phase == MELD and s.sizes[0] == 12


@pytest.mark.parametrize("n,size", [(2, 15), (3, 13)])
def test_two_or_three_players_draw_two_and_discard_one(n, size):
    s = ClassicState(ClassicRules(players=n))
    deal(s, natural_hands(n, size), upcards=[KING])
    play(s, DRAW, QUEEN)
    assert s.current_player() == CHANCE                  # the second card
    play(s, JOKER)
    assert s.phase == MELD and s.sizes[0] == size + 2
    play(s, discard("Q"))
    assert s.sizes[0] == size + 1 and s.phase == TURN and s.current_player() == 1


# ------------------------------------------------------------------ 3s
def test_red_threes_dealt_go_down_and_are_replaced():
    s = ClassicState(ClassicRules(players=4))
    dealt = natural_hands(4, 11)
    dealt[1][3] = RED_THREE
    deal(s, dealt)
    assert s.phase == REPLACE and s.is_chance_node() and s.threes == [0, 1]
    assert s.sizes[1] == 10
    play(s, QUEEN)                                        # p1's replacement
    assert s.sizes[1] == 11 and s.hands[1][QUEEN] == dealt[1].count(QUEEN) + 1
    play(s, KING)                                         # then the pile's first card
    assert s.pile == [KING] and s.phase == TURN


def test_a_red_three_drawn_goes_down_and_the_player_draws_again():
    s = set_up(hands(4, "K K 5", "Q", "J", "9"), pile=[SEVEN])
    play(s, DRAW, RED_THREE)
    assert s.threes == [1, 0] and s.is_chance_node() and s.sizes[0] == 3
    play(s, QUEEN)
    assert s.phase == MELD and s.sizes[0] == 4
    assert not any(s.hands[p][RED_THREE] for p in range(4))   # a hand never holds a red 3


@pytest.mark.parametrize("count,value", [(1, 100), (2, 200), (3, 300), (4, 800)])
def test_red_threes_100_each_800_for_all_four_against_a_side_that_has_not_melded(count, value):
    melds = list(NO_MELDS)
    assert side_score(melds, count, [], False, False).red_threes == -value
    melds[KING] = (3, 0, 0)
    assert side_score(melds, count, [], False, False).red_threes == value


def test_no_action_discards_or_melds_a_red_three():
    names = [action_to_string(a) for a in range(NUM_ACTIONS)]
    assert not [n for n in names if "3r" in n]


def test_a_discarded_black_three_stops_the_next_player_taking_the_pile():
    s = set_up(hands(4, "3b 5 6", "K K 4", "", ""), phase=MELD, pile=[KING],
               melds={(1, QUEEN): (3, 0, 0), (0, NINE): (3, 0, 0)})
    play(s, discard("3b"))
    assert s.current_player() == 1 and s.legal_actions() == [DRAW]   # the K under it is blocked
    s2 = set_up(hands(4, "5", "K K 4", "", ""), pile=[FIVE, KING], melds={(1, QUEEN): (3, 0, 0)}, actor=1)
    assert TAKE_PAIR in s2.legal_actions()                 # the same pile without the black 3 on top


def test_black_threes_meld_only_as_the_last_meld_of_going_out():
    canasta = {(0, KING): (7, 0, 0)}
    s = set_up(hands(4, "3b 3b 3b Q"), phase=MELD, melds=canasta, melders=1)
    assert meld("3b", 3) in s.legal_actions()
    play(s, meld("3b", 3), discard("Q"))
    assert s.is_terminal() and s.scores[0].going_out == 100
    assert s.scores[0].melded_cards == 70 + 15             # three black 3s, 5 each
    # Not without the canasta to go out with, and not while other cards remain.
    assert meld("3b", 3) not in set_up(hands(4, "3b 3b 3b Q"), phase=MELD,
                                       melds={(0, KING): (6, 0, 0)}).legal_actions()
    assert meld("3b", 3) not in set_up(hands(4, "3b 3b 3b Q J"), phase=MELD,
                                       melds=canasta).legal_actions()


# ------------------------------------------------------------------ initial meld
def test_initial_meld_15_negative_50_from_0_90_from_1500_120_from_3000():
    assert [threshold_for(s) for s in (-5, 0, 1495, 1500, 2995, 3000, 9000)] == \
        [15, 50, 50, 90, 90, 120, 120]
    assert ClassicRules(players=3, score0=-10, score1=1500, score2=3000).thresholds == (15, 90, 120)


def test_an_initial_meld_short_of_the_requirement_can_only_be_withdrawn():
    s = set_up(hands(4, "K K K 5 5 9"), phase=MELD)
    play(s, meld("K", 3))                                  # 30 of the 50 needed
    assert s.short and WITHDRAW in s.legal_actions()
    assert not [a for a in s.legal_actions() if DISCARD_BASE <= a < MELD_BASE]
    play(s, WITHDRAW)
    assert s.hands[0] == C("K K K 5 5 9") and s.known[0] == C("K K K")
    assert not [a for a in s.legal_actions() if a >= MELD_BASE]   # no more melding this turn
    s = set_up(hands(4, "A A A K K K 4"), phase=MELD)
    play(s, meld("A", 3))                                  # 60: enough
    assert not s.short
    play(s, discard("4"))
    assert s.melded == 1


@pytest.mark.parametrize("score,needed", [(-100, 15), (0, 50), (1500, 90), (3000, 120)])
def test_several_melds_make_up_the_initial_meld(score, needed):
    # K K K (30) + A A A (60) + Jk Q Q (70): 30, 90, 160 in turn.
    s = set_up(hands(4, "K K K A A A Q Q Jk 4 4"), phase=MELD, rules=ClassicRules(score0=score))
    for action, points in ((meld("K", 3), 30), (meld("A", 3), 90), (meld("Q", 2, 0, 1), 160)):
        play(s, action)
        assert s.short == (points < needed)


def test_the_piles_top_card_counts_toward_the_initial_meld():
    # K K in hand and the K on top: 30; with Q Q Q from the hand, 60 >= 50.
    s = set_up(hands(4, "K K Q Q Q 4 4"), pile=[FIVE, KING])
    assert s.legal_actions() == [DRAW, TAKE_PAIR]
    play(s, TAKE_PAIR)
    assert s.phase == PICKUP and s.short and s.turn_points == 30
    assert COMMIT not in s.legal_actions()
    play(s, meld("Q", 3))
    assert not s.short and COMMIT in s.legal_actions()
    play(s, COMMIT)
    assert s.phase == MELD and s.hands[0] == C("5 4 4") and s.melded == 1
    # With a negative score the pile's K and the pair alone are enough (30 >= 15).
    s = set_up(hands(4, "K K 4 4 6"), pile=[FIVE, KING], rules=ClassicRules(score0=-20))
    play(s, TAKE_PAIR)
    assert not s.short
    # Short, and nothing to add: withdrawn, the top card back on the pile, and a draw.
    s = set_up(hands(4, "K K 4 4 6"), pile=[FIVE, KING])
    play(s, TAKE_PAIR)
    assert s.legal_actions() == [WITHDRAW]
    play(s, WITHDRAW)
    assert s.pile == [FIVE, KING] and s.hands[0] == C("K K 4 4 6") and s.phase == DRAW_CARD


# ------------------------------------------------------------------ melds
def test_melds_three_or_more_more_naturals_than_wild_cards_at_most_three_wild():
    s = set_up(hands(4, "8 8 2 2 Jk 5 5 6 4 4"), phase=MELD, melds={(0, NINE): (3, 0, 0)})
    legal = set(s.legal_actions())
    assert meld("8", 2, 1) in legal and meld("8", 2, 0, 1) in legal      # 8 8 2
    assert meld("8", 2, 2) not in legal and meld("8", 2, 1, 1) not in legal   # as many wild as naturals
    assert meld("8", 1, 1) not in legal and meld("8", 2) not in legal    # fewer than three cards
    assert meld("9", 0, 2) in legal and meld("9", 0, 1, 1) in legal      # 9 9 9 2 2 / 9 9 9 2 Jk
    assert meld("9", 0, 2, 1) not in legal                               # three wild to three naturals
    s = set_up(hands(4, "2 Jk 5 5 6"), phase=MELD, melds={(0, NINE): (5, 1, 0)})
    legal = set(s.legal_actions())
    assert meld("9", 0, 1, 1) in legal                                   # three wild cards
    s = set_up(hands(4, "2 5 5 6"), phase=MELD, melds={(0, NINE): (5, 2, 1)})
    assert meld("9", 0, 1) not in s.legal_actions()                      # a fourth: no


def test_melds_grow_past_seven_cards():
    s = set_up(hands(4, "K K 2 5 5"), phase=MELD, melds={(0, KING): (7, 0, 0)})
    assert s.canastas == [1, 0]
    play(s, meld("K", 2))
    assert melds_of(s, 0)["K"] == (9, 0, 0) and s.canastas == [1, 0]
    play(s, meld("K", 0, 1))                               # a wild card on a natural canasta
    assert melds_of(s, 0)["K"] == (9, 1, 0)
    assert side_score(s.open_melds(0), 0, [], False, False).canasta_bonuses == 300   # now mixed


def test_no_wild_card_melds():
    s = set_up(hands(4, "2 2 Jk 5 6"), phase=MELD)
    assert not [a for a in s.legal_actions() if a >= MELD_BASE]


def test_sevens_and_aces_meld_like_any_rank():
    s = set_up(hands(4, "7 7 A A 2 Jk 5 6"), phase=MELD, melds={(0, NINE): (3, 0, 0)})
    legal = set(s.legal_actions())
    assert meld("7", 2, 1) in legal and meld("A", 2, 0, 1) in legal


# ------------------------------------------------------------------ taking the pile
def test_a_frozen_pile_is_taken_only_with_a_natural_pair():
    # Not melded: frozen for the side.
    assert set_up(hands(4, "K 2 5 6 7"), pile=[NINE, KING]).legal_actions() == [DRAW]
    assert set_up(hands(4, "K K 5 6 7"), pile=[NINE, KING]).legal_actions() == [DRAW, TAKE_PAIR]
    # Melded, but a wild card lies in the pile.
    melded = {(0, QUEEN): (3, 0, 0)}
    assert set_up(hands(4, "K 2 Jk 6"), pile=[TWO, NINE, KING], melds=melded).legal_actions() == [DRAW]
    assert set_up(hands(4, "K K 2 6"), pile=[TWO, NINE, KING], melds=melded).legal_actions() == [DRAW, TAKE_PAIR]


def test_an_unfrozen_pile_is_taken_with_a_natural_and_a_wild_card_too():
    s = set_up(hands(4, "K 2 Jk 6 6"), pile=[BLACK_THREE, NINE, KING], melds={(0, QUEEN): (3, 0, 0)})
    assert s.legal_actions() == [DRAW, TAKE_TWO, TAKE_JOKER]
    play(s, TAKE_TWO)
    assert melds_of(s, 0)["K"] == (2, 1, 0)
    assert s.hands[0] == C("Jk 6 6 9 3b") and s.known[0] == C("9 3b") and s.pile == []
    assert s.phase == MELD and not s.frozen


def test_taking_onto_a_meld_keeps_more_naturals_than_wild_cards():
    # K K 2 on the table: K + Jk + the top K would make 4 naturals, 2 wild: fine; on K K K 2 2 2 no.
    ok = set_up(hands(4, "K Jk 6 6"), pile=[NINE, KING], melds={(0, KING): (2, 1, 0)})
    assert TAKE_JOKER in ok.legal_actions()
    full = set_up(hands(4, "K Jk 6 6"), pile=[NINE, KING], melds={(0, KING): (3, 3, 0)})
    assert TAKE_JOKER not in full.legal_actions()


def test_the_pile_is_never_taken_with_a_black_three_or_a_wild_card_on_top():
    melded = {(0, QUEEN): (3, 0, 0)}
    assert set_up(hands(4, "3b 3b 2 6"), pile=[NINE, BLACK_THREE], melds=melded).legal_actions() == [DRAW]
    assert set_up(hands(4, "2 2 K 6"), pile=[KING, TWO], melds=melded).legal_actions() == [DRAW]


def test_a_red_three_taken_with_the_pile_goes_down_for_the_side():
    s = set_up(hands(4, "K K 6 6"), pile=[RED_THREE, NINE, KING], melds={(0, QUEEN): (3, 0, 0)})
    play(s, TAKE_PAIR)
    assert s.threes == [1, 0] and s.hands[0] == C("6 6 9")


# ------------------------------------------------------------------ discarding
def test_any_card_but_a_red_three_may_be_discarded_and_a_wild_card_freezes_the_pile():
    melds = {(0, QUEEN): (3, 0, 0), (1, NINE): (3, 0, 0)}
    s = set_up(hands(4, "2 Jk 3b K 5", "K 2 5", "5 2 6", ""), phase=MELD, pile=[KING], melds=melds)
    assert [a for a in s.legal_actions() if a < MELD_BASE] == \
        [discard(k) for k in ("5", "K", "2", "Jk", "3b")]
    play(s, discard("2"))
    assert s.frozen
    play(s, DRAW, QUEEN, discard("5"))
    assert s.current_player() == 2 and s.legal_actions() == [DRAW]    # 5 + 2 may not take it
    unfrozen = set_up(hands(4, "", "", "5 2 6", ""), pile=[KING, FIVE], melds=melds, actor=2)
    assert unfrozen.legal_actions() == [DRAW, TAKE_TWO]


# ------------------------------------------------------------------ going out
def test_going_out_needs_a_canasta_and_scores_100():
    s = set_up(hands(4, "Q Q Q 5"), phase=MELD, melds={(0, KING): (6, 0, 0)})
    assert meld("Q", 3) not in s.legal_actions()           # it would leave one card, with no canasta
    s = set_up(hands(4, "Q Q Q 5"), phase=MELD, melds={(0, KING): (7, 0, 0)}, melders=1)
    play(s, meld("Q", 3), discard("5"))
    assert s.is_terminal() and s.events()[-1][2] == END_OUT
    assert s.scores[0].going_out == 100 and s.scores[1].going_out == 0


def test_going_out_by_melding_every_card():
    s = set_up(hands(4, "Q Q Q"), phase=MELD, melds={(0, KING): (7, 0, 0)}, melders=1)
    play(s, meld("Q", 3))
    assert s.is_terminal() and s.scores[0].going_out == 100


def test_two_players_need_two_canastas_to_go_out():
    one = {(0, KING): (7, 0, 0)}
    s = set_up(hands(2, "Q Q Q 5"), phase=MELD, melds=one)
    assert meld("Q", 3) not in s.legal_actions()
    s = set_up(hands(2, "Q Q Q 5"), phase=MELD, melds={**one, (0, ACE): (5, 2, 0)})
    assert meld("Q", 3) in s.legal_actions()
    assert set_up(hands(3, "Q Q Q 5"), phase=MELD, melds=one).legal_actions().count(meld("Q", 3)) == 1


def test_going_out_concealed_scores_200_and_needs_no_minimum():
    # Side 0 has not melded and needs 120; seven 4s (35 points) and a discard go out concealed.
    s = set_up(hands(4, "4 4 4 4 4 4 4 5"), phase=MELD, rules=ClassicRules(score0=3000))
    play(s, meld("4", 7))
    assert s.short and discard("5") in s.legal_actions()
    play(s, discard("5"))
    assert s.is_terminal() and s.scores[0].going_out == 200
    # A player who melded in an earlier turn goes out for 100.
    s = set_up(hands(4, "Q Q Q 5"), phase=MELD, melds={(0, KING): (7, 0, 0)}, melders=0b0001)
    play(s, meld("Q", 3), discard("5"))
    assert s.scores[0].going_out == 100
    # The partner's melds do not stop it: p0 melds its whole hand in one turn.
    s = set_up(hands(4, "Q Q Q 5"), phase=MELD, melds={(0, KING): (7, 0, 0)}, melders=0b0100)
    play(s, meld("Q", 3), discard("5"))
    assert s.scores[0].going_out == 200


def test_taking_the_pile_is_not_going_out_concealed():
    s = set_up(hands(4, "Q Q 5"), pile=[QUEEN], melds={(0, KING): (7, 0, 0)})
    play(s, TAKE_PAIR, discard("5"))
    assert s.is_terminal() and s.scores[0].going_out == 100


# ------------------------------------------------------------------ scoring
@pytest.mark.parametrize("meld_counts,bonus", [((7, 0, 0), 500), ((8, 0, 0), 500), ((6, 1, 0), 300),
                                               ((4, 2, 1), 300), ((6, 0, 0), 0)])
def test_canasta_bonuses_mixed_300_natural_500(meld_counts, bonus):
    melds = list(NO_MELDS)
    melds[KING] = meld_counts
    assert side_score(melds, 0, [], False, False).canasta_bonuses == bonus


def test_card_values_and_cards_left_in_hand_count_against():
    score = side_score(NO_MELDS, 0, [C("A Jk 5 3b"), C("K 2")], False, False)
    assert score.cards_in_hand == -(20 + 50 + 5 + 5) - (10 + 20)


def test_a_side_that_has_not_melded_loses_its_red_threes():
    assert side_score(NO_MELDS, 2, [C("K")], False, False).total == -200 - 10


def test_a_hand_scores_every_item_together():
    melds = list(NO_MELDS)
    melds[KING] = (7, 0, 0)        # 70 + 500
    melds[NINE] = (4, 1, 0)        # 40 + 20
    score = side_score(melds, 1, [C(""), C("5 Jk")], True, False)
    assert (score.melded_cards, score.canasta_bonuses, score.red_threes, score.going_out,
            score.cards_in_hand) == (130, 500, 100, 100, -55)
    assert score.total == 775


# ------------------------------------------------------------------ the end of the stock
def test_a_red_three_as_the_last_card_goes_down_then_its_player_melds_but_does_not_discard():
    # Hoyle: the player who draws a red 3 as the stock's last card lays it down, may meld
    # and lay off, may not discard; then the hand ends.
    s = full_position("K K 5", "9", {(0, KING): (3, 0, 0)}, stock="3r", threes=(3, 0))
    play(s, DRAW, RED_THREE)
    assert not s.is_terminal() and s.phase == MELD and s.current_player() == 0 and s.threes == [4, 0]
    assert s.legal_actions() == [DRAW, meld("K", 1), meld("K", 2)]     # no discard
    assert s.action_to_string(0, DRAW) == "end the hand (a red 3 was the last card)"
    with pytest.raises(IllegalActionError):
        s.apply_action(discard("5"))
    play(s, meld("K", 2))
    assert s.legal_actions() == [DRAW]          # leaving one card is fine: no discard follows
    play(s, DRAW)
    assert s.is_terminal() and s.events()[-1][2] == END_LAST_THREE
    assert s.scores[0].melded_cards == 50 and s.scores[0].cards_in_hand == -5
    assert s.scores[0].going_out == 0
    assert "p0 ends the hand" in s.information_state_string(1)


def test_after_a_last_red_three_a_meld_may_leave_one_card_and_none_only_going_out():
    # Side 0 has no canasta: it may meld down to one card, not to none.
    s = full_position("Q Q Q 5", "9", {(0, KING): (3, 0, 0)}, stock="3r", threes=(3, 0))
    play(s, DRAW, RED_THREE)
    assert meld("Q", 3) in s.legal_actions()
    s = full_position("Q Q Q", "9", {(0, KING): (3, 0, 0)}, stock="3r", threes=(3, 0))
    play(s, DRAW, RED_THREE)
    assert s.legal_actions() == [DRAW]
    # With a canasta the same meld empties the hand: the player goes out, with the bonus
    # (concealed: it had not melded before this hand).
    s = full_position("Q Q Q", "9", {(0, KING): (7, 0, 0)}, stock="3r", threes=(3, 0))
    play(s, DRAW, RED_THREE)
    assert s.legal_actions() == [DRAW, meld("Q", 3)]
    play(s, meld("Q", 3))
    assert s.is_terminal() and s.events()[-1][2] == END_OUT and s.scores[0].going_out == 200


def test_after_a_last_red_three_a_short_initial_meld_is_withdrawn_before_the_hand_ends():
    s = full_position("Q Q Q 5 5", "9", {}, stock="3r", threes=(3, 0))   # 30 points of 50 needed
    play(s, DRAW, RED_THREE, meld("Q", 3))
    assert s.short and s.legal_actions() == [WITHDRAW]
    play(s, WITHDRAW)
    assert s.legal_actions() == [DRAW]
    play(s, DRAW)
    assert s.is_terminal() and s.scores[0].melded_cards == 0


def test_with_two_players_the_second_card_drawn_may_be_the_last_red_three():
    rest = [DECK[k] - C("K K 5 9 3r 3r 3r 3r Q")[k] for k in range(NUM_KINDS)]
    assert not rest[RED_THREE]
    s = set_up([C("K K 5"), rest], pile=[K("9")], threes=[3, 0], stock=C("3r Q"))
    play(s, DRAW, K("Q"), RED_THREE)
    assert s.phase == MELD and s.hands[0][QUEEN] == 1 and s.legal_actions()[0] == DRAW
    assert not any(DISCARD_BASE <= a < MELD_BASE for a in s.legal_actions())


def test_a_red_three_as_the_last_card_ends_the_hand_at_once_with_last_red_three_end():
    rules = ClassicRules(last_red_three="end")
    s = full_position("K 5", "9", {}, stock="3r", threes=(3, 0))
    s.rules = rules
    play(s, DRAW, RED_THREE)
    assert s.is_terminal() and s.events()[-1][2] == END_LAST_THREE and s.threes == [4, 0]
    game = pyspiel.load_game("python_classic_canasta(last_red_three=end)")
    assert game.new_initial_state().core.rules.last_red_three == "end"
    with pytest.raises(ValueError, match="last_red_three"):
        pyspiel.load_game("python_classic_canasta(last_red_three=later)")


def test_with_the_stock_empty_a_player_takes_the_pile_or_the_hand_ends():
    s = full_position("K K 5", "9 K", {(0, QUEEN): (3, 0, 0)})
    assert s.legal_actions() == [DRAW, TAKE_PAIR]
    assert s.action_to_string(0, DRAW) == "end the hand (the stock is empty)"
    play(s, DRAW)
    assert s.is_terminal() and s.events()[-1][2] == END_STOCK
    # Taking goes on; when the next player can neither draw nor take, the hand is over.
    s = full_position("K K 3b 6", "9 K", {(0, QUEEN): (3, 0, 0)})
    play(s, TAKE_PAIR, discard("3b"))
    assert s.is_terminal() and s.events()[-1][2] == END_STOCK


# ------------------------------------------------------------------ encoding and parameters
def test_the_action_encoding_round_trips():
    assert NUM_ACTIONS == 1012
    seen = set()
    for a in range(MELD_BASE, NUM_ACTIONS):
        assert meld_action(*decode_meld(a)) == a
        seen.add(action_to_string(a))
    assert len(seen) == NUM_ACTIONS - MELD_BASE
    assert pyspiel.load_game("python_classic_canasta").num_distinct_actions() == NUM_ACTIONS


def test_parameters_are_validated_with_clear_errors():
    for bad, word in (({"players": 5}, "players"), ({"players": 1}, "players"),
                      ({"players": 3, "first_player": 3}, "first_player"),
                      ({"score2": 10}, "score2"), ({"score0": 2_000_000}, "score0"),
                      ({"colour": 1}, "unknown")):
        with pytest.raises(ValueError, match=word):
            ClassicRules.from_params(bad)
    with pytest.raises(Exception, match="players=5"):
        pyspiel.load_game("python_classic_canasta(players=5)")


def test_illegal_actions_fail_naming_the_action():
    s = set_up(hands(4, "K K 5"), pile=[NINE])
    with pytest.raises(IllegalActionError, match="take pile with a pair"):
        s.apply_action(TAKE_PAIR)


# ------------------------------------------------------------------ the match
def test_a_match_is_to_5000_or_7500_with_three_or_a_chosen_target():
    assert ClassicCanastaMatch(4).target == 5000 and ClassicCanastaMatch(2).target == 5000
    assert ClassicCanastaMatch(3).target == 7500
    assert ClassicCanastaMatch(4, 10000).target == 10000
    for bad in ((4, 8500), (5, None)):
        with pytest.raises(ValueError):
            ClassicCanastaMatch(*bad)


def test_a_match_feeds_running_scores_into_the_initial_meld_and_rotates_the_first_player():
    m = ClassicCanastaMatch(3)
    params = m.next_deal([[1600.0, -40.0, 3100.0], [0.0, 20.0, 0.0]])
    assert params == {"players": 3, "score0": 1600, "score1": -20, "score2": 3100, "first_player": 2}
    game = pyspiel.load_game(m.game_string(params))
    assert game.new_initial_state().core.rules.thresholds == (90, 15, 120)


def test_a_match_ends_at_the_target_with_one_side_ahead():
    m = ClassicCanastaMatch(4)
    assert m.next_deal([[5000.0, 5000.0]]) is not None      # a tie at the top plays on
    assert m.next_deal([[5200.0, 3000.0]]) is None
    assert m.result([[5200.0, 3000.0]]) == [1.0, -1.0, 1.0, -1.0]
    three = ClassicCanastaMatch(3)
    assert three.result([[7600.0, 2000.0, 4000.0]]) == [1.0, -1.0, 0.0]
    with pytest.raises(ValueError, match="2 values"):
        m.totals([[1.0, 2.0, 3.0]])


def test_a_hands_record_is_each_sides_points():
    s = set_up(hands(3, "K", "Q Q", "J J 5"), phase=MELD, melds={(0, ACE): (7, 0, 0)})
    play(s, discard("K"))
    assert ClassicCanastaMatch(3).deal_record(s) == [float(x.total) for x in s.scores]
