"""eval/paired.py and `cardarena paired`: two agents of two results files, deal by deal."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

import numpy as np
import pytest

from eval.config import TournamentConfig
from eval.paired import compare
from eval.tournament import run_tournament
from scripts.cli import main

GAME = "python_page_one(players=2)"


def results(tmp_path, name: str, agents: list[str], deals: int = 8, seed: int = 3, game: str = GAME):
    path = tmp_path / f"{name}.db"
    run_tournament(TournamentConfig.create(game, agents, deals=deals, seed=seed), path, workers=1,
                   progress=False, bootstrap=0)
    return path


def mean_return_by_hand(path, agent: str) -> float:
    """The agent's returns over its seats, every game of the file, from the stored rows."""
    with closing(sqlite3.connect(path)) as db:
        names = [row[0] for row in db.execute("SELECT name FROM agents ORDER BY idx")]
        total = seats = 0
        for seats_json, returns_json in db.execute("SELECT seats, returns FROM games"):
            for seat, value in zip(json.loads(seats_json), json.loads(returns_json)):
                if names[seat] == agent:
                    total, seats = total + value, seats + 1
    return total / seats


def test_the_same_bot_on_the_same_deals_differs_by_exactly_nothing(tmp_path):
    # Named to sort where "rules" does (after "random"), so each seat's bot draws the same seed too.
    first = results(tmp_path, "first", ["rules", "random"])
    second = results(tmp_path, "second", ["rules_again=rules", "random"])
    c = compare(first, "rules", second, "rules_again", bootstrap=200)
    assert c.deals == 8
    assert c.return_difference == (0.0, 0.0, 0.0) and c.win_difference == (0.0, 0.0, 0.0)
    assert c.opponents == [("random", "random")]


def test_a_stronger_bot_shows_its_difference_as_the_files_rows_say(tmp_path):
    first = results(tmp_path, "first", ["rules", "random"], deals=20)
    second = results(tmp_path, "second", ["other=random", "random"], deals=20)
    c = compare(first, "rules", second, "other", bootstrap=500)
    expected = mean_return_by_hand(first, "rules") - mean_return_by_hand(second, "other")
    assert c.return_difference[0] == pytest.approx(expected)
    assert c.return_difference[1] <= c.return_difference[0] <= c.return_difference[2]
    assert c.first.mean_return == pytest.approx(mean_return_by_hand(first, "rules"))
    assert "20 deals both files played" in c.describe()


def test_only_the_deals_both_files_played_are_compared(tmp_path):
    longer = results(tmp_path, "longer", ["rules", "random"], deals=8)
    shorter = results(tmp_path, "shorter", ["rules_again=rules", "random"], deals=3)
    assert compare(longer, "rules", shorter, "rules_again", bootstrap=100).deals == 3
    with pytest.raises(ValueError, match="share 0 deal"):           # another seed deals other cards
        compare(longer, "rules", results(tmp_path, "other_seed", ["rules", "random"], deals=3, seed=4), "rules")


@pytest.mark.parametrize("agents, game, message", [
    (["rules_again=rules", "rules"], GAME, "the opponents differ: random=random"),
    (["rules_again=rules", "random"], "python_page_one(players=3)", "the files differ in game"),
])
def test_files_that_differ_in_more_than_the_two_agents_are_refused(tmp_path, agents, game, message):
    first = results(tmp_path, "first", ["rules", "random"], deals=2)
    second = results(tmp_path, "second", agents, deals=2, game=game)
    with pytest.raises(ValueError, match=message):
        compare(first, "rules", second, "rules_again")


def test_the_command_prints_the_difference_and_refuses_bad_input_in_one_line(tmp_path, capsys):
    first = results(tmp_path, "first", ["rules", "random"], deals=4)
    second = results(tmp_path, "second", ["rules_again=rules", "random"], deals=4)
    main(["paired", str(first), "rules", str(second), "rules_again", "--bootstrap", "100"])
    out = capsys.readouterr().out
    assert "4 deals both files played" in out and "mean return +0.000 [+0.000, +0.000]" in out
    for argv, needle in ([str(first), "nobody", str(second), "rules_again"], "no agent 'nobody' (agents: "), \
                        ([str(tmp_path / "missing.db"), "rules", str(second), "rules_again"], "no such results file"), \
                        ([str(tmp_path), "rules", str(second), "rules_again"], "is a folder"), \
                        ([str(first), "rules", str(second), "rules_again", "--bootstrap", "0"], "use 40 to"):
        with pytest.raises(SystemExit) as exit_info:
            main(["paired", *argv])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err.strip()
        assert err.splitlines() == [err] and needle in err and "Traceback" not in err
    assert np.isfinite(compare(first, "rules", second, "rules_again").return_difference).all()   # nothing was changed
