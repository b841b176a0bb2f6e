"""Hand statistics of a Canasta study (eval/study/stats.py, `cardarena study stats`)."""

from __future__ import annotations

import pytest

import games  # noqa: F401  (registers the games)
from agents.base import rules_core
from eval.results_records import records_from_results
from records.record import replay
from eval.storage import ResultsDB
from eval.study.paired import run_study, study_config
from eval.study.stats import COMPONENTS, hands_from_results, markdown, plots, side_hands
from games.modern_canasta.actions import ASK, COMMIT, NO, TAKE, YES
from games.modern_canasta.core import MELD, PICKUP, TURN
from scripts.cli import main as cardarena


@pytest.fixture(scope="module")
def match_results(tmp_path_factory):
    """Two paired matches to 2500 between two strategies: about 25 hands."""
    path = tmp_path_factory.mktemp("stats") / "m.db"
    run_study(study_config("rules(pile_min=2,start_wild=3)", "rules(ask=never,answer=yes)", deals=2,
                           target=2500), path, progress=False)
    return path


def test_each_hands_components_sum_to_the_points_the_game_scored(match_results):
    with ResultsDB.read(match_results) as db:
        scored = {(g.deal, g.rotation, k): hand for g in db.games() for k, hand in enumerate(g.deal_records)}
    rows = hands_from_results(match_results, progress=False)
    assert len(rows) == 2 * len(scored) > 20
    for row in rows:
        deal, rotation, k = (int(x) for x in row.hand.split("-"))
        assert row.component_sum == row.points == scored[deal, rotation, k][row.side], row
        assert row.opponents == scored[deal, rotation, k][1 - row.side]
    assert {c for c in COMPONENTS if any(getattr(r, c) for r in rows)} >= {
        "melded_cards", "natural_canastas", "threes", "cards_in_hand", "going_out"}


def test_piles_asks_and_going_out_agree_with_a_replay_of_the_moves(match_results):
    seen = [0, 0, 0]                                    # piles, asks, going out: the hands show each
    for hand, record in records_from_results(match_results):
        takes, cards, asks, yes, no = [0, 0], [0, 0], [0, 0], [0, 0], [0, 0]
        waiting = None
        last_actor = None
        for _, state, move in replay(record):
            core = rules_core(state)
            side = move.actor & 1
            if move.actor >= 0:
                last_actor = move.actor
            if core.phase == TURN and move.action == TAKE:
                if core.melded >> side & 1:
                    takes[side] += 1
                    cards[side] += len(core.pile)
                else:
                    waiting = len(core.pile)           # taken only if the initial meld is completed
            elif core.phase == PICKUP and move.action == COMMIT:
                takes[side] += 1
                cards[side] += waiting
            elif core.phase == MELD and move.action == ASK:
                asks[side] += 1
            elif move.action in (YES, NO) and move.actor >= 0 and core.phase != TURN:
                (yes if move.action == YES else no)[side] += 1
        end = rules_core(replay_end(record))
        for row in side_hands(record, hand):
            s = row.side
            assert (row.pile_takes, row.pile_cards, row.asks, row.yes, row.no) == \
                (takes[s], cards[s], asks[s], yes[s], no[s]), hand
            assert row.went_out == (end.scores[s].going_out > 0)
            if row.went_out:
                assert last_actor & 1 == s and row.out_stock == end.stock_size
            seen = [seen[0] + row.pile_takes, seen[1] + row.asks, seen[2] + row.went_out]
    assert all(seen), seen


def replay_end(record):
    from records.record import state_at
    return state_at(record, len(record.moves))


def test_the_report_and_its_plots(match_results, tmp_path):
    rows = hands_from_results(match_results, progress=False)
    text = markdown(rows, "m")
    assert f"add up to the game's points in {len(rows)} of {len(rows)} side-hands" in text
    assert "| first pile of the hand (cards) |" in text and "| **total** |" in text
    written = plots(rows, tmp_path, "m")
    assert [p.name for p in written] == ["study_m_points.png", "study_m_first_pile.png"]
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in written)


def test_stats_of_a_file_that_is_not_results_is_one_line_and_exit_2(tmp_path, capsys):
    bad = tmp_path / "notes.db"
    bad.write_text("not a database")
    with pytest.raises(SystemExit) as stop:
        cardarena(["study", "stats", str(bad), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and len(err.splitlines()) == 1 and "notes.db" in err
    assert bad.read_text() == "not a database"


def test_stats_of_another_games_results_is_refused_in_one_line(tmp_path, capsys):
    from eval.config import TournamentConfig
    from eval.tournament import run_tournament
    path = tmp_path / "p1.db"
    run_tournament(TournamentConfig.create("python_page_one(players=4)", ["random", "rules"], deals=1),
                   path, progress=False)
    with pytest.raises(SystemExit) as stop:
        cardarena(["study", "stats", str(path), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert stop.value.code == 2 and len(err.splitlines()) == 1 and "not a Canasta hand" in err
