"""Position analysis: every legal action valued from the mover's information only,
paired over the same worlds; deterministic; right where one move is clearly best."""

from __future__ import annotations

import random
from pathlib import Path

import pyspiel
import pytest

import games  # noqa: F401
from agents.base import rules_core
from records.record import load_records, state_at
from scripts.cli import main
from search.analysis import CONFIRM_FACTOR, FINALISTS, Evaluator, analyse, review_decision

DATA = Path(__file__).resolve().parent / "data"


def _decision(game_string: str, seed: int, skip: int) -> pyspiel.State:
    """A state `skip` decisions into a random game, at a decision with a choice."""
    state = pyspiel.load_game(game_string).new_initial_state()
    rng = random.Random(seed)
    made = 0
    while True:
        if state.is_terminal():             # a short game: the next one
            state, made = pyspiel.load_game(game_string).new_initial_state(), 0
        elif state.is_chance_node():
            state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
        elif made >= skip and len(state.legal_actions()) > 1:
            return state
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            made += 1


GAMES = ["python_page_one(players=4)", "python_american_page_one(players=4)", "python_modern_canasta"]


@pytest.mark.parametrize("game", GAMES)
def test_the_analysis_is_the_same_on_the_true_state_and_on_any_world_of_the_movers_information(game):
    state = _decision(game, seed=2, skip=12)
    mover = state.current_player()
    truth = analyse(state, worlds=3, seed=4)
    rng = random.Random(1)
    for _ in range(2):
        world = rules_core(state).resample_from_infostate(mover, rng.random)
        seen = analyse(world, worlds=3, seed=4, game=state.get_game())
        assert seen.values == truth.values
    assert {v.action for v in truth.values} == set(state.legal_actions())


def test_the_analysis_is_deterministic_for_a_seed_and_its_differences_are_paired():
    state = _decision(GAMES[1], seed=5, skip=20)
    a, b = analyse(state, worlds=12, seed=9), analyse(state, worlds=12, seed=9)
    assert a.values == b.values and a.worlds == 12 and a.stages == 2
    chosen = a.best
    assert chosen.gap == chosen.gap_low == chosen.gap_high == 0
    for v in a.values:
        assert v.low <= v.mean <= v.high and v.gap_low <= v.gap <= v.gap_high
        assert v.gap == pytest.approx(chosen.mean - v.mean)
    assert analyse(state, worlds=12, seed=10).values != a.values


def test_the_best_action_is_chosen_on_some_worlds_and_measured_on_others():
    # The first set's best few are raced on more worlds and one chosen; the figures shown are the
    # fresh worlds'. Without confirmation the first set's figures are shown, the choice the same.
    state = _decision(GAMES[0], seed=3, skip=6)
    two = analyse(state, worlds=8, seed=2)
    one = analyse(state, worlds=8, seed=2, confirm=False)
    assert two.best.action == one.best.action
    finalists = sorted(two.selection, reverse=True)[:FINALISTS]
    assert two.selection[0] in finalists                        # chosen among the first set's best few
    assert one.stages == 1 and sorted(two.selection) == sorted(v.mean for v in one.values)   # the same first set
    assert [v.mean for v in two.values] != two.selection        # measured again, on other worlds


def test_the_same_position_gets_the_same_worlds_whoever_asks():
    # The worlds are seeded from the mover's information state: a hint and a review, asking the
    # same question, get the same answer, so the hint's first choice is never the review's mistake.
    state = _decision(GAMES[2], seed=1, skip=30)
    hint = analyse(state, worlds=6)
    review = analyse(state.clone(), worlds=6, played=hint.best.action)
    assert review.values[0].action == hint.best.action and review.mistake(hint.best.action) is None
    assert [v.mean for v in review.values] == [v.mean for v in hint.values]


def test_a_played_move_is_a_mistake_only_when_its_fresh_gap_is_clear():
    (record,) = load_records(DATA / "american_page_one_finish.json")
    state = state_at(record, len(record.moves))
    result = analyse(state, worlds=30, seed=0)
    draw = next(v for v in result.values if v.text == "draw")
    assert result.mistake(draw.action) is draw and draw.gap_low > 0
    assert result.mistake(result.best.action) is None


def test_values_are_in_the_games_points():
    (record,) = load_records(DATA / "canasta_go_out.json")
    result = analyse(state_at(record, len(record.moves)), worlds=4, seed=0)
    assert result.points_per_unit == 1000.0 and "values in points" in result.table()
    assert analyse(_decision(GAMES[0], seed=1, skip=4), worlds=2).points_per_unit is None


def test_a_canasta_hand_that_can_go_out_for_a_large_gain_ranks_going_out_first():
    # A real recorded hand (rule bots, deal seed 214): p2 holds 6 8 with open melds of both, the
    # partners have five canastas, the opponents none; melding either card and discarding the other
    # goes out. Melding the 8 (discarding the 6, 5 points less in hand) is best, by an interval.
    (record,) = load_records(DATA / "canasta_go_out.json")
    state = state_at(record, len(record.moves))
    result = analyse(state, worlds=30, seed=0)
    best, *others = result.values
    assert best.text == "meld 8: 8"
    assert all(v.gap_low > 0 for v in others), result.table()
    not_out = [v for v in others if v.text.startswith(("discard", "ask"))]
    assert not_out and all(v.gap > 0.5 for v in not_out)      # going out is worth over 500 points here


def test_an_american_page_one_hand_that_can_finish_ranks_finishing_first():
    # A real recorded deal (rule bots, deal seed 1): p2 holds 7♦ on a 6♦.
    (record,) = load_records(DATA / "american_page_one_finish.json")
    state = state_at(record, len(record.moves))
    result = analyse(state, worlds=30, seed=0)
    assert [v.text for v in result.values] == ["7♦", "draw"]
    assert result.values[1].gap_low > 0


@pytest.mark.parametrize("kwargs, message", [
    ({"player": 3}, "is not to move"), ({"worlds": 0}, "worlds must be"), ({"worlds": 2.5}, "worlds must be"),
    ({"policy": "nosuchbot"}, "unknown bot"),
])
def test_bad_requests_are_refused_naming_the_problem(kwargs, message):
    state = _decision(GAMES[0], seed=1, skip=4)
    if kwargs.get("player") == state.current_player():
        kwargs["player"] = (kwargs["player"] + 1) % 4
    with pytest.raises(ValueError, match=message):
        analyse(state, **kwargs)
    chance = pyspiel.load_game(GAMES[0]).new_initial_state()
    with pytest.raises(ValueError, match="chance is to move"):
        analyse(chance)


def test_cardarena_analyse_marks_the_move_played(capsys):
    main(["analyse", str(DATA / "american_page_one_finish.json"), "--move", "152", "--worlds", "4"])
    out = capsys.readouterr().out
    assert "before move 152" in out and "worlds continued by rules" in out
    marked = [line for line in out.splitlines() if line.startswith("* ") and "the move played" not in line]
    assert len(marked) == 1 and "6♦" in marked[0] and out.rstrip().endswith("* the move played")


def test_the_review_flags_a_clear_mistake_under_any_seed_and_never_the_hints_choice():
    # The go-out position above: discarding instead of going out loses over 500 points, so any
    # review flags it on the first look of its deciding worlds; the hint's choice is never flagged;
    # a loss the game would not notice (a threshold above the gap) is no mistake.
    (record,) = load_records(DATA / "canasta_go_out.json")
    state = state_at(record, len(record.moves))
    evaluator = Evaluator(worlds=6, threshold=0.05)
    hint = analyse(state.clone(), evaluator=evaluator)
    discard = next(v for v in hint.values if v.text.startswith("discard"))
    for seed in (0, 1):
        result, mistake = review_decision(state, discard.action, evaluator=evaluator, seed=seed)
        assert mistake is not None and mistake.played == discard.action and mistake.best == result.best.action
        assert mistake.low > 0.05 and mistake.cost > 0.5 and mistake.worlds == CONFIRM_FACTOR * 6
    chosen = analyse(state.clone(), evaluator=evaluator, seed=0).best.action
    assert review_decision(state, chosen, evaluator=evaluator, seed=0)[1] is None
    assert review_decision(state, discard.action, evaluator=Evaluator(worlds=6, threshold=5.0))[1] is None
