"""Tuning the Canasta rule bot's settings by coordinate ascent (eval/study/tune.py, `cardarena study tune`)."""

from __future__ import annotations

import pytest

from agents.rules.modern_canasta import Strategy
from eval.study.tune import grid_check, plot, rate, tune
from scripts.cli import main as cardarena

# Never takes the pile: far weaker than the rule bot (about -100 Elo on the deals below).
NEVER_PILE = Strategy.from_settings(pile_min=108, pile_min_before=108, pile_canasta=False)


def test_a_grid_with_a_setting_or_value_the_rule_bot_refuses_is_named():
    with pytest.raises(ValueError, match="unknown setting 'pile_mn'"):
        grid_check({"pile_mn": (3,)})
    with pytest.raises(ValueError, match="pile_min=0"):
        grid_check({"pile_min": (3, 0)})


def test_the_ascent_keeps_a_value_only_when_it_beats_the_best_so_far(tmp_path):
    """From a strategy that never takes the pile: a setting that changes nothing
    under it (out_lead, read only under go_out=lead) rates exactly the same and is
    not kept; taking piles of 3 again gains far more than the threshold and is;
    the second pass finds nothing better and ends the ascent."""
    grid = {"out_lead": (0, 500), "pile_min": (108, 3)}
    best, trials = tune(NEVER_PILE, "rules", deals=40, seed=5, out=tmp_path, min_gain=5.0, grid=grid, passes=3)
    assert [(t.setting, t.value) for t in trials] == [("", None), ("out_lead", 500), ("pile_min", 3),
                                                      ("out_lead", 500), ("pile_min", 108)]
    start, no_effect, piles, *second_pass = trials
    assert start.kept and start.spec == NEVER_PILE.spec()
    assert no_effect.elo == start.elo and not no_effect.kept
    assert piles.kept and piles.elo > start.elo + 5.0
    assert not any(t.kept for t in second_pass)
    assert best.spec() == piles.spec == "rules(pile_canasta=false,pile_min_before=108)"
    figure = plot(trials, tmp_path / "ascent.png", "the ascent")
    assert figure.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_candidate_already_rated_is_read_back_not_played_again(tmp_path):
    first = rate("rules(pile_min=5)", "rules", deals=4, seed=1, out=tmp_path, workers=1)
    files = {path: path.stat().st_mtime_ns for path in tmp_path.iterdir()}
    assert rate("rules(pile_min=5)", "rules", deals=4, seed=1, out=tmp_path, workers=1) == first
    assert len(files) == 1 and {path: path.stat().st_mtime_ns for path in tmp_path.iterdir()} == files


def test_bad_input_on_the_command_line_is_one_line_and_exit_2(tmp_path, capsys):
    for args, words in [(["--start", "neural"], "expected a rule-bot strategy"),
                        (["--start", "rules(pile_mn=3)"], "unknown setting 'pile_mn'"),
                        (["--against", "nobot"], "nobot"),
                        (["--deals", "0"], "--deals: 0 is out of range"),
                        (["--seed", "-1"], "--seed: -1 is out of range"),
                        (["--min-gain", "nan"], "--min-gain: expected a finite number")]:
        with pytest.raises(SystemExit) as stop:
            cardarena(["study", "tune", *args, "--out", str(tmp_path / "t"), "--quiet"])
        err = capsys.readouterr().err.strip()
        assert stop.value.code == 2 and len(err.splitlines()) == 1 and words in err, err
    assert not (tmp_path / "t").exists()
