"""The Modern American Canasta rule-based bot: what a club player would do."""

from __future__ import annotations

import pyspiel

import games  # noqa: F401  (registers the games)
from agents import make_bot
from agents.rules.modern_canasta import Strategy
from eval.match import play_game
from games.modern_canasta.actions import ASK, DISCARD_BASE, DRAW, NO, TAKE, YES, meld_action
from games.modern_canasta.cards import ACE, KING, QUEEN, SEVEN, WILD_SLOT, counts_of, parse_kind
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


def test_its_settings_do_not_read_hidden_cards_either():
    from tests import conformance
    from tests.test_modern_canasta_shared import swap_hidden
    game = pyspiel.load_game("python_modern_canasta")
    spec = ("rules(go_out=lead,out_lead=500,out_stock=30,pile_avoid_special=2,pile_min_special=2,start_wild=3,"
            "initial_meld=canasta,discard_known=false,discard_avoid_melded=0.5,ask=never,answer_limit=40)")
    checked = conformance.check_bot_ignores_hidden_cards(game, lambda me: make_bot(spec, game, me), 150, 9,
                                                         swap_hidden)
    assert checked > 120


def test_it_works_with_openspiel_evaluate_bots():
    import numpy as np
    from open_spiel.python.algorithms import evaluate_bots
    game = pyspiel.load_game("python_modern_canasta")
    for seed in range(3):
        bots = [make_bot(spec, game, p, seed) for p, spec in enumerate(["rules", "random"] * 2)]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(seed))
        assert returns[0] == -returns[1] == returns[2]


# ------------------------------------------------------------------ strategies as settings
GAME = pyspiel.load_game("python_modern_canasta")


def choice(spec: str, state: CanastaState, seat: int = 0) -> int:
    return make_bot(spec, GAME, seat, 0).step(state)


def is_discard(action: int) -> bool:
    return DISCARD_BASE <= action < DISCARD_BASE + 13


def test_the_defaults_play_todays_bot_move_for_move_on_200_hands():
    """tests/data/canasta_rules_bot_200_hands.json was recorded with the bot as
    committed before its choices became settings (18ca235)."""
    import hashlib
    import json
    from pathlib import Path
    from games.chance import DealChance
    data = json.loads((Path(__file__).parent / "data" / "canasta_rules_bot_200_hands.json").read_text())
    for seed, (length, digest, seat0) in data["hands"].items():
        bots = [make_bot("rules", GAME, s, int(seed)) for s in range(4)]
        chance = DealChance(int(seed))
        state = GAME.new_initial_state()
        while not state.is_terminal():
            state.apply_action(chance(state) if state.is_chance_node() else bots[state.current_player()].step(state))
        history = state.history()
        got = (len(history), hashlib.sha256(",".join(map(str, history)).encode()).hexdigest()[:16], state.returns()[0])
        assert got == (length, digest, seat0), f"hand {seed} differs from the committed bot's"


def test_an_unknown_setting_or_a_bad_value_fails_naming_it():
    for spec, words in [("rules(pile_mn=3)", "unknown setting 'pile_mn'"),
                        ("rules(pile_min=0)", "pile_min=0: expected 1..108"),
                        ("rules(pile_min=2.5)", "pile_min=2.5: expected a whole number"),
                        ("rules(go_out=later)", "go_out=later: expected one of asap, lead, stock"),
                        ("rules(pile_canasta=3)", "pile_canasta=3: expected true or false"),
                        ("rules(start_wild=2)", "start_wild=2: expected 0 (never) or 3..7")]:
        try:
            make_bot(spec, GAME, 0, 0)
        except ValueError as e:
            assert words in str(e), (spec, str(e))
        else:
            raise AssertionError(f"{spec} was accepted")


def test_a_strategy_names_its_spec_with_the_settings_it_changes():
    assert Strategy().spec() == "rules"
    s = Strategy.from_settings(pile_min=5, pile_canasta=False, discard_safety=2)
    assert s.spec() == "rules(pile_min=5,pile_canasta=false,discard_safety=2)"
    assert Strategy.from_settings(**{"pile_min": 5, "pile_canasta": False, "discard_safety": 2.0}) == s


MELDED_QUEENS = dict(melded=3, melds={(0, QUEEN): (3, 0, 0)})


def test_pile_min_is_the_smallest_pile_taken():
    three = set_up(hands("K K 9 8 4"), pile=[K("5"), K("6"), K("K")], **MELDED_QUEENS)
    four = set_up(hands("K K 9 8 4"), pile=[K("5"), K("5"), K("6"), K("K")], **MELDED_QUEENS)
    assert choice("rules", three) == TAKE
    assert choice("rules(pile_min=4)", three) == DRAW
    assert choice("rules(pile_min=4)", four) == TAKE


def test_pile_min_special_is_the_smallest_pile_with_an_ace_or_a_seven_under_its_top():
    with_ace = set_up(hands("K K 9 8 4"), pile=[K("A"), K("6"), K("K")], **MELDED_QUEENS)
    plain = set_up(hands("K K 9 8 4"), pile=[K("5"), K("6"), K("K")], **MELDED_QUEENS)
    small_seven = set_up(hands("K K 9 8 4"), pile=[K("7"), K("K")], **MELDED_QUEENS)
    assert choice("rules", with_ace) == TAKE
    assert choice("rules(pile_min_special=5)", with_ace) == DRAW
    assert choice("rules(pile_min_special=5)", plain) == TAKE
    assert choice("rules", small_seven) == DRAW
    assert choice("rules(pile_min_special=2)", small_seven) == TAKE


def test_pile_avoid_special_refuses_a_pile_loaded_with_aces_or_sevens():
    aces = set_up(hands("K K 9 8 4"), pile=[K("A"), K("5"), K("A"), K("6"), K("K")], **MELDED_QUEENS)
    sevens = set_up(hands("K K 9 8 4"), pile=[K("7"), K("7"), K("7"), K("6"), K("K")], **MELDED_QUEENS)
    assert choice("rules", aces) == choice("rules", sevens) == TAKE
    assert choice("rules(pile_avoid_special=2)", aces) == DRAW
    assert choice("rules(pile_avoid_special=3)", aces) == TAKE
    assert choice("rules(pile_avoid_special=3)", sevens) == DRAW


def test_pile_canasta_takes_a_single_card_that_completes_a_canasta():
    s = set_up(hands("K K 9 8 4"), pile=[K("K")], melded=3, melds={(0, KING): (4, 0, 0)})
    assert choice("rules", s) == TAKE
    assert choice("rules(pile_canasta=false)", s) == DRAW


def test_pile_min_before_is_the_smallest_pile_taken_with_the_initial_meld():
    rich = set_up(hands("K K A A A A Q Q Q 9 5"), pile=[K("5"), K("6"), K("K")])
    assert choice("rules", rich) == TAKE
    assert choice("rules(pile_min_before=4)", rich) == DRAW


def test_initial_meld_asap_pile_or_only_with_a_canasta_in_hand():
    ready = set_up(hands("K K K A A A Q Q Q Jk 9 5 4", "4 4"), phase=MELD)
    assert not is_discard(choice("rules", ready))
    assert is_discard(choice("rules(initial_meld=pile)", ready))
    assert is_discard(choice("rules(initial_meld=canasta)", ready))
    kings = set_up(hands("K K K K K K Jk A A A A 5 4", "4 4"), phase=MELD)   # six Kings and a Joker
    assert choice("rules(initial_meld=canasta)", kings) == choice("rules", kings) == meld_action(ACE, 4, 0, 1)
    assert is_discard(choice("rules(initial_meld=pile)", kings))


def test_initial_pairs_makes_up_pairs_with_wild_cards_to_reach_the_requirement():
    s = set_up(hands("K K K Q Q J J Jk 2 9 5 4 4"), phase=MELD)   # K K K, Q Q Jk, J J 2: 140
    assert choice("rules", s) == meld_action(KING, 3, 0, 0)
    assert is_discard(choice("rules(initial_pairs=false)", s))


def test_initial_aces_wild_lays_three_aces_with_a_wild_card_in_the_initial_meld():
    s = set_up(hands("A A A Jk K K K Q Q Q 9 5 4"), phase=MELD)
    assert choice("rules", s) == meld_action(ACE, 3, 0, 1)
    assert choice("rules(initial_aces_wild=false)", s) != meld_action(ACE, 3, 0, 1)


def test_start_aces_and_start_sevens_are_the_naturals_held_to_start_them():
    aces = set_up(hands("A A A 9 8 5"), phase=MELD, melded=1)
    aces.fresh = False
    assert is_discard(choice("rules", aces))
    assert choice("rules(start_aces=3)", aces) == meld_action(ACE, 3, 0, 0)
    sevens = set_up(hands("7 7 7 7 9 8 5"), phase=MELD, melded=1)
    sevens.fresh = False
    assert choice("rules", sevens) == meld_action(SEVEN, 4, 0, 0)
    assert is_discard(choice("rules(start_sevens=5)", sevens))
    assert is_discard(choice("rules(start_sevens=8)", sevens))


def test_start_wild_starts_a_wild_card_meld_holding_that_many_wild_cards():
    s = set_up(hands("2 2 Jk 9 8 5"), phase=MELD, melded=1)
    s.fresh = False
    assert is_discard(choice("rules", s))
    assert choice("rules(start_wild=3)", s) == meld_action(WILD_SLOT, 0, 2, 1)
    assert is_discard(choice("rules(start_wild=4)", s))


def test_feed_wild_adds_wild_cards_to_an_unfinished_wild_card_meld():
    s = set_up(hands("2 9 8 5"), phase=MELD, melded=1, melds={(0, WILD_SLOT): (0, 1, 2)})
    s.fresh = False
    assert choice("rules", s) == meld_action(WILD_SLOT, 0, 1, 0)
    assert is_discard(choice("rules(feed_wild=false)", s))


def test_new_meld_min_holds_threes_back():
    s = set_up(hands("K K K 9 8 5"), phase=MELD, melded=1)
    s.fresh = False
    assert choice("rules", s) == meld_action(KING, 3, 0, 0)
    assert is_discard(choice("rules(new_meld_min=4)", s))


def going_out_position() -> CanastaState:
    return set_up(hands("K K K 9", "5 5 5", "Q Q 8", "6 6 6"), phase=MELD, melded=1,
                  canastas=[[(ACE, 7, 0, 0), (QUEEN, 5, 2, 0)], []], melds={(0, KING): (3, 0, 0)})


def test_go_out_asap_or_with_a_lead_or_at_a_low_stock():
    s = going_out_position()                  # side 0 leads by thousands; the stock holds 78 cards
    assert choice("rules", s) == ASK
    assert choice("rules(go_out=lead,out_stock=0)", s) == ASK
    assert choice("rules(go_out=lead,out_lead=5000,out_stock=0)", s) != ASK
    assert choice("rules(go_out=stock,out_stock=20)", s) != ASK
    assert choice("rules(go_out=stock,out_stock=80)", s) == ASK
    assert choice("rules(go_out=lead,out_lead=5000,out_stock=80)", s) == ASK


def test_ask_never_goes_out_without_asking():
    s = going_out_position()
    assert choice("rules", s) == ASK
    bot = make_bot("rules(ask=never)", GAME, 0, 0)
    assert bot.step(s) == meld_action(KING, 3, 0, 0)
    while not s.is_terminal():
        s.apply_action(bot.step(s))
    assert s.scores[0].going_out == 100 and not s.asked


def test_answer_cheap_yes_or_no_and_its_limit():
    s = going_out_position()
    s.apply_action(ASK)
    assert choice("rules", s, seat=2) == YES              # Q Q 8: 30 points
    assert choice("rules(answer=no)", s, seat=2) == NO
    assert choice("rules(answer_limit=20)", s, seat=2) == NO
    dear = going_out_position()
    dear.hands[2][ACE] += 3
    dear.hands[2][QUEEN] -= 2
    dear.sizes[2] += 1
    dear.apply_action(ASK)
    assert choice("rules", dear, seat=2) == NO              # three Aces held: 1500
    assert choice("rules(answer=yes)", dear, seat=2) == YES


def discard_position(hand: str, melds: dict | None = None, canasta: int = KING) -> CanastaState:
    s = set_up(hands(hand, "9 9 4 4 5"), phase=MELD, melded=3, pile=[K("6")],
               canastas=[[(canasta, 7, 0, 0)], []], melds=melds)
    s.fresh = False
    return s


def test_discard_safety_and_discard_known_keep_a_pair_the_next_opponent_picked_up_from_it():
    s = discard_position("A 5 2 Jk")
    s.known[1][ACE] = 2                          # p1 took two Aces with the pile
    assert choice("rules", s) == DISCARD_BASE + K("5")
    assert choice("rules(discard_safety=0)", s) == DISCARD_BASE + ACE       # the costlier card
    assert choice("rules(discard_known=false)", s) == DISCARD_BASE + ACE


def test_discard_avoid_melded_keeps_back_a_rank_the_opponents_have_a_meld_of():
    s = discard_position("K 5 2 Jk", melds={(1, K("5")): (3, 0, 0)}, canasta=ACE)
    assert choice("rules", s) == DISCARD_BASE + K("5")
    assert choice("rules(discard_avoid_melded=0.5)", s) == DISCARD_BASE + KING


def test_discard_keep_pairs_throws_singles_first():
    s = discard_position("A A 9 2")
    assert choice("rules", s) == DISCARD_BASE + K("9")
    assert choice("rules(discard_keep_pairs=0)", s) == DISCARD_BASE + ACE


def test_discard_keep_melded_keeps_a_rank_its_side_has_melded():
    s = discard_position("A 9", melds={(0, ACE): (4, 0, 0)})     # adding the Ace would leave one card
    assert choice("rules", s) == DISCARD_BASE + K("9")
    assert choice("rules(discard_keep_melded=0)", s) == DISCARD_BASE + ACE
