"""Whole tournaments: the same results whatever runs them, resuming after SIGKILL,
bots that fail in every way, match formats, partnerships, SPRT and the CLI."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import pytest

from eval.config import TournamentConfig
from agents.faults import CRASHED, ILLEGAL, RAISED, TIMEOUT
from eval.play import GamePlayer
from eval.referee import PROBE_SIZE
from eval.sprt import H1, run_sprt
from eval.storage import ResultsDB
from eval.tournament import load_summary, planned_games, run_tournament
from scripts.cli import main
from tests.harness_bots import TEST_BOTS

ROOT = Path(__file__).resolve().parent.parent
PAGE_ONE = "python_page_one(players=4)"


def outcome(record) -> tuple:
    """What a game decided (not how long it took)."""
    return (record.key, record.seats, record.chance_seed, record.returns, record.length,
            record.move_counts, record.deal_records, record.fault_seat, record.fault_kind)


def stored(path) -> list[tuple]:
    with ResultsDB.read(path) as db:
        return [outcome(r) for r in db.games()]


def reference(config: TournamentConfig) -> list[tuple]:
    """The tournament played in this process, one game after another."""
    player = GamePlayer(config)
    return [outcome(player.play(t, [0.0] * PROBE_SIZE)) for t in planned_games(config)]


def test_results_are_the_same_for_any_worker_count_and_backend(tmp_path, monkeypatch):
    """The Ray run starts its own instance although another cluster's address is about (a Ray
    test beside it, in parallel, leaves one under /tmp/ray; a stale RAY_ADDRESS reads the same):
    joining it, ray.init refused num_cpus or played on a cluster that another test then stopped."""
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")
    config = TournamentConfig.create(PAGE_ONE, ["random", "rules", "r2=random"], deals=10, seed=4)
    expected = reference(config)
    summaries = []
    for name, workers, backend in (("one", 1, "local"), ("two", 2, "local"), ("ray", 2, "ray")):
        summaries.append(run_tournament(config, tmp_path / f"{name}.db", workers=workers,
                                        backend_name=backend, progress=False, bootstrap=200))
        assert stored(tmp_path / f"{name}.db") == expected, name
    untimed = [[replace(row, seconds_per_move=0.0) for row in s.rows] for s in summaries]
    assert untimed[0] == untimed[1] == untimed[2]
    assert summaries[0].games == len(expected) == 10 * 4


def _count(path: Path) -> int:
    """Games stored so far, read by a connection that is closed at once: one left
    open would lose its locks when this process next opens the file (POSIX locks
    are per process), and another process could then reset the WAL under it."""
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
            return conn.execute("SELECT count(*) FROM games").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_a_run_killed_with_sigkill_resumes_without_losing_or_repeating_a_game(tmp_path):
    path = tmp_path / "r.db"
    command = [sys.executable, "-m", "scripts.cli", "tournament", "--results", str(path), "--deals", "24",
               "--agent", "random", "--agent", "t_sleepy", "--register", f"t_sleepy={TEST_BOTS['t_sleepy']}",
               "--workers", "2", "--quiet", "--no-files", "--bootstrap", "0"]
    config = TournamentConfig.create(PAGE_ONE, ["random", "t_sleepy"], deals=24,
                                     bot_modules=[("t_sleepy", TEST_BOTS["t_sleepy"])])
    total = len(planned_games(config))
    run = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while _count(path) < 12 and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert run.poll() is None, f"the run ended before it could be killed: {run.stderr.read().decode()}"
        run.send_signal(signal.SIGKILL)
    finally:
        run.wait()
    before_kill = stored(path)
    assert 12 <= len(before_kill) < total

    resumed = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    after = stored(path)
    assert after == reference(config)                 # every game once, as an unbroken run plays it
    assert all(game in after for game in before_kill)  # nothing stored was lost or replaced
    assert "| t_sleepy |" in resumed.stdout


def test_faulty_bots_lose_their_games_and_the_tournament_goes_on(tmp_path):
    faulty = {"t_raises": RAISED, "t_illegal": ILLEGAL, "t_slow": TIMEOUT, "t_hangs": TIMEOUT,
              "t_exits": CRASHED, "t_killed": CRASHED}
    agents = ["random", "rules", *(n for n in faulty if n != "t_slow"), "t_slow=t_slow(seconds=0.6)"]
    config = TournamentConfig.create("python_page_one(players=2)", agents, deals=8, time_limit=0.3,
                                     bot_modules=[(n, TEST_BOTS[n]) for n in faulty])
    summary = run_tournament(config, tmp_path / "r.db", workers=2, progress=False, bootstrap=0)
    names = config.agent_names
    with ResultsDB.read(tmp_path / "r.db") as db:
        records = list(db.games())
    assert len(records) == len(planned_games(config)) == 16
    player = GamePlayer(config)
    healthy = {t.key: outcome(player.play(t, [0.0] * PROBE_SIZE)) for t in planned_games(config)
               if not {names[a] for a in t.seats} & set(faulty)}
    assert healthy
    blamed = set()
    for r in records:
        if r.key in healthy:          # untouched by the faults, even if a dead worker held it
            assert outcome(r) == healthy[r.key] and r.fault_kind is None
            continue
        culprit = names[r.seats[r.fault_seat]]
        assert faulty[culprit] == r.fault_kind, r.error
        assert r.returns[r.fault_seat] == -1.0 and sum(r.returns) == 0.0
        blamed.add(culprit)
        if culprit == "t_exits":
            assert "exit code 3" in r.error
        if culprit == "t_killed":
            assert "SIGKILL" in r.error
        if culprit == "t_hangs":
            assert "worker killed" in r.error
    assert blamed == set(faulty)
    assert len(summary.faults) == sum(r.fault_kind is not None for r in records)
    assert {f.agent for f in summary.faults} == set(faulty)


def test_matches_of_several_deals_are_rated_by_their_result(tmp_path):
    config = TournamentConfig.create(PAGE_ONE, ["random", "rules"], deals=3,
                                     match="tests.harness_bots:fixed_deals(deals=3)")
    summary = run_tournament(config, tmp_path / "r.db", workers=2, progress=False, bootstrap=0)
    with ResultsDB.read(tmp_path / "r.db") as db:
        records = list(db.games())
    assert records and summary.games == len(records)
    for r in records:
        assert len(r.deal_records) == 3
        assert r.returns == pytest.approx([sum(d[s] for d in r.deal_records) for s in range(4)])
    assert len({tuple(map(tuple, r.deal_records)) for r in records}) > 1


def test_partnerships_seat_one_agent_per_side_and_compare_only_opponents(tmp_path):
    config = TournamentConfig.create(PAGE_ONE, ["random", "rules", "r2=random"], deals=6, teams="0,2 1,3")
    summary = run_tournament(config, tmp_path / "r.db", workers=1, progress=False, bootstrap=0)
    with ResultsDB.read(tmp_path / "r.db") as db:
        records = list(db.games())
    assert len(records) == 12
    assert all(r.seats[0] == r.seats[2] and r.seats[1] == r.seats[3] for r in records)
    # each game is one comparison between the two agents it seats
    assert sum(summary.met[a][b] for a in range(3) for b in range(a + 1, 3)) == len(records)


def test_sprt_stops_once_it_knows_and_resumes_to_the_same_verdict(tmp_path):
    config = TournamentConfig.create("python_page_one(players=2)", ["random", "rules"], deals=400)
    result = run_sprt(config, tmp_path / "s.db", "random", "rules", elo0=0, elo1=30, workers=2, progress=False)
    assert result.verdict == H1 and result.deals < 400
    with ResultsDB.read(tmp_path / "s.db") as db:
        stored_games = len(list(db.games()))
    assert result.games <= stored_games < 400 * 2
    again = run_sprt(config, tmp_path / "s.db", "random", "rules", elo0=0, elo1=30, workers=2, progress=False)
    assert again == result


def test_cli_tournament_prints_and_writes_reports_and_report_reprints_them(tmp_path, capsys):
    path = tmp_path / "cli.db"
    args = ["tournament", "--game", "python_page_one(players=3)", "--agent", "random", "--agent",
            "fast=rules", "--deals", "4", "--workers", "1", "--results", str(path), "--quiet", "--bootstrap", "50"]
    main(args)
    printed = capsys.readouterr().out
    assert "| agent | Elo | 95% interval |" in printed and "| fast |" in printed
    for ext in (".md", ".csv", ".png"):
        assert path.with_suffix(ext).stat().st_size > 0
    report = json.loads(path.with_suffix(".json").read_text())
    assert sorted(report["agents"]) == ["fast", "random"] and report["games"] == 12
    assert path.with_suffix(".csv").read_text().splitlines()[0].startswith("name,spec,elo,elo_low,elo_high")
    main(["report", str(path), "--bootstrap", "50", "--no-files"])
    assert capsys.readouterr().out.split("\n\n")[2] == printed.split("\n\n")[2]   # the same rating table
    assert load_summary(path, bootstrap=50).games == 12

    with pytest.raises(SystemExit) as exit_info:
        main(["tournament", "--agent", "random", "--agent", "nosuch", "--results", str(tmp_path / "x.db")])
    assert exit_info.value.code == 2
    assert "unknown bot 'nosuch'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["report", str(tmp_path / "missing.db")])
    assert "no such results file" in capsys.readouterr().err
    assert not (tmp_path / "missing.db").exists()


def test_a_worker_that_dies_once_plays_its_game_again_in_a_fresh_one_and_nobody_forfeits(tmp_path):
    marker = tmp_path / "died"
    config = TournamentConfig.create("python_page_one(players=2)", ["random", f"once=t_dies_once(marker={marker})"],
                                     deals=6, bot_modules=[("t_dies_once", TEST_BOTS["t_dies_once"])])
    run_tournament(config, tmp_path / "r.db", workers=2, progress=False, bootstrap=0)
    assert marker.exists()                          # a worker did die, once
    assert stored(tmp_path / "r.db") == reference(config)      # every game as if it had not


def test_a_worker_killed_from_outside_costs_no_game(tmp_path):
    from eval.workers import LocalPool
    config = TournamentConfig.create(PAGE_ONE, ["random", "t_sleepy"], deals=12,
                                     bot_modules=[("t_sleepy", TEST_BOTS["t_sleepy"])])
    with LocalPool(config, 2) as pool:
        games = pool.run(planned_games(config))
        played = [next(games)]
        victim = pool.workers[0].process
        os.kill(victim.pid, signal.SIGKILL)         # mid-game: it has more queued
        played += list(games)
        assert victim.exitcode == -signal.SIGKILL and pool.started == 3
    assert sorted(outcome(r) for r in played) == reference(config)


def test_a_worker_dead_before_its_next_batch_is_sent_costs_no_game(monkeypatch):
    # The race the test above can lose: the worker is dead, and its pipe broken, by the time
    # the pool next tops up its queue (two games deep here, so topped up after every game).
    import eval.workers
    from eval.workers import LocalPool
    monkeypatch.setattr(eval.workers, "QUEUE_SECONDS", 0.0)
    config = TournamentConfig.create(PAGE_ONE, ["random", "t_sleepy"], deals=6,
                                     bot_modules=[("t_sleepy", TEST_BOTS["t_sleepy"])])
    with LocalPool(config, 2) as pool:
        games = pool.run(planned_games(config))
        played = [next(games)]
        for w in pool.workers:
            os.kill(w.process.pid, signal.SIGKILL)
            w.process.join()
        played += list(games)
        assert pool.started == 4
    assert sorted(outcome(r) for r in played) == reference(config)


def test_the_progress_line_names_a_game_whose_bot_has_been_thinking_long(monkeypatch):
    import eval.workers
    from eval.workers import LocalPool
    monkeypatch.setattr(eval.workers, "WAIT_SHOWN_SECONDS", 0.2)
    # One move of 1.5 s: longer than the 0.2 s before a call is shown by more than the
    # pool's 1 s between looks, so a look falls inside it even on a loaded machine.
    config = TournamentConfig.create("python_page_one(players=2)", ["random", "slow=t_slow(seconds=1.5,moves=1)"],
                                     deals=1, bot_modules=[("t_slow", TEST_BOTS["t_slow"])])
    seen: list[str | None] = []
    with LocalPool(config, 1) as pool:
        records = list(pool.run(planned_games(config)[:1], on_wait=seen.append))
    assert records[0].fault_kind is None
    waiting = [text for text in seen if text]
    task = planned_games(config)[0]
    seat = task.seats.index(config.agent_names.index("slow"))
    assert waiting and all(text.startswith(f"deal 0 rotation 0: seat {seat} (slow) has been moving for ")
                           for text in waiting)
