"""The Canasta strategy lab's paired experiments (eval/study/paired.py, `cardarena study canasta`)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import pyspiel

import games  # noqa: F401  (registers the games)
from agents import make_bot
from eval.storage import ResultsDB
from eval.study.paired import (SprtSettings, load_study, play_fingerprint, ratio_estimate, run_study,
                               study_config)
from scripts.cli import main as cardarena

WEAK = "rules(pile_min=12,discard_safety=0,new_meld_min=5)"


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_strategy_against_itself_is_exactly_level_deal_by_deal(tmp_path):
    """Each deal is played twice with the same cards and the sides swapped: the
    same deterministic strategy on both sides scores the same hand both times."""
    config = study_config("rules", "rules", deals=6, target=None)
    result = run_study(config, tmp_path / "r.db", progress=False)
    assert len(result.deals) == 6 and result.hands == 12
    assert all(d.points == 0 and d.hands_won == 1.0 for d in result.deals)
    assert result.points().value == 0


def test_a_match_counts_every_hand_and_the_match(tmp_path):
    config = study_config(WEAK, "rules", deals=2, target=2500)
    result = run_study(config, tmp_path / "m.db", progress=False)
    with ResultsDB.read(tmp_path / "m.db") as db:
        games_ = list(db.games())
    assert len(games_) == 4 and {g.seats for g in games_} == {(0, 1, 0, 1), (1, 0, 1, 0)}
    hands = sum(len(g.deal_records) for g in games_)
    a_points = sum(h[0 if g.seats[0] == 0 else 1] for g in games_ for h in g.deal_records)
    assert result.hands == hands
    assert result.side_points("a").value == pytest.approx(a_points / hands)
    wins = sum((g.returns[0] if g.seats[0] == 0 else g.returns[1]) > 0 for g in games_)
    assert result.matches_won().value == pytest.approx(wins / 4)
    for g in games_:                              # a match ends at the target
        sides = [sum(h[s] for h in g.deal_records) for s in (0, 1)]
        assert max(sides) >= 2500 and (g.returns[0] > 0) == (sides[0] > sides[1])


def test_ratio_estimate_is_the_pooled_ratio_with_a_delta_method_interval():
    est = ratio_estimate([10.0, -4.0, 6.0, 0.0], [2, 2, 3, 1])
    assert est.value == pytest.approx(12 / 8)
    plain = ratio_estimate([1.0, 2.0, 3.0, 6.0], [1, 1, 1, 1])
    half = 1.959963984540054 * (2.160246899 / 2)            # sd 2.1602 over sqrt(4)
    assert plain.value == 3.0 and plain.high - plain.value == pytest.approx(half)


def test_it_resumes_and_extends_playing_only_what_is_missing(tmp_path):
    path = tmp_path / "r.db"
    first = run_study(study_config(WEAK, "rules", deals=3, target=None), path, progress=False)
    again = run_study(study_config(WEAK, "rules", deals=3, target=None), path, progress=False)
    more = run_study(study_config(WEAK, "rules", deals=5, target=None), path, progress=False)
    assert (first.played, again.played, more.played) == (6, 0, 4)
    assert [d.points for d in more.deals[:3]] == [d.points for d in first.deals]
    assert load_study(path).points().value == more.points().value


def test_another_experiments_results_file_is_refused_and_left_as_it_was(tmp_path, capsys):
    path = tmp_path / "r.db"
    run_study(study_config(WEAK, "rules", deals=2, target=None), path, progress=False)
    before = digest(path)
    with pytest.raises(ValueError, match="different tournament"):
        run_study(study_config("rules", "rules", deals=2, target=None), path, progress=False)
    with pytest.raises(SystemExit) as stop:
        cardarena(["study", "canasta", "--a", WEAK, "--b", "rules", "--target", "none", "--deals", "2",
                   "--results", str(path), "--seed", "3", "--quiet", "--workers", "1"])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and len(err.splitlines()) == 1 and "seed" in err
    assert digest(path) == before and len(load_study(path).deals) == 2


def test_bad_input_on_the_command_line_is_one_line_and_exit_2(tmp_path, capsys):
    for args, words in [(["--a", "rules(pile_mn=3)", "--b", "rules"], "unknown setting 'pile_mn'"),
                        (["--a", "rules", "--b", "rules(go_out=never)"], "go_out=never"),
                        (["--a", "rules", "--b", "rules", "--target", "9000"], "target=9000"),
                        (["--a", "rules", "--b", "rules", "--sprt", "20"], "--sprt '20'"),
                        (["--a", "rules", "--b", "rules", "--game", "python_modern_canasta(score0=3000)"],
                         "--target none")]:
        with pytest.raises(SystemExit) as stop:
            cardarena(["study", "canasta", *args, "--results", str(tmp_path / "x.db"), "--quiet"])
        err = capsys.readouterr().err.strip()
        assert stop.value.code == 2 and len(err.splitlines()) == 1 and words in err, err
    assert not (tmp_path / "x.db").exists()


def test_the_sprt_stops_as_soon_as_it_decides(tmp_path):
    config = study_config("rules", "random", deals=40, target=None)
    result = run_study(config, tmp_path / "s.db", sprt=SprtSettings(0, 100), progress=False)
    assert result.sprt.verdict == "H1" and result.sprt.deals < 20
    assert len(result.deals) < 40


def test_a_partnership_puts_each_player_in_its_own_seats(tmp_path):
    game = pyspiel.load_game("python_modern_canasta")
    spec = "partnership(first=rules(ask=never),second=random)"
    from eval.config import register_bots
    from eval.study.paired import PARTNERSHIP
    register_bots([PARTNERSHIP])
    kinds = [type(make_bot(spec, game, seat, 0)).__name__ for seat in range(4)]
    assert kinds == ["ModernCanastaRulesBot", "ModernCanastaRulesBot", "RandomBot", "RandomBot"]
    assert make_bot(spec, game, 1, 0).strategy.ask == "never"
    config = study_config("rules", "rules", a_partner="random", deals=8, target=None)
    assert dict(config.agents)["a"] == "partnership(first=rules,second=random)"
    result = run_study(config, tmp_path / "p.db", progress=False)
    assert result.points().value < 0              # a random partner costs points


def test_the_requirement_cost_is_side_zeros_lead_paired_by_deal(tmp_path):
    from eval.study.paired import requirement_cost
    at_score, at_zero, gap = requirement_cost("rules", 5000, deals=4, results_dir=tmp_path, progress=False)
    assert gap.value == pytest.approx(at_score.value - at_zero.value)
    files = sorted(tmp_path.glob("study-canasta-*.db"))
    assert len(files) == 2
    stored = {}
    for f in files:
        with ResultsDB.read(f) as db:
            stored[db.config().game] = len(list(db.games()))
    assert stored == {"python_modern_canasta(first_player=0,score0=0,score1=0)": 8,
                      "python_modern_canasta(first_player=0,score0=5000,score1=0)": 8}


def test_a_forest_plot_of_several_studies(tmp_path):
    from eval.study.paired import forest_plot
    files = []
    for spec in ("rules(pile_min=5)", "rules(ask=never)"):
        files.append(tmp_path / f"{spec}.db")
        run_study(study_config(spec, "rules", deals=2, target=None), files[-1], progress=False)
    out = forest_plot(files, tmp_path / "f.png", "two")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# Recorded with the code before the speed-up of the rule bot, the going-out
# search and the deal's chance (2a391fa): every game's moves, scores and seats.
FIXED_SEED_STUDIES = {
    "matches": (dict(a="rules(ask=never)", b="rules", deals=3, seed=3, target=2500),
                "f45949ef123fd8b53086684a99e95a7daa27202b640e95ea2b29eb6e39f53e3f"),
    "settings": (dict(a="rules(initial_meld=pile,new_meld_min=4,start_wild=4,go_out=lead,out_lead=500,"
                        "discard_avoid_melded=0.5)",
                      b="rules(answer=yes,discard_known=false,pile_min_special=6,start_sevens=3,"
                        "pile_avoid_special=3)",
                      b_partner="rules(ask=never,answer=no,initial_pairs=false,initial_aces_wild=false,"
                                "go_out=stock,out_stock=20)",
                      deals=40, seed=5, target=None, game="python_modern_canasta(score0=3000)"),
                 "1c205dfa60b7b91804821f909f1b702dbce2fd47d3aa5daf2efd907fa4909ec7"),
}


@pytest.mark.parametrize("name", sorted(FIXED_SEED_STUDIES))
def test_a_fixed_seed_study_plays_the_same_games_as_before_the_speed_up(tmp_path, name):
    """Speed-ups change no move: the same studies, move for move, as recorded."""
    settings, fingerprint = FIXED_SEED_STUDIES[name]
    run_study(study_config(**settings), tmp_path / "r.db", progress=False)
    assert play_fingerprint(tmp_path / "r.db") == fingerprint


def test_the_play_fingerprint_ignores_times_and_sees_a_changed_move(tmp_path, capsys):
    import sqlite3
    from eval.play import decode_history, encode_history
    config = study_config(WEAK, "rules", deals=2, target=None)
    run_study(config, tmp_path / "a.db", progress=False)
    run_study(config, tmp_path / "b.db", progress=False)
    assert digest(tmp_path / "a.db") != digest(tmp_path / "b.db")      # the times differ
    assert play_fingerprint(tmp_path / "a.db") == play_fingerprint(tmp_path / "b.db")
    with ResultsDB.read(tmp_path / "b.db") as db:
        deals = decode_history(db.game(1, 0).history)
    deals[0].actions[-1] ^= 1                                          # one move changed
    with sqlite3.connect(tmp_path / "b.db") as conn:
        conn.execute("UPDATE games SET history = ? WHERE deal = 1 AND rotation = 0", (encode_history(deals),))
    conn.close()
    assert play_fingerprint(tmp_path / "a.db") != play_fingerprint(tmp_path / "b.db")
    cardarena(["study", "fingerprint", str(tmp_path / "a.db")])
    assert capsys.readouterr().out == f"{play_fingerprint(tmp_path / 'a.db')}  {tmp_path / 'a.db'}\n"
    for bad in (tmp_path / "none.db", Path(__file__)):
        with pytest.raises(SystemExit) as stop:
            cardarena(["study", "fingerprint", str(bad)])
        err = capsys.readouterr().err.strip()
        assert stop.value.code == 2 and len(err.splitlines()) == 1 and str(bad) in err
