"""Modern American Canasta: a scenario test for every row of the page's table and
every scoring item, with the page's figures; then the encoding and the
going-out search. The shared checks are in test_modern_canasta_shared.py."""

from __future__ import annotations

import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from games.modern_canasta.actions import (ASK, COMMIT, DISCARD_BASE, DRAW, MELD_BASE, NO,
                                          NUM_ACTIONS, TAKE, WILD_BASE, WITHDRAW, YES,
                                          action_to_string, decode_meld, discard_action,
                                          meld_action)
from games.modern_canasta.cards import (ACE, BLACK_THREE, DECK, JOKER, KING, NUM_KINDS, QUEEN,
                                        RED_THREE, SEVEN, TWO, VALUES, WILD_SLOT, counts_of,
                                        parse_kind)
from games.modern_canasta.core import (END_LAST_THREE, END_OUT, END_STOCK, EV_DISCARD, EV_END,
                                       MELD, PICKUP, REPLACE, TURN, CanastaRules, CanastaState,
                                       deal, set_up, threshold_for)
from games.modern_canasta.scoring import side_score
from games.protocol import CHANCE, TERMINAL

C = counts_of
K = parse_kind


def meld(rank: str, naturals: int = 0, twos: int = 0, jokers: int = 0) -> int:
    slot = WILD_SLOT if rank == "wild" else K(rank)
    return meld_action(slot, naturals, twos, jokers)


def discard(rank: str) -> int:
    return discard_action(K(rank))


def hands(*texts: str) -> list[list[int]]:
    return [C(t) for t in texts] + [C("")] * (4 - len(texts))


def play(state: CanastaState, *actions: int) -> None:
    for a in actions:
        state.apply_action(a)


def melds_of(state: CanastaState, side: int) -> dict[str, tuple[int, int, int]]:
    from games.modern_canasta.cards import KIND_NAMES
    return {("wild" if s == WILD_SLOT else KIND_NAMES[s]): m
            for s, m in enumerate(state.open_melds(side)) if any(m)}


NO_THREES_DEAL = [
    [K(x) for x in "4 5 6 7 8 9 10 J Q K A 2 Jk".split()],
    [K(x) for x in "4 5 6 7 8 9 10 J Q K A 2 Jk".split()],
    [K(x) for x in "4 5 6 7 8 9 10 J Q K A 2 Jk".split()],
    [K(x) for x in "4 5 6 7 8 9 10 J Q K A 2 2".split()],
]


# ------------------------------------------------------------------ players, deal, draw
def test_four_players_in_two_partnerships_with_mirrored_returns():
    game = pyspiel.load_game("python_modern_canasta")
    assert game.num_players() == 4
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    # p0 goes out: seats 0 and 2 score together against 1 and 3.
    s = set_up(hands("K", "Q Q Q", "", "J J J"), phase=MELD,
               canastas=[[(ACE, 7, 0, 0), (KING, 5, 1, 1)], []], melds={(1, QUEEN): (3, 0, 0)})
    play(s, discard("K"))
    assert s.is_terminal()
    x = s.returns()[0]
    assert s.returns() == [x, -x, x, -x]
    assert x == (s.scores[0].total - s.scores[1].total) / 1000
    assert game.min_utility() == -game.max_utility() and game.max_utility() >= abs(x)


def test_deal_is_thirteen_each_with_an_empty_pile():
    s = CanastaState(CanastaRules(first_player=2))
    deal(s, NO_THREES_DEAL)
    assert s.sizes == [13, 13, 13, 13] and s.pile == [] and s.stock_size == 108 - 52
    assert s.current_player() == 2 and s.phase == TURN      # the seat left of the dealer starts
    assert s.legal_actions() == [DRAW]                     # nothing to take from an empty pile


def test_a_turn_draws_one_card_from_the_stock():
    s = CanastaState()
    deal(s, NO_THREES_DEAL)
    play(s, DRAW)
    assert s.is_chance_node()
    assert sum(p for _, p in s.chance_outcomes()) == pytest.approx(1.0)
    assert dict(s.chance_outcomes())[K("K")] == pytest.approx(4 / 56)   # 8 kings, 4 dealt
    play(s, K("K"))
    assert s.sizes[0] == 14 and s.phase == MELD and s.current_player() == 0


# ------------------------------------------------------------------ 3s
def test_dealt_threes_go_down_and_are_replaced_in_turn_order():
    dealt = [row[:] for row in NO_THREES_DEAL]
    dealt[0][0] = RED_THREE
    dealt[0][1] = RED_THREE
    dealt[1][5] = BLACK_THREE
    s = CanastaState()
    deal(s, dealt)
    assert s.phase == REPLACE and s.is_chance_node() and s.actor == 0
    assert s.threes == [2, 0, 0, 1] and s.sizes == [11, 12, 13, 13]
    play(s, K("9"), BLACK_THREE, K("Q"))       # p0's second replacement is a 3: down, replaced
    assert s.threes == [2, 1, 0, 1] and s.sizes[0] == 13 and s.actor == 1
    play(s, K("4"))
    assert s.sizes == [13, 13, 13, 13] and s.phase == TURN and s.current_player() == 0


def test_a_drawn_three_goes_down_and_the_player_draws_again():
    s = set_up(hands("K K Q", "J", "8", "9"), phase=TURN)
    play(s, DRAW, RED_THREE)
    assert s.is_chance_node() and s.threes[0] == 1 and s.sizes[0] == 3
    play(s, K("5"))
    assert s.phase == MELD and s.sizes[0] == 4


def test_threes_have_no_meld_or_discard_action():
    for kind in (RED_THREE, BLACK_THREE):
        with pytest.raises(ValueError):
            meld_action(kind, 3, 0, 0)
    discards = [action_to_string(a) for a in range(DISCARD_BASE, MELD_BASE)]
    assert not any(text.startswith("discard 3") for text in discards)


@pytest.mark.parametrize("count,value", [(1, 100), (2, 300), (3, 500), (4, 1000)])
def test_threes_score_by_colour_minus_without_canasta_zero_with_one_plus_with_two(count, value):
    empty = [(0, 0, 0)] * 12
    no_hand = (C(""), C(""))
    one = [(KING, 7, 0, 0)]
    two = one + [(QUEEN, 5, 2, 0)]
    for canastas, sign in (([], -1), (one, 0), (two, 1)):
        score = side_score(empty, canastas, (count, 0), no_hand, False)
        assert score.threes == sign * value
        both = side_score(empty, canastas, (count, count), no_hand, False)
        assert both.threes == sign * 2 * value       # each colour counts on its own


def test_a_three_drawn_as_the_last_stock_card_stays_in_hand_costs_5_and_ends_the_hand():
    stock = [0] * NUM_KINDS
    stock[RED_THREE] = 1
    others = [DECK[k] - (k == RED_THREE) for k in range(NUM_KINDS)]
    # Put every other card somewhere: the opponents' hands hold the rest.
    rest = others[:]
    h0 = C("K K Q")
    for k in range(NUM_KINDS):
        rest[k] -= h0[k]
    h1 = [0] * NUM_KINDS
    h1[:13] = rest[:13]
    threes = [0, rest[BLACK_THREE], rest[RED_THREE], 0]
    s = set_up([h0, h1, C(""), C("")], phase=TURN, stock=stock, threes=threes)
    play(s, DRAW, RED_THREE)
    assert s.is_terminal() and s.events()[-1] == (EV_END, -1, END_LAST_THREE)
    assert s.hands[0][RED_THREE] == 1
    assert s.scores[0].cards_in_hand == -(10 + 10 + 10 + 5)


# ------------------------------------------------------------------ initial meld
def test_initial_meld_thresholds_by_the_sides_score():
    assert [threshold_for(x) for x in (-2000, 0, 2999, 3000, 4999, 5000, 12000)] == \
        [125, 125, 125, 155, 155, 180, 180]
    assert CanastaRules(score0=-40, score1=5200).thresholds == (125, 180)


def _opening(score0: int, hand: str) -> CanastaState:
    return set_up(hands(hand, "4 4", "5 5", "6 6"), phase=MELD, rules=CanastaRules(score0=score0))


def test_initial_meld_must_reach_the_threshold_possibly_with_several_melds():
    # K K K (30) + A A A (60) + Jk 2 with Q Q Q... build 150 then 160.
    s = _opening(3000, "K K K A A A Q Q Q Jk 9 8")
    play(s, meld("A", 3))                 # 60: short of 155
    assert s.pending and s.short
    assert WITHDRAW in s.legal_actions()
    assert not any(DISCARD_BASE <= a < MELD_BASE for a in s.legal_actions())   # no discard while short
    play(s, meld("K", 3))                 # 90
    play(s, meld("Q", 3))                 # 120
    assert s.short
    play(s, meld("Q", 0, 0, 1))           # a Joker onto the queens: 170 >= 155
    assert not s.short and WITHDRAW not in s.legal_actions()
    play(s, discard("9"))
    assert s.melded == 1 and s.current_player() == 1


@pytest.mark.parametrize("score,short", [(-500, False), (2999, False), (3000, True), (5000, True)])
def test_140_points_open_only_under_3000(score, short):
    s = _opening(score, "A A A K K K 9 9 9 2 8 4")
    play(s, meld("A", 3), meld("K", 3), meld("9", 3, 1))    # 60 + 30 + 50 = 140
    assert s.short == short


def test_initial_meld_needs_a_clean_meld_or_a_wild_card_meld():
    s = _opening(0, "K K 2 Q Q Jk A A 2 9 8 4")
    play(s, meld("K", 2, 1), meld("Q", 2, 0, 1), meld("A", 2, 1))   # 40+20+40+50+60 = 190, all mixed
    assert s.short
    s = _opening(0, "K K 2 Q Q Jk A A 2 9 9 9 4 5")
    play(s, meld("K", 2, 1), meld("Q", 2, 0, 1), meld("A", 2, 1), meld("9", 3))
    assert not s.short    # the nines are clean
    s = _opening(0, "K K 2 Q Q Jk 2 2 Jk 9 4")
    play(s, meld("K", 2, 1), meld("Q", 2, 0, 1), meld("wild", 0, 2, 1))
    assert not s.short    # a wild-card meld also qualifies


def test_a_canasta_straight_from_the_hand_needs_no_minimum():
    s = _opening(6000, "4 4 4 4 4 4 4 9 8")      # 35 points, far under 180
    play(s, meld("4", 7))
    assert not s.short and s.canastas[0] == ((K("4"), 7, 0, 0),)
    play(s, discard("9"))
    assert s.melded == 1


def test_initial_meld_counts_hand_cards_only_when_taking_the_pile():
    # Top card K: the pair K K from the hand (20) counts, the top K does not.
    s = set_up(hands("K K A A A 9 9 9 8 5", "4 4", "5 5", "6 6"), pile=[K("J"), K("K")])
    play(s, TAKE)
    assert s.phase == PICKUP and s.pending and melds_of(s, 0) == {"K": (3, 0, 0)}
    play(s, meld("A", 3), meld("9", 3))          # 20 + 60 + 30 = 110 (with the top: 120)
    assert s.short and COMMIT not in s.legal_actions()
    play(s, WITHDRAW)
    assert s.is_chance_node() and s.pile == [K("J"), K("K")]        # back to a draw from the stock
    s = set_up(hands("K K A A A 9 9 9 8 8 8 5", "4 4", "5 5", "6 6"), pile=[K("J"), K("K")])
    play(s, TAKE, meld("A", 3), meld("9", 3), meld("8", 3))        # 140 from the hand
    assert not s.short and COMMIT in s.legal_actions()
    play(s, COMMIT)
    assert s.phase == MELD and s.pile == [] and s.hands[0][K("J")] == 1 and s.melded == 1
    assert s.known[0][K("J")] == 1             # the others saw what came with the pile


def test_a_withdrawn_initial_meld_returns_to_hand_is_known_and_ends_melding():
    s = _opening(0, "A A A K K K 9 8 4 5")
    play(s, meld("A", 3), meld("K", 3))
    assert s.short
    play(s, WITHDRAW)
    assert s.hands[0] == C("A A A K K K 9 8 4 5") and not s.pending and s.melds == [0] * 72
    assert s.known[0] == C("A A A K K K")
    acts = s.legal_actions()
    assert acts and all(DISCARD_BASE <= a < MELD_BASE for a in acts)      # only a discard now


# ------------------------------------------------------------------ melds
def test_melds_are_three_to_seven_cards_with_at_most_two_wild_cards():
    s = _opening(0, "K K K 2 2 Jk 9 8 4")
    acts = set(s.legal_actions())
    assert meld("K", 3) in acts and meld("K", 2, 1) in acts and meld("K", 1, 1, 1) in acts
    assert meld("K", 3, 2) in acts and meld("K", 3, 1, 1) in acts
    assert meld("K", 2) not in acts                                  # two cards is no meld
    assert not any(decode_meld(a)[2] + decode_meld(a)[3] > 2 for a in acts if MELD_BASE <= a < WILD_BASE)


def test_a_meld_stops_at_seven_cards_and_becomes_a_canasta():
    s = set_up(hands("K K K 9 8 4"), phase=MELD, melds={(0, KING): (5, 0, 0)}, melded=1)
    acts = s.legal_actions()
    assert meld("K", 2) in acts and meld("K", 3) not in acts
    play(s, meld("K", 2))
    assert s.canastas[0] == ((KING, 7, 0, 0),) and melds_of(s, 0) == {}


def test_a_natural_canasta_closes_its_rank_to_everyone():
    s = set_up(hands("K 9 8 4", "K K K 5 6"), actor=0, phase=MELD,
               melds={(0, KING): (6, 0, 0), (1, KING): (3, 0, 0)}, melded=3, pile=[K("5")])
    play(s, meld("K", 1))
    assert s.closed >> KING & 1
    play(s, discard("9"), DRAW, K("Q"))
    acts = s.legal_actions()
    assert not any(MELD_BASE <= a < WILD_BASE and decode_meld(a)[0] == KING for a in acts)
    assert discard("K") in acts         # on a non-empty pile a closed rank may be discarded
    # ... and nobody takes the pile with a pair of a closed rank.
    s = set_up(hands("K K 9 8 4"), canastas=[[], [(KING, 7, 0, 0)]], pile=[K("K")])
    assert s.legal_actions() == [DRAW]


def test_a_mixed_canasta_leaves_its_rank_open_for_a_new_meld():
    s = set_up(hands("K K K 9 8 4"), phase=MELD, canastas=[[(KING, 5, 2, 0)], []], melded=1)
    assert meld("K", 3) in s.legal_actions()


def test_after_the_initial_meld_wild_cards_go_only_into_melds_of_five_naturals():
    s = set_up(hands("K K Q 2 Jk 9 8 4"), phase=MELD, melded=1,
               melds={(0, KING): (3, 0, 0), (0, QUEEN): (4, 0, 0)})
    acts = set(s.legal_actions())
    assert meld("K", 2, 1) in acts                   # 3 + 2 naturals = 5, then a wild card
    assert meld("K", 1, 1) not in acts               # 4 naturals
    assert meld("K", 0, 1) not in acts
    assert meld("Q", 1, 0, 1) in acts                # 4 + 1 = 5
    assert meld("Q", 0, 0, 1) not in acts
    assert meld("wild", 0, 1, 1) not in acts         # a new wild-card meld needs three
    s = set_up(hands("K K K K K 2 9 8 4"), phase=MELD, melded=1)
    acts = set(s.legal_actions())
    assert meld("K", 5, 1) in acts and meld("K", 4, 1) not in acts and meld("K", 3) in acts


def test_wild_card_melds_of_three_to_seven_and_no_wild_cards_elsewhere_while_unfinished():
    s = set_up(hands("2 2 Jk Jk 2 K 9 8 4"), phase=MELD, melded=1, melds={(0, KING): (5, 0, 0)})
    acts = set(s.legal_actions())
    assert meld("wild", 0, 2, 1) in acts and meld("wild", 0, 3, 2) in acts
    assert meld("wild", 0, 1, 1) not in acts
    play(s, meld("wild", 0, 2, 1))
    acts = set(s.legal_actions())
    assert meld("K", 0, 1) not in acts and meld("K", 1, 0, 1) not in acts   # blocked while unfinished
    assert meld("wild", 0, 1, 1) in acts
    s = set_up(hands("2 2 Jk 9 8 4"), phase=MELD, melded=1,
               melds={(0, KING): (5, 0, 0), (0, WILD_SLOT): (0, 4, 2)})
    play(s, meld("wild", 0, 1))
    assert s.canastas[0] == ((WILD_SLOT, 0, 5, 2),)
    assert meld("K", 0, 1) in s.legal_actions()                          # finished: free again


def test_sevens_never_take_wild_cards_and_aces_only_in_the_initial_meld():
    s = _opening(0, "7 7 7 7 7 A A 2 Jk 9 8 4")
    acts = set(s.legal_actions())
    assert meld("7", 5) in acts and meld("7", 5, 1) not in acts and meld("7", 3, 0, 1) not in acts
    assert meld("A", 2, 1) in acts and meld("A", 2, 0, 1) in acts          # initial meld: allowed
    s = set_up(hands("A A A A A 2 9 8 4"), phase=MELD, melded=1)
    acts = set(s.legal_actions())
    assert meld("A", 5) in acts and meld("A", 5, 1) not in acts             # afterwards: never


# ------------------------------------------------------------------ taking the pile
def test_the_pile_is_taken_only_with_a_natural_pair_of_its_top_card():
    base = dict(melded=1, melds={(0, QUEEN): (3, 0, 0)}, pile=[K("9"), K("K")])
    assert set_up(hands("K 2 Jk 9 8 4"), **base).legal_actions() == [DRAW]       # one K and wild cards
    assert set_up(hands("K K 9 8 4"), **base).legal_actions() == [DRAW, TAKE]
    wild_top = dict(base, pile=[K("9"), TWO])
    assert set_up(hands("2 2 9 8 4"), **wild_top).legal_actions() == [DRAW]


def test_taking_the_pile_melds_the_pair_with_the_top_card_and_the_rest_goes_to_hand():
    s = set_up(hands("K K 9 8 4"), melded=1, melds={(0, QUEEN): (3, 0, 0)},
               pile=[K("A"), K("5"), K("K")])
    play(s, TAKE)
    assert melds_of(s, 0) == {"K": (3, 0, 0), "Q": (3, 0, 0)}
    assert s.hands[0] == C("9 8 4 A 5") and s.pile == [] and s.known[0] == C("A 5")
    assert s.phase == MELD and ASK in s.legal_actions()      # right after taking: may ask


@pytest.mark.parametrize("size,ok", [(3, True), (4, True), (5, False), (6, False)])
def test_the_pair_joins_the_sides_meld_only_while_it_has_3_or_4_cards(size, ok):
    s = set_up(hands("K K 9 8 4"), melded=1, melds={(0, KING): (size, 0, 0)}, pile=[K("9"), K("K")])
    assert (TAKE in s.legal_actions()) == ok
    if size == 4:
        play(s, TAKE)
        assert s.canastas[0] == ((KING, 7, 0, 0),)


def test_a_side_without_its_initial_meld_takes_the_pile_only_with_it_from_the_hand():
    s = set_up(hands("Q Q 9 8 4", "5 5"), pile=[K("A"), K("Q")])
    play(s, TAKE)
    assert s.phase == PICKUP and s.legal_actions() == [WITHDRAW]   # 20 points: short, nothing to add
    assert s.hands[0] == C("9 8 4") and s.pile == [K("A")]          # the pile is not taken yet


# ------------------------------------------------------------------ discards
def test_wild_cards_are_discarded_only_going_out_or_from_a_hand_of_wild_cards():
    s = set_up(hands("2 Jk K 9"), phase=MELD, melded=1, pile=[K("5")])
    assert discard("2") not in s.legal_actions() and discard("Jk") not in s.legal_actions()
    s = set_up(hands("2 Jk"), phase=MELD, melded=1, pile=[K("5")])
    assert [a for a in s.legal_actions() if DISCARD_BASE <= a < MELD_BASE] == [discard("2"), discard("Jk")]
    s = set_up(hands("Jk", "4 4"), phase=MELD, canastas=[[(KING, 7, 0, 0), (QUEEN, 7, 0, 0)], []],
               pile=[K("5")])
    assert discard("Jk") in s.legal_actions()                     # going out


def test_a_card_must_remain_to_discard_after_melding():
    s = set_up(hands("K K K 9"), phase=MELD, melded=1, canastas=[[(QUEEN, 7, 0, 0)], []])
    acts = s.legal_actions()
    assert meld("K", 3) not in acts                   # one card left, one canasta: could not go out
    s = set_up(hands("K K K"), phase=MELD, melded=1, canastas=[[(QUEEN, 7, 0, 0), (ACE, 7, 0, 0)], []])
    assert meld("K", 3) not in s.legal_actions()      # nothing left to discard
    s = set_up(hands("K K K 9"), phase=MELD, melded=1, canastas=[[(QUEEN, 7, 0, 0), (ACE, 7, 0, 0)], []])
    assert meld("K", 3) in s.legal_actions()          # leaves the 9 to go out with


def test_on_an_empty_pile_aces_and_sevens_only_with_no_other_natural_card():
    s = set_up(hands("A 7 K 9", "5 5"), phase=MELD, melded=1)
    assert [a for a in s.legal_actions() if a < MELD_BASE] == [ASK, discard("9"), discard("K")]
    s = set_up(hands("A 7 2", "5 5"), phase=MELD, melded=1)
    assert [a for a in s.legal_actions() if a < MELD_BASE] == [ASK, discard("7"), discard("A")]
    s = set_up(hands("A 7 K 9", "5 5"), phase=MELD, melded=1, pile=[K("4")])
    assert [a for a in s.legal_actions() if a < MELD_BASE] == \
        [ASK, discard("7"), discard("9"), discard("K"), discard("A")]


def test_on_an_empty_pile_a_closed_rank_only_when_nothing_else_can_go():
    closed = dict(canastas=[[], [(KING, 7, 0, 0)]], melded=3)
    s = set_up(hands("K 9 A", "5 5"), phase=MELD, **closed)
    assert [a for a in s.legal_actions() if a < MELD_BASE] == [ASK, discard("9")]
    s = set_up(hands("K A 2", "5 5"), phase=MELD, **closed)
    assert [a for a in s.legal_actions() if a < MELD_BASE] == [ASK, discard("K")]


def test_on_an_empty_pile_a_closed_ace_only_when_no_open_ace_or_seven_can_go():
    aces_closed = dict(canastas=[[], [(ACE, 7, 0, 0)]], melded=3)
    s = set_up(hands("A 7", "5 5"), phase=MELD, **aces_closed)
    assert [a for a in s.legal_actions() if a < MELD_BASE] == [ASK, discard("7")]
    with pytest.raises(ValueError):
        s.clone().apply_action(discard("A"))
    s = set_up(hands("A 7 2", "5 5"), phase=MELD, **aces_closed)
    assert [a for a in s.legal_actions() if a < MELD_BASE] == [ASK, discard("7")]
    s = set_up(hands("A A 2", "5 5"), phase=MELD, **aces_closed)      # nothing else can go
    assert [a for a in s.legal_actions() if a < MELD_BASE] == [ASK, discard("A")]
    play(s, discard("A"))
    kind, seat, value = s.events()[-1]
    # The discard shows p0 held no plain natural and no 7, the one open rank of Aces and 7s.
    assert (kind, seat, value & 15) == (EV_DISCARD, 0, ACE)
    assert value >> 4 >> SEVEN & 1 and value >> 4 >> KING & 1 and not value >> 4 >> ACE & 1
    both_closed = dict(canastas=[[], [(ACE, 7, 0, 0), (SEVEN, 7, 0, 0)]], melded=3)
    s = set_up(hands("A 7", "5 5"), phase=MELD, **both_closed)
    assert [a for a in s.legal_actions() if a < MELD_BASE] == [ASK, discard("7"), discard("A")]
    s = set_up(hands("A 7", "5 5"), phase=MELD, pile=[K("4")], **aces_closed)   # a pile: any
    assert [a for a in s.legal_actions() if a < MELD_BASE] == [ASK, discard("7"), discard("A")]


# ------------------------------------------------------------------ going out
def test_going_out_needs_two_canastas_ends_with_a_discard_and_scores_100():
    one = [[(QUEEN, 7, 0, 0)], []]
    s = set_up(hands("K K K 9 8", "5 5"), phase=MELD, melded=1, canastas=one,
               melds={(0, KING): (4, 0, 0)})
    assert meld("K", 3) in s.legal_actions()          # completes the second canasta
    play(s, meld("K", 3), discard("9"))
    assert not s.is_terminal()                        # the 8 is still held: no going out yet
    s = set_up(hands("K K K 9", "5 5"), phase=MELD, melded=1, canastas=one,
               melds={(0, KING): (4, 0, 0)})
    play(s, meld("K", 3), discard("9"))
    assert s.is_terminal() and s.events()[-1] == (EV_END, -1, END_OUT)
    assert s.scores[0].going_out == 100 and s.scores[1].going_out == 0


def test_a_turn_may_not_meld_every_card_a_discard_ends_going_out():
    s = set_up(hands("K K K", "5 5"), phase=MELD, melded=1,
               canastas=[[(QUEEN, 7, 0, 0), (ACE, 7, 0, 0)], []])
    assert not any(a >= MELD_BASE for a in s.legal_actions())


# ------------------------------------------------------------------ scores
EMPTY = [(0, 0, 0)] * 12
NO_HANDS = (C(""), C(""))


@pytest.mark.parametrize("canasta,bonus", [
    ((KING, 5, 2, 0), 300), ((KING, 6, 0, 1), 300), ((ACE, 5, 1, 1), 300),
    ((KING, 7, 0, 0), 500), ((K("4"), 7, 0, 0), 500),
    ((SEVEN, 7, 0, 0), 2500), ((ACE, 7, 0, 0), 2500),
    ((WILD_SLOT, 0, 7, 0), 3000), ((WILD_SLOT, 0, 3, 4), 2500),
    ((WILD_SLOT, 0, 4, 3), 2000), ((WILD_SLOT, 0, 6, 1), 2000)])
def test_canasta_bonuses(canasta, bonus):
    assert side_score(EMPTY, [canasta], (0, 0), NO_HANDS, False).canasta_bonuses == bonus


def test_card_values():
    assert [VALUES[K(x)] for x in "Jk A 2 K Q J 10 9 8 7 6 5 4 3b 3r".split()] == \
        [50, 20, 20, 10, 10, 10, 10, 10, 10, 5, 5, 5, 5, 5, 5]


def test_cards_left_in_hand_count_against_the_side():
    score = side_score(EMPTY, [(KING, 7, 0, 0)], (0, 0), (C("Jk A 9 4"), C("2 3b")), False)
    assert score.cards_in_hand == -(50 + 20 + 10 + 5 + 20 + 5)


def test_melded_cards_count_for_a_side_with_a_canasta_and_against_one_without():
    melds = EMPTY[:]
    melds[QUEEN] = (3, 1, 0)          # 30 + 20
    with_one = side_score(melds, [(KING, 7, 0, 0)], (0, 0), NO_HANDS, False)
    assert with_one.melded_cards == 70 + 50
    without = side_score(melds, [], (0, 0), NO_HANDS, False)
    assert without.melded_cards == -50


def test_unfinished_sevens_natural_aces_and_wild_melds_cost_2500_2500_2000():
    def cost(slot, meld):
        melds = EMPTY[:]
        melds[slot] = meld
        return side_score(melds, [(KING, 7, 0, 0)], (0, 0), NO_HANDS, False).unfinished_melds
    assert cost(SEVEN, (4, 0, 0)) == -2500
    assert cost(ACE, (3, 0, 0)) == -2500
    assert cost(ACE, (3, 1, 0)) == 0              # a mixed meld of Aces is no natural one
    assert cost(KING, (3, 0, 0)) == 0
    assert cost(WILD_SLOT, (0, 3, 1)) == -2000
    assert cost(WILD_SLOT, (0, 1, 4)) == -2500    # all four Jokers


def test_three_or_more_aces_or_sevens_held_cost_1500_each():
    score = side_score(EMPTY, [], (0, 0), (C("A A A 7 7 7 K"), C("A A 7 7 7 7")), False)
    assert score.held_sets == -3 * 1500
    assert score.cards_in_hand == -(5 * 20 + 7 * 5 + 10)


def test_a_hand_scores_every_item_together():
    s = set_up(hands("K", "Q Q 7 7 7", "A A A 4", "9"), phase=MELD,
               canastas=[[(ACE, 7, 0, 0), (KING, 5, 1, 1)], [(QUEEN, 7, 0, 0)]],
               melds={(0, SEVEN): (3, 0, 0), (1, WILD_SLOT): (0, 3, 0)},
               threes=(2, 1, 0, 1))
    play(s, discard("K"))
    a, b = s.scores
    assert a.total == (7 * 20 + 5 * 10 + 20 + 50 + 3 * 5) + (2500 + 300) + (300 + 100) + 100 \
        - (3 * 20 + 5) - 2500 - 1500
    assert b.total == (7 * 10 + 3 * 20) + 500 + 0 - (2 * 10 + 3 * 5 + 10) - 2000 - 1500
    assert s.returns()[0] == (a.total - b.total) / 1000


# ------------------------------------------------------------------ asking the partner
def _ready_to_ask() -> CanastaState:
    """p0 has two canastas on its side and can go out after drawing a K."""
    return set_up(hands("K K 9", "5 5 5", "Q Q 8", "6 6 6"), phase=TURN, melded=1,
                  canastas=[[(ACE, 7, 0, 0), (QUEEN, 5, 2, 0)], []], melds={(0, KING): (3, 0, 0)})


def test_asking_is_offered_once_per_hand_right_after_drawing_and_the_partner_answers():
    s = _ready_to_ask()
    assert ASK not in s.legal_actions()
    play(s, DRAW, K("K"))
    assert ASK in s.legal_actions()
    play(s, ASK)
    assert s.current_player() == 2 and s.legal_actions() == [YES, NO]
    play(s, NO)
    assert s.current_player() == 0 and ASK not in s.legal_actions()


def test_a_player_left_one_card_by_the_pile_goes_out_without_asking():
    # Taking the pile may leave one card when the side can go out; then that is the only move
    # (a "no" would leave a card that can neither be melded nor discarded).
    s = set_up(hands("K K", "5 5 5", "Q Q 8", "6 6 6"), melded=1, pile=[K("9"), K("K")],
               canastas=[[(ACE, 7, 0, 0), (QUEEN, 5, 2, 0)], []])
    play(s, TAKE)
    assert s.hands[0] == C("9") and s.legal_actions() == [discard("9")]


def test_no_forbids_going_out_that_turn_only():
    s = _ready_to_ask()
    play(s, DRAW, K("K"), ASK, NO)
    acts = s.legal_actions()
    assert meld("K", 3) not in acts                # would leave one card to go out with
    play(s, meld("K", 2), discard("9"))
    for _ in range(3):                             # the others draw and discard
        play(s, DRAW, K("J"), discard("J"))
    play(s, DRAW, K("8"))
    assert ASK not in s.legal_actions()            # once per hand
    assert meld("K", 1) in s.legal_actions()       # going out is open again


def test_yes_obliges_the_asker_to_go_out():
    s = _ready_to_ask()
    play(s, DRAW, K("K"), ASK, YES)
    assert s.must_out
    # Every legal move keeps going out open: no discard of two cards, only kings melded.
    assert s.legal_actions() == [meld("K", 1), meld("K", 2), meld("K", 3)]
    play(s, meld("K", 1))
    assert s.legal_actions() == [meld("K", 1), meld("K", 2)]
    play(s, meld("K", 2))
    assert s.legal_actions() == [discard("9")]
    play(s, discard("9"))
    assert s.is_terminal() and s.events()[-1] == (EV_END, -1, END_OUT)


def test_a_world_that_waives_past_yes_answers_obliges_again_after_them():
    """Resampling's fallback (games.modern_canasta.belief): a world whose first
    `events` events' "yes" answers oblige none of the `askers`; later ones do."""
    for waived_yes, obliged in (((10, 0b0001), False),   # this answer is among the first 10
                                ((10, 0b1110), True),    # p0 is not among the askers waived
                                ((3, 0b0001), True)):    # the answer comes after the 3 events
        s = _ready_to_ask()
        s.waived_yes = waived_yes
        play(s, DRAW, K("K"), ASK, YES)                  # the answer is the 4th event
        assert s.must_out == obliged
        assert (discard("9") in s.legal_actions()) != obliged
        start = s.replay_start()
        assert start.waived_yes == waived_yes and start.events() == []


def test_yes_leaves_a_player_who_cannot_go_out_free():
    s = set_up(hands("K Q 9", "5 5 5", "Q 8", "6 6 6"), phase=TURN, melded=1,
               canastas=[[(ACE, 7, 0, 0)], []], melds={(0, KING): (3, 0, 0)})
    play(s, DRAW, K("4"), ASK, YES)
    assert not s.must_out and discard("9") in s.legal_actions()


# ------------------------------------------------------------------ the end of the stock
def test_the_hand_ends_when_the_stock_is_exhausted_after_the_last_turn():
    stock = [0] * NUM_KINDS
    stock[K("5")] = 1
    rest = [DECK[k] - stock[k] for k in range(NUM_KINDS)]
    h0 = C("K K 9")
    h1 = [rest[k] - h0[k] if k < 13 else 0 for k in range(NUM_KINDS)]
    s = set_up([h0, h1, C(""), C("")], phase=TURN, stock=stock,
               threes=[0, rest[BLACK_THREE], rest[RED_THREE], 0])
    play(s, DRAW, K("5"))
    assert s.stock_size == 0 and s.phase == MELD        # the last card is played as usual
    play(s, discard("9"))
    assert s.is_terminal() and s.events()[-1] == (EV_END, -1, END_STOCK)
    assert s.scores[0].going_out == s.scores[1].going_out == 0


# ------------------------------------------------------------------ parameters and encoding
def test_parameters_are_validated_with_clear_errors():
    with pytest.raises(Exception, match="first_player=4: out of range"):
        pyspiel.load_game("python_modern_canasta(first_player=4)")
    with pytest.raises(Exception, match="score0='x'"):
        CanastaRules.from_params({"score0": "x"})
    with pytest.raises(pyspiel.SpielError, match="players"):
        pyspiel.load_game("python_modern_canasta(players=2)")
    game = pyspiel.load_game("python_modern_canasta(score0=5000,score1=-20,first_player=3)")
    assert game.rules.thresholds == (180, 125)
    assert game.new_initial_state().core.rules.first_player == 3


def test_views_are_for_seats_only():
    s = CanastaState()
    with pytest.raises(ValueError, match="player -1"):
        s.information_state_string(-1)
    with pytest.raises(ValueError, match="player 4"):
        s.observation_string(4)


def test_illegal_actions_fail_naming_the_action():
    s = set_up(hands("K K 9"), phase=MELD, melded=1)
    with pytest.raises(ValueError, match="illegal action 'meld K: K K'"):
        s.apply_action(meld("K", 2))
    with pytest.raises(ValueError, match="illegal action 'yes'"):
        s.apply_action(YES)


def test_the_action_encoding_is_compact_and_round_trips():
    assert NUM_ACTIONS == 577
    names = [action_to_string(a) for a in range(NUM_ACTIONS)]
    real = [n for a, n in enumerate(names) if not (MELD_BASE <= a < WILD_BASE and decode_meld(a)[1:] == (0, 0, 0))]
    assert len(set(real)) == len(real)
    for a in range(MELD_BASE, NUM_ACTIONS):
        slot, n, t, j = decode_meld(a)
        if n or t or j:
            assert meld_action(slot, n, t, j) == a


def test_the_chance_outcomes_are_kinds_weighted_by_the_stock():
    s = CanastaState()
    outcomes = dict(s.chance_outcomes())
    assert outcomes[JOKER] == pytest.approx(4 / 108) and outcomes[KING] == pytest.approx(8 / 108)
    assert s.sample_chance_outcome(0.0) == 0 and s.sample_chance_outcome(0.9999) == BLACK_THREE
    assert s.is_chance_node() and s.current_player() == CHANCE
    assert TERMINAL == pyspiel.PlayerId.TERMINAL


# ------------------------------------------------------------------ the match
def test_a_match_feeds_running_scores_and_rotates_the_first_player():
    from games.modern_canasta.match import ModernCanastaMatch
    m = ModernCanastaMatch()
    assert m.next_deal([]) == {"score0": 0, "score1": 0, "first_player": 0}
    history = [[3100.0, -200.0], [2100.0, 900.0]]
    params = m.next_deal(history)
    assert params == {"score0": 5200, "score1": 700, "first_player": 2}
    game = pyspiel.load_game(m.game_string(params))
    assert game.rules.thresholds == (180, 125)
    assert m.next_deal(history + [[3400.0, 100.0]]) is None          # 8600 >= 8500
    assert m.result(history + [[3400.0, 100.0]]) == [1.0, -1.0, 1.0, -1.0]


def test_a_match_ends_only_when_the_totals_differ_and_reports_the_winner():
    from games.modern_canasta.match import ModernCanastaMatch
    m = ModernCanastaMatch(target=2500)
    tied = [[2600.0, 2600.0]]
    assert m.next_deal(tied) is not None                             # equal: play on
    assert m.result(tied + [[0.0, 50.0]]) == [-1.0, 1.0, -1.0, 1.0]
    with pytest.raises(ValueError, match="not over"):
        m.result([[100.0, 0.0]])
    capped = ModernCanastaMatch(target=2500, max_hands=2)
    assert capped.result([[-300.0, -300.0], [0.0, 0.0]]) == [0.0, 0.0, 0.0, 0.0]


def test_a_match_rejects_bad_targets_and_plain_returns():
    from games.modern_canasta.match import ModernCanastaMatch
    with pytest.raises(ValueError, match="target=6000"):
        ModernCanastaMatch(target=6000)
    with pytest.raises(ValueError, match="deal_record"):
        ModernCanastaMatch().next_deal([[1.2, -1.2, 1.2, -1.2]])


def test_a_hands_record_is_each_sides_points():
    from games.modern_canasta.match import ModernCanastaMatch
    from games.protocol import deal_record
    s = set_up(hands("K", "Q Q Q", "", "J J J"), phase=MELD,
               canastas=[[(ACE, 7, 0, 0), (KING, 5, 1, 1)], []], melds={(1, QUEEN): (3, 0, 0)})
    m = ModernCanastaMatch()
    with pytest.raises(ValueError, match="not over"):
        m.deal_record(s)
    play(s, discard("K"))
    record = deal_record(m, s)
    assert record == [s.scores[0].total, s.scores[1].total]
    assert record[0] - record[1] == pytest.approx(1000 * s.returns()[0])
