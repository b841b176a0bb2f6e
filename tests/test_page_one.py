"""Page One: a scenario test for each rule of the page, then the shared checks."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from games.cards import cards_of, parse_card
from games.page_one.core import (EV_PASS, EV_RESHUFFLE, EV_TAKE, PageOneRules, PageOneState,
                                 dealt_position, set_up)
from games.protocol import CHANCE, TERMINAL
from tests import conformance


def C(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def c(text: str) -> int:
    return parse_card(text)


def position(hands: list[str], leader: int = 0, **params) -> PageOneState:
    rules = PageOneRules.from_params({"players": len(hands), **params})
    return dealt_position(rules, [C(h) for h in hands], leader)


def play(state: PageOneState, *moves) -> None:
    """Applies moves given as card text (plays or chance cards) or raw action ints."""
    for m in moves:
        state.apply_action(c(m) if isinstance(m, str) else m)


# ------------------------------------------------------------------ the rules
def test_leader_plays_any_card_followers_must_follow_suit():
    s = position(["2S 9H KD 4C", "3S 5S AH 7C", "6D 8D TD QD", "JH QH 2C 3C"])
    assert s.current_player() == 0
    assert sorted(s.legal_actions()) == sorted(C("2S 9H KD 4C"))
    play(s, "9H")
    assert s.current_player() == 1
    assert s.legal_actions() == C("AH")       # must follow hearts; any suit else is illegal
    with pytest.raises(ValueError, match="illegal action 3♠"):
        s.apply_action(c("3S"))


def test_follower_without_the_suit_draws_until_it_can_follow_and_plays_that_card():
    s = position(["2S 9H KD 4C", "3S 5S AH 7C", "6D 8D TD QD", "JH QH 2C 3C"])
    play(s, "9H", "AH")
    # p2 has no heart: it may not choose, it draws (chance) one card at a time.
    assert s.current_player() == CHANCE and s.actor == 2
    play(s, "5D", "8C")                        # not hearts: kept, and draws again
    assert s.current_player() == CHANCE
    play(s, "3H")
    assert s.current_player() == 2
    assert s.legal_actions() == C("3H")        # the card that came out is played
    assert s.hands[2] == sum(1 << x for x in C("6D 8D TD QD 5D 8C 3H"))


def test_follower_holding_the_suit_may_not_draw():
    s = position(["2S 9H KD 4C", "3S 5S AH 7C", "6D 8D TD QD", "JH QH 2C 3C"])
    play(s, "2S")
    assert s.current_player() == 1 and not s.is_chance_node()
    assert sorted(s.legal_actions()) == C("3S 5S")


def test_highest_card_of_the_led_suit_wins_and_leads_next():
    s = position(["2S 9H KD 4C", "3S 5S AH 7C", "6D 8D TD QD", "JH QH 2C 3C"])
    play(s, "4C", "7C", "5C", "5C", "3C")      # p2 draws 5C and plays it
    assert s.current_player() == 1 and s.leader == 1 and s.tricks == 1
    assert s.discard == sum(1 << x for x in C("4C 7C 5C 3C"))


def test_going_out_mid_trick_ends_the_game_at_once():
    s = position(["2S 3H 4D 5C", "6S 7H 8D 9C", "JH QD KC 7C", "AS AH 2D 2C"])
    play(s, "2S", "6S", "5S", "5S", "AS")      # p2 draws 5S and plays it; p3 wins
    play(s, "AH", "3H", "7H", "JH")            # p3 wins again
    play(s, "2D", "4D", "8D", "QD")            # p2 wins with the queen
    play(s, "7C", "2C")                        # p3 follows with its last card
    assert s.is_terminal() and s.current_player() == TERMINAL
    assert s.hands[3] == 0 and s.hands[0] and s.hands[1]   # p0, p1 never played


def test_returns_rank_players_by_cards_left_with_ties_sharing():
    s = position(["2S 3H 4D 5C", "6S 8D 9C TC", "JH QD KC 7C", "AS AH 2D 2C"])
    play(s, "2S", "6S", "5S", "5S", "AS")
    play(s, "AH", "3H", "4C", "7H", "7H", "JH")  # p1 draws 4C (kept) and 7H
    play(s, "2D", "4D", "8D", "QD")
    play(s, "7C", "2C")                        # p3 out; p0 1 card, p1 3, p2 1
    assert s.is_terminal()
    # Score = (players ranked below - players ranked above) / (n - 1).
    assert s.returns() == [0.0, -1.0, 0.0, 1.0]


def edited(hands: list[str], discard: str = "", leader: int = 0, **params) -> PageOneState:
    """A set position where the stock has just run out (the cards in no hand and
    not in `discard` are treated as out of play)."""
    rules = PageOneRules.from_params({"players": len(hands), **params})
    s = set_up(rules, [C(h) for h in hands], leader, C(discard) if discard else [])
    s.stock = 0
    return s


def test_empty_stock_pass_rule():
    s = edited(["2S 3S", "2H 3H"], discard="4D 5D", empty_stock="pass")
    play(s, "2S")
    # p1 cannot follow and the stock is empty: it passes, and p0 wins the trick.
    assert s.events()[-1][:2] == (EV_PASS, 1)
    assert s.current_player() == 0 and s.leader == 0 and s.tricks == 1
    assert s.hands[1] == sum(1 << x for x in C("2H 3H"))


def test_empty_stock_reshuffle_rule_turns_the_discards_into_the_stock():
    s = edited(["2S 3S", "2H 3H"], discard="4D 5D", empty_stock="reshuffle")
    play(s, "2S")
    assert s.events()[-1] == (EV_RESHUFFLE, -1, sum(1 << x for x in C("4D 5D")))
    assert s.is_chance_node() and s.actor == 1
    assert s.stock == sum(1 << x for x in C("4D 5D")) and s.discard == 0
    play(s, "4D", "5D")
    # Nothing is left to reshuffle (the trick's cards are still on the table): p1 passes.
    assert s.events()[-1][:2] == (EV_PASS, 1)
    assert s.current_player() == 0


def test_empty_stock_take_rule_takes_the_trick_and_leads():
    s = edited(["2S 3S", "9S 3D", "2H 3H"], empty_stock="take")
    play(s, "2S", "9S")
    # p2 cannot follow: it takes every card of the trick and leads the next one.
    assert s.events()[-1] == (EV_TAKE, 2, sum(1 << x for x in C("2S 9S")))
    assert s.hands[2] == sum(1 << x for x in C("2H 3H 2S 9S"))
    assert s.current_player() == 2 and s.leader == 2 and s.table == 0 and s.tricks == 1


def test_jokers_stand_for_any_suit_and_beat_every_card():
    s = position(["Jk1 9H KD 4C", "3S 5S AH 7C", "6D 8D TD QD", "JH QH 2C 3C"], jokers=2)
    acts = s.legal_actions()
    assert {52, 53, 54, 55} <= set(acts)       # a leading joker names the suit it stands for
    play(s, 52 + 2)                            # Jk1 as diamonds
    assert s.led == 2
    play(s, "Jk2")                             # p1 has no diamond: draws Jk2, which follows
    assert s.current_player() == 1 and s.legal_actions() == [56 + 2]
    play(s, 56 + 2, "6D", "5C", "5D", "5D")    # p3 draws 5C (kept) then 5D
    assert s.leader == 0 and s.tricks == 1     # the first joker played wins the trick


def test_a_follower_holding_a_joker_must_play_it_rather_than_draw():
    s = position(["9H KD 4C 2S", "3S 5S Jk2 7C", "6D 8D TD QD", "JH QH 2C 3C"], jokers=2)
    play(s, "KD")
    assert s.current_player() == 1
    assert s.legal_actions() == [56 + 2]


def test_until_last_plays_on_and_ranks_by_finishing_order():
    s = position(["2S 3H 4D 5C", "6S 7H 8D 9C", "TS JH QD KC", "AS AH AD 2C"], until_last=True)
    play(s, "2S", "6S", "TS", "AS")
    play(s, "AH", "3H", "7H", "JH")
    play(s, "AD", "4D", "8D", "QD")
    play(s, "2C")                              # p3 is out first; the trick goes on
    assert not s.is_terminal() and s.out == (3,)
    play(s, "5C")                              # p0 out second
    play(s, "9C")                              # p1 out third: p2 is last, game over
    assert s.is_terminal()
    assert s.returns() == [1 / 3, -1 / 3, -1.0, 1.0]


def test_high_card_chooses_the_first_leader_and_ties_draw_again():
    rules = PageOneRules.from_params({"players": 3, "first_leader": "high_card"})
    s = PageOneState(rules)
    play(s, "KS", "KH", "5D")                  # p0 and p1 tie on kings: they draw again
    assert s.is_chance_node() and s.actor == 0
    play(s, "3C", "9C")                        # p1 wins
    assert s.leader == 1 and s.stock == rules.deck   # the turned cards go back
    for _ in range(3 * 4):
        s.apply_action(s.sample_chance_outcome(0.5))
    assert s.current_player() == 1


def test_max_tricks_stops_a_game_and_ranks_by_cards_left():
    s = position(["2S 3H 4D 5C", "6S 7H 8D 9C"], max_tricks=1)
    play(s, "2S", "6S")
    assert s.is_terminal()
    assert s.returns() == [0.0, 0.0]


def test_parameters_are_validated_with_clear_errors():
    with pytest.raises(Exception, match="players=7: out of range"):
        pyspiel.load_game("python_page_one(players=7)")
    with pytest.raises(Exception, match="empty_stock='burn': must be one of pass, reshuffle, take"):
        pyspiel.load_game("python_page_one(empty_stock=burn)")
    with pytest.raises(Exception, match="hand_size=3"):
        pyspiel.load_game("python_page_one(hand_size=3)")
    with pytest.raises(pyspiel.SpielError, match="colour"):
        pyspiel.load_game("python_page_one(colour=1)")


def test_game_info_follows_the_player_count():
    for n in range(2, 7):
        g = pyspiel.load_game(f"python_page_one(players={n})")
        assert g.num_players() == n
        assert g.max_game_length() == 3000 * n


# ------------------------------------------------------------ shared checks
VARIANTS = [
    "python_page_one",
    "python_page_one(players=2,empty_stock=reshuffle,max_tricks=200)",
    "python_page_one(players=3,empty_stock=take,max_tricks=200,jokers=1)",
    "python_page_one(players=5,jokers=2,first_leader=high_card)",
    "python_page_one(players=6,hand_size=7,until_last=true)",
    "python_page_one(players=4,empty_stock=reshuffle,jokers=2,until_last=true,max_tricks=300)",
    "python_page_one(players=2,empty_stock=take,hand_size=5,until_last=true,max_tricks=100)",
]


@pytest.mark.parametrize("game_string", VARIANTS)
def test_random_sim(game_string):
    conformance.check_random_sim(game_string, 15)


@pytest.mark.parametrize("game_string", VARIANTS)
def test_history_of_states_played_from_python(game_string):
    conformance.check_history(pyspiel.load_game(game_string), 20, 3)


def conserved(core: PageOneState) -> None:
    masks = core.hands + [core.stock, core.discard, core.table]
    union = 0
    for m in masks:
        assert not union & m, "a card is in two places"
        union |= m
    if core.setup is None:
        assert union == core.rules.deck, "a card went missing"


@pytest.mark.parametrize("game_string", VARIANTS)
def test_cards_are_conserved(game_string):
    conformance.check_invariant(pyspiel.load_game(game_string), 30, 1, conserved)


def swap_hidden(core: PageOneState, player: int, rng: random.Random):
    """Swaps a card between two places `player` cannot see (opponent hands, stock)."""
    places = [s for s in range(core.n) if s != player and core.hands[s]]
    pools = [("hand", s) for s in places] + ([("stock", -1)] if core.stock else [])
    if len(pools) < 2:
        return None
    (ka, a), (kb, b) = rng.sample(pools, 2)
    other = core.clone()
    get = lambda k, s: other.hands[s] if k == "hand" else other.stock  # noqa: E731
    x = rng.choice(cards_of(get(ka, a)))
    y = rng.choice(cards_of(get(kb, b)))
    for k, s, out, inn in ((ka, a, x, y), (kb, b, y, x)):
        m = (get(k, s) & ~(1 << out)) | (1 << inn)
        if k == "hand":
            other.hands[s] = m
        else:
            other.stock = m
    return other


@pytest.mark.parametrize("game_string", VARIANTS)
def test_hidden_information_does_not_leak(game_string):
    checked = conformance.check_hidden_information(pyspiel.load_game(game_string), 40, 2, swap_hidden)
    assert checked > 40


@pytest.mark.parametrize("game_string", VARIANTS)
def test_resampled_worlds_are_consistent(game_string):
    conformance.check_resample(pyspiel.load_game(game_string), 30, 3, 3, conserved)


@pytest.mark.parametrize("game_string", VARIANTS)
def test_every_illegal_action_is_refused_naming_it(game_string):
    assert conformance.check_rejects_illegal_actions(pyspiel.load_game(game_string), 40, 6) > 40


@pytest.mark.parametrize("game_string", VARIANTS)
def test_private_view_keys_exactly_the_information_state(game_string):
    assert conformance.check_private_view(pyspiel.load_game(game_string), 60, 5) > 60


def test_resample_consistency_over_thousands_of_states():
    game = pyspiel.load_game("python_page_one")
    rng = random.Random(4)
    n = 0
    for state in conformance.random_states(game, 2000, 4):
        core = state.core
        p = core.current_player()
        world = core.resample_from_infostate(p, rng.random)
        assert world.information_state_string(p) == core.information_state_string(p)
        assert world.legal_actions() == core.legal_actions()
        conserved(world)
        n += 1
    assert n == 2000


def test_resample_works_through_pyspiel_and_openspiel_ismcts():
    from open_spiel.python.algorithms import ismcts, mcts
    game = pyspiel.load_game("python_page_one")
    state = next(conformance.random_states(game, 1, 5))
    world = state.resample_from_infostate(state.current_player(), pyspiel.UniformProbabilitySampler(0., 1.))
    assert world.information_state_string(state.current_player()) == \
        state.information_state_string(state.current_player())
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, None), 2.0, 30,
                           random_state=__import__("numpy").random.RandomState(0))
    assert bot.step(state) in state.legal_actions()


# ------------------------------------------------------ uniform resampling
def _three_voids(extra_draw: bool) -> PageOneState:
    """p1 was dealt four clubs, then showed it had no spade, no heart, no diamond
    (drawing each time); with extra_draw it also drew and kept a card before its
    last void, a card that may be a club, a spade or a heart."""
    s = position(["AS AH AD 2C", "3C 4C 5C 6C"], leader=0)
    play(s, "AS", "2S", "2S")      # p1 draws 2S and plays it; p0 wins
    play(s, "AH", "2H", "2H")
    if extra_draw:
        play(s, "AD", "9C", "2D", "2D")  # p1 draws 9C (kept), then 2D
    else:
        play(s, "AD", "2D", "2D")
    return s


def test_resample_is_uniform_over_an_enumerable_set_of_worlds():
    s = _three_voids(extra_draw=False)
    # p1 holds four clubs it was dealt: any 4 of the 12 clubs p0 has not seen.
    unseen_clubs = [x for x in range(39, 52) if x != c("2C")]
    worlds = list(itertools.combinations(unseen_clubs, 4))
    assert len(worlds) == 495
    rng = random.Random(6)
    counts = Counter()
    samples = 30_000
    for _ in range(samples):
        w = s.resample_from_infostate(0, rng.random)
        counts[tuple(cards_of(w.hands[1]))] += 1
    assert set(counts) <= set(worlds)
    expected = samples / len(worlds)
    chi2 = sum((counts[w] - expected) ** 2 / expected for w in worlds)
    # 494 degrees of freedom: mean 494, sd 31.4; 5 sd is far out for a uniform sampler.
    assert chi2 < 494 + 5 * math.sqrt(2 * 494), chi2


def test_resample_weights_mixed_constraints_by_the_count_of_worlds():
    s = _three_voids(extra_draw=True)
    # The four dealt cards are clubs (p0 holds 2C: 12 unseen clubs); the kept draw is
    # a club, spade or heart unseen by p0 (it saw AS 2S AH 2H: 11 spades, 11 hearts).
    # Worlds with five clubs: C(12, 5); with four clubs and a spade or heart: C(12, 4) * 22.
    five = math.comb(12, 5)
    four = math.comb(12, 4) * 22
    p_five = five / (five + four)
    rng = random.Random(7)
    samples = 20_000
    hits = 0
    for _ in range(samples):
        w = s.resample_from_infostate(0, rng.random)
        hand = cards_of(w.hands[1])
        assert len(hand) == 5 and sum(x // 13 == 3 for x in hand) >= 4
        assert not any(x // 13 == 2 for x in hand)
        hits += all(x // 13 == 3 for x in hand)
    sd = math.sqrt(p_five * (1 - p_five) / samples)
    assert abs(hits / samples - p_five) < 5 * sd, (hits / samples, p_five)


@pytest.mark.parametrize("game_string", ["python_page_one", "python_page_one(players=3,empty_stock=take,jokers=2)",
                                         "python_page_one(players=5,empty_stock=reshuffle,until_last=true)"])
def test_play_out_makes_the_same_moves_as_the_protocol_loop(game_string):
    """The rollout fast path: with the same random numbers, the same moves."""
    conformance.check_play_out(pyspiel.load_game(game_string), 20, 6)
