"""Game records: stored with every game, replayed move for move, read back
precisely, shown from one seat without a hidden card, and refused when bad."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import sqlite3
from pathlib import Path

import pyspiel
import pytest

import games  # noqa: F401
from agents.base import rules_core
from eval.config import TournamentConfig
from eval.results_records import records_from_results
from records.record import (FORMAT, VERSION, PlayerInfo, Record, RecordError, build, check, load_records, seat_views,
                            state_at, transcript, write_records)
from eval.storage import ResultsDB, ResultsFileError
from eval.tournament import load_summary, planned_games, run_tournament
from scripts.cli import main

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"

TOURNAMENTS = {
    "page_one": ("python_page_one(players=4)", ["random", "rules"], None),
    "american_page_one": ("python_american_page_one(players=3,dobon=true)", ["random", "rules"], None),
    "modern_canasta": ("python_modern_canasta", ["rules", "r2=rules"], None),
    "american_page_one_match": ("python_american_page_one(players=3)", ["random", "rules"], "deals=3"),
    "modern_canasta_match": ("python_modern_canasta", ["rules", "r2=rules"], "target=2500"),
}


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, Path]:
    """One small stored tournament per game, and per match format."""
    out = {}
    for name, (game, agents, match) in TOURNAMENTS.items():
        path = tmp_path_factory.mktemp(name) / "r.db"
        config = TournamentConfig.create(game, agents, deals=1, seed=3, match=match)
        run_tournament(config, path, workers=1, progress=False, bootstrap=0)
        out[name] = path
    return out


@pytest.mark.parametrize("name", TOURNAMENTS)
def test_stored_games_replay_to_their_stored_returns_move_for_move(results, name):
    path = results[name]
    with ResultsDB.read(path) as db:
        stored = {g.key: g for g in db.games(history=True)}
    by_game: dict[tuple[int, int], list[Record]] = {}
    for gid, record in records_from_results(path):
        by_game.setdefault((record.source["deal"], record.source["rotation"]), []).append(record)
        final = check(record)                     # legal in turn; a finished deal ends with its returns
        assert final.is_terminal()
    assert set(by_game) == set(stored)
    for key, records in by_game.items():
        game = stored[key]
        assert sum(len(r.moves) for r in records) == sum(len(h.actions) for h in game.deal_histories())
        assert sum(m.actor >= 0 for r in records for m in r.moves) == game.length
        if TOURNAMENTS[name][2] is None:
            assert records[0].returns == pytest.approx(game.returns)
        else:                                     # each deal's record is what the match kept of it
            for k, record in enumerate(records):
                assert record.match["deal"] == k
                assert record.game == str(pyspiel.load_game(record.game))
            assert len(records) == len(game.deal_records)


def _same(a: pyspiel.State, b: pyspiel.State) -> bool:
    """The same position: the same history (what OpenSpiel's serialization rebuilds
    a state from; the rest of it pickles caches too), the same table, the same
    information for every player and the same returns."""
    n = a.num_players()
    return (a.serialize().split("\n")[0] == b.serialize().split("\n")[0] and a.history() == b.history()
            and str(a) == str(b) and a.returns() == b.returns()
            and all(a.information_state_string(p) == b.information_state_string(p) for p in range(n)))


@pytest.mark.parametrize("name", ["page_one", "american_page_one", "modern_canasta_match"])
def test_state_at_every_move_is_the_state_the_actions_reach(results, name):
    _, record = next(records_from_results(results[name]))
    state = pyspiel.load_game(record.game).new_initial_state()
    for i, move in enumerate(record.moves):
        assert _same(state_at(record, i), state), i
        state.apply_action(move.action)
    assert _same(state_at(record, len(record.moves)), state)


def test_a_record_file_round_trips_every_field(results, tmp_path):
    records = [r for _, r in records_from_results(results["modern_canasta_match"])]
    records[0].moves[5].annotations["comment"] = "a note a later tool added"
    records[0].annotations["analysis"] = {"by": "test"}
    write_records(tmp_path / "g.jsonl", records)
    again = load_records(tmp_path / "g.jsonl")
    assert again == records
    for record in again:
        check(record)
    first = json.loads((tmp_path / "g.jsonl").read_text().splitlines()[0])
    assert first["format"] == FORMAT and first["version"] == VERSION
    assert first["match"]["format"] == "target=2500" and first["seed"] == records[0].seed
    assert all(set(m) >= {"actor", "action", "text"} for m in first["moves"])
    assert any("seconds" in m for m in first["moves"] if m["actor"] >= 0)


@pytest.mark.parametrize("name", ["page_one", "american_page_one", "modern_canasta"])
def test_a_view_shows_the_same_on_the_true_game_and_on_a_world_resampled_for_that_seat(results, name):
    _, record = next(records_from_results(results[name]))
    rng = random.Random(5)
    game = pyspiel.load_game(record.game)
    for cut in (len(record.moves) // 3, 2 * len(record.moves) // 3):
        truth = Record(record.game, record.players, record.moves[:cut], None)
        state = state_at(record, cut)
        for seat in range(game.num_players()):
            world = rules_core(state).resample_from_infostate(seat, rng.random)
            assert world.history() != list(state.history()) or name == "page_one"
            other = build(record.game, game, world.history(), record.players)
            assert transcript(other, seat) == transcript(truth, seat)
            assert list(seat_views(other, seat)) == list(seat_views(truth, seat))    # show --view --json's


def test_a_view_names_the_seats_own_cards_and_not_the_others(results):
    _, record = next(records_from_results(results["page_one"]))
    seen = " ".join(line for _, line in transcript(record, 0))
    everything = " ".join(line for _, line in transcript(record, None))
    assert "dealt" in seen and "p1 dealt" not in seen        # its own deal, no other seat's card
    assert "p1 dealt" in everything


# ------------------------------------------------------------------ bad input
def _run(argv: list[str], capsys) -> tuple[int, str]:
    with pytest.raises(SystemExit) as done:
        main(argv)
    return done.value.code, capsys.readouterr().err


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _record_file(results, tmp_path, edit) -> Path:
    _, record = next(records_from_results(results["page_one"]))
    obj = record.to_json()
    edit(obj)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(obj) if isinstance(obj, dict) else obj)
    return path


@pytest.mark.parametrize("edit, message", [
    (lambda o: o.update(version=99), "record version 99"),
    (lambda o: o.update(format="pgn"), "not a cardarena record"),
    (lambda o: o["moves"][30].update(action=59), "move 30"),
    (lambda o: o["moves"][3].update(actor=2), "move 3"),
    (lambda o: o.update(game="python_page_one(players=99)"), "does not load"),
    (lambda o: o["moves"][2].pop("text"), "move 2: missing 'text'"),
])
def test_a_bad_record_is_refused_with_one_line_naming_the_problem(results, tmp_path, capsys, edit, message):
    path = _record_file(results, tmp_path, edit)
    before = _digest(path)
    for argv in (["show", str(path), "--open"], ["analyse", str(path), "--move", "20"]):
        code, err = _run(argv, capsys)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
        assert "Traceback" not in err
    assert _digest(path) == before


def test_corrupt_files_unknown_games_and_moves_past_the_end_are_refused(results, tmp_path, capsys):
    corrupt = tmp_path / "c.jsonl"
    corrupt.write_text('{"format": "cardarena-record"\n')
    db = results["page_one"]
    before = _digest(db)
    cases = [(["show", str(corrupt), "--open"], "line 1 is not valid JSON"),
             (["show", str(db), "99-0", "--open"], "no game 99-0"),
             (["show", str(db), "x", "--open"], "deal-rotation"),
             (["analyse", str(db), "0-0", "--move", "100000"], "past the end"),
             (["show", str(db), "0-0", "--view", "7"], "seat 7"),
             (["games", str(tmp_path / "none.db")], "no such results file"),
             (["export-games", str(db), "--out", str(db), "--force"], "is an input of this command")]
    for argv, message in cases:
        code, err = _run(argv, capsys)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (argv, err)
    assert _digest(db) == before


def test_games_show_and_export_on_the_command_line(results, tmp_path, capsys):
    db = results["american_page_one_match"]
    main(["games", str(db)])
    listing = capsys.readouterr().out
    assert "0-0" in listing and "[3 deals]" in listing
    main(["show", str(db), "0-1-2", "--view", "1"])
    shown = capsys.readouterr().out
    assert "match deals=3, deal 2" in shown and "seat 1's view" in shown
    out = tmp_path / "g.jsonl"
    main(["export-games", str(db), "--out", str(out)])
    assert "records written" in capsys.readouterr().out
    assert len(load_records(out)) == 3 * len(list(ResultsDB.read(db).games()))
    code, err = _run(["export-games", str(db), "--out", str(out)], capsys)
    assert code == 2 and "--force" in err


def test_show_json_prints_the_seats_view_after_every_move_in_its_games_schema(results, capsys):
    """`cardarena show --view SEAT --json`: a line a move, every deal of a match, each the seat's
    view (the table's and the engine's) valid against its game's schema."""
    from jsonschema import Draft202012Validator
    from games.view import seat_view, view_schema
    db = results["american_page_one_match"]
    found = list(records_from_results(db))[:3]          # game 0-0's deals
    assert len({r.match["deal"] for _, r in found}) == 3
    main(["show", str(db), "0-0", "--view", "2", "--json"])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(lines) == sum(len(r.moves) for _, r in found)
    validator = Draft202012Validator(view_schema(found[0][1].game))
    for line in lines:
        assert set(line) == {"game", "move", "view"} and line["game"].startswith("0-0-")
        validator.validate(line["view"])
    for gid, record in found:
        mine = [line for line in lines if line["game"] == gid]
        assert [(line["move"], line["view"]) for line in mine] == [(i, v) for i, v in seat_views(record, 2)]
        agents = [p.agent for p in sorted(record.players, key=lambda p: p.seat)]
        final = seat_view(record.game, state_at(record, len(record.moves)), 2, agents=agents)
        assert mine[-1]["view"] == final and final["score"] is not None
    code, err = _run(["show", str(db), "0-0", "--open", "--json"], capsys)
    assert code == 2 and "--view SEAT" in err


# ------------------------------------------------------------------ results files
def _as_version_1(path: Path) -> None:
    """Makes a results file what the schema before histories wrote."""
    with sqlite3.connect(path) as conn:
        conn.execute("ALTER TABLE games DROP COLUMN history")
        conn.execute("DROP TABLE luck")
        conn.execute("DELETE FROM meta WHERE key = 'bot_files'")
        conn.execute("PRAGMA user_version = 1")


def test_a_results_file_from_before_histories_opens_reports_and_resumes(tmp_path, capsys):
    path = tmp_path / "old.db"
    config = TournamentConfig.create("python_page_one(players=3)", ["random", "rules"], deals=4)
    run_tournament(config, path, workers=1, progress=False, bootstrap=0)
    _as_version_1(path)
    old, new = len(planned_games(config)), len(planned_games(config.with_deals(6)))
    assert load_summary(path, bootstrap=0).games == old and list(records_from_results(path)) == []
    main(["games", str(path)])
    assert "stored before game histories" in capsys.readouterr().out
    run_tournament(config.with_deals(6), path, workers=1, progress=False, bootstrap=0)
    with ResultsDB.read(path) as db:
        games_ = list(db.games(history=True))
    assert [g.deal_histories() is None for g in games_] == [True] * old + [False] * (new - old)   # old games kept
    assert len(list(records_from_results(path))) == new - old


def test_resuming_after_a_bot_file_changed_is_refused_naming_the_agent_and_both_hashes(tmp_path):
    bot = tmp_path / "bot.safetensors"
    shutil.copy(ROOT / "bots" / "python_american_page_one.safetensors", bot)
    game = "python_american_page_one(players=4)"
    config = TournamentConfig.create(game, ["rules", f"mine=neural(path={bot})"], deals=1)
    run_tournament(config, tmp_path / "r.db", workers=1, progress=False, bootstrap=0)
    first = hashlib.sha256(bot.read_bytes()).hexdigest()
    shutil.copy(ROOT / "bots" / "earlier" / "python_american_page_one_dmc.safetensors", bot)
    second = hashlib.sha256(bot.read_bytes()).hexdigest()
    before = _digest(tmp_path / "r.db")
    with pytest.raises(ResultsFileError) as refused:
        run_tournament(config.with_deals(2), tmp_path / "r.db", workers=1, progress=False, bootstrap=0)
    message = str(refused.value)
    assert "'mine'" in message and first[:16] in message and second[:16] in message
    assert _digest(tmp_path / "r.db") == before
    _, record = next(records_from_results(tmp_path / "r.db"))
    assert {p.sha256 for p in record.players if p.agent == "mine"} == {first}


def test_the_go_out_position_is_a_real_recorded_hand():
    (record,) = load_records(DATA / "canasta_go_out.json")
    state = state_at(record, len(record.moves))
    assert state.current_player() == 2 and not state.is_terminal()
    assert record.players == [PlayerInfo(s, "rules", "rules") for s in range(4)]


def test_a_history_round_trips_through_its_encoding_and_a_damaged_one_is_refused():
    from eval.play import DealHistory, decode_history, encode_history
    deals = [DealHistory([3, 255, 0, 7], [0.5, 2.0 ** -10]), DealHistory([576, 2, 300], [1.0, 2.0, 0.25])]
    blob = encode_history(deals)
    assert decode_history(blob) == deals                 # 8-bit and 16-bit actions; times exact in float16
    for bad in (blob[:-1], blob + b"x", b"XX" + blob[2:]):
        with pytest.raises(ValueError, match="history"):
            decode_history(bad)


@pytest.mark.parametrize("game_string", ["python_page_one(players=4)", "python_american_page_one(players=4,dobon=true)",
                                         "python_modern_canasta"])
def test_a_seats_information_state_only_grows_below_its_first_line(game_string):
    """What transcript relies on: each move adds lines to a seat's information
    state and rewrites only its first (the seat's own hand)."""
    game = pyspiel.load_game(game_string)
    rng = random.Random(3)
    for _ in range(3):
        state = game.new_initial_state()
        before = [state.information_state_string(p).split("\n") for p in range(game.num_players())]
        while not state.is_terminal() and len(state.history()) < 600:
            legal = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
            state.apply_action(rng.choice(legal))
            for p in range(game.num_players()):
                now = state.information_state_string(p).split("\n")
                assert now[1:len(before[p])] == before[p][1:], (p, len(state.history()))
                before[p] = now
