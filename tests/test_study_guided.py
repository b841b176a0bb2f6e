"""`guided(strategy=rules(...),decides=CLASS,other=SPEC)` (eval/study/guided.py): the
strategy makes the decisions of its class, the other bot every other one."""

from __future__ import annotations

import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from agents import make_bot
from games.chance import DealChance
from eval.config import register_bots
from eval.study.guided import DECISIONS
from eval.study.paired import GUIDED, run_study, study_config
from games.modern_canasta.actions import DISCARD_BASE, DRAW, MELD_BASE, TAKE
from games.modern_canasta.cards import QUEEN, counts_of, parse_kind
from games.modern_canasta.core import ANSWER, TURN, set_up

GAME = pyspiel.load_game("python_modern_canasta")
STRATEGY = "rules(pile_min=5,initial_pairs=false,discard_safety=0,answer=no)"
# A fixed network, so that the deals below hold decisions of every class whatever is shipped.
OTHER = "neural(path=bots/earlier/python_modern_canasta_expert.safetensors)"
register_bots([GUIDED])


def in_class(decides: str, core) -> bool:
    if decides == "draw":
        return core.phase == TURN
    if decides == "answer":
        return core.phase == ANSWER
    return core.phase != ANSWER and not core.melded >> (core.actor & 1) & 1      # initial


@pytest.mark.parametrize("decides", DECISIONS)
def test_each_decision_is_the_strategys_in_its_class_and_the_networks_elsewhere(decides):
    """A whole hand: every move of the guided seats is what a rule bot of the
    strategy (asked the decisions of the class, in order) or the network would play."""
    by_strategy = by_network = 0
    for deal in range(5, 8):
        guided = {s: make_bot(f"guided(strategy={STRATEGY},decides={decides},other={OTHER})", GAME, s, 0)
                  for s in (0, 2)}
        rules = {s: make_bot(STRATEGY, GAME, s, 0) for s in (0, 2)}
        network = {s: make_bot(OTHER, GAME, s, 0) for s in (0, 2)}
        others = {s: make_bot("rules", GAME, s, 0) for s in (1, 3)}
        state, chance = GAME.new_initial_state(), DealChance(deal)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(chance(state))
                continue
            seat = state.current_player()
            if seat in others:
                state.apply_action(others[seat].step(state))
                continue
            if decides == "discard":
                expected = network[seat].step(state)
                if DISCARD_BASE <= expected < MELD_BASE:
                    expected = rules[seat].discard(state)
                    by_strategy += 1
                else:
                    by_network += 1
            elif in_class(decides, state.core):
                expected = rules[seat].step(state)
                by_strategy += 1
            else:
                expected = network[seat].step(state)
                by_network += 1
            action = guided[seat].step(state)
            assert action == expected
            state.apply_action(action)
    assert by_strategy > 0 and by_network > 0


def test_in_its_class_the_strategys_setting_changes_the_move():
    three = set_up([counts_of("K K 9 8 4")] + [counts_of("")] * 3, pile=[parse_kind(k) for k in "5 6 K".split()],
                   melded=3, melds={(0, QUEEN): (3, 0, 0)})
    assert make_bot("guided(strategy=rules,decides=draw)", GAME, 0).step(three) == TAKE
    assert make_bot("guided(strategy=rules(pile_min=4),decides=draw)", GAME, 0).step(three) == DRAW


def test_it_does_not_read_hidden_cards():
    from tests import conformance
    from tests.test_modern_canasta_shared import swap_hidden
    for decides in DECISIONS:
        checked = conformance.check_bot_ignores_hidden_cards(
            GAME, lambda me: make_bot(f"guided(strategy={STRATEGY},decides={decides})", GAME, me), 40, 3,
            swap_hidden)
        assert checked > 30


def test_bad_settings_are_named():
    for spec, words in [("guided(strategy=rules,decides=melds)", "decides=melds: expected one of draw"),
                        ("guided(strategy=random,decides=draw)", "strategy=random: expected the Canasta rule bot"),
                        ("guided(strategy=rules(pile_mn=3),decides=draw)", "unknown setting 'pile_mn'")]:
        with pytest.raises(ValueError, match=words):
            make_bot(spec, GAME, 0)


def test_a_study_of_guided_players_registers_them_in_its_workers(tmp_path):
    config = study_config("guided(strategy=rules(discard_safety=0),decides=discard)",
                          "guided(strategy=rules,decides=discard)", deals=2, target=None)
    assert GUIDED in config.bot_modules
    result = run_study(config, tmp_path / "g.db", progress=False)
    assert len(result.deals) == 2 and result.faulted == 0
