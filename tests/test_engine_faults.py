"""The engine protocol's side of the referee (agents/engine.py, scripts/engine_cli.py):
our rule bot through the protocol plays every game as in process; an engine that ends
after its deal is started again; one that cannot play the game is refused at hello; a
line no message asked for is a protocol fault; an engine is told the harness's time
limit; pooled engines are told to quit; an engine's own children die with it."""

from __future__ import annotations

import io
import json
import os
import random
import sys
import time
from pathlib import Path

import pyspiel
import pytest

import games  # noqa: F401
from agents import make_bot
from agents.base import harness_limit
from agents.engine import SeatCursor, close_engines, deal_message, turn_message
from games.chance import DealChance
from eval.config import TournamentConfig
from agents.faults import RAISED
from eval.play import GamePlayer, decode_history, play_deal
from eval.referee import PROBE_SIZE, BotFault, Moves
from eval.storage import ResultsDB
from eval.tournament import planned_games, run_tournament
from scripts.engine_cli import EngineServer, serve

ROOT = Path(__file__).resolve().parents[1]
ODD = f"{sys.executable} {ROOT / 'tests' / 'data' / 'referee_engine.py'}"
PAGE_ONE = "python_page_one(players=4)"


def _odd(mode: str, arg: object = "") -> str:
    return f"engine(cmd={ODD} {mode} {arg})"


def _rules_engine(game: str) -> str:
    return f"engine(cmd={sys.executable} -m scripts.cli engine rules --game {game},cwd={ROOT})"


def _running(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie, killed and waiting for its parent, is not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _gone(pids: list[int], within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while any(_running(p) for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


# ------------------------------------------------------------------ the rule bot through the protocol
def _words_only(message: dict) -> dict:
    """A version-2 turn as an app that knows the rules but not our numbering writes it: the
    documented fields, no ids."""
    view = message["view"]
    for a in view["actions"]:
        del a["action"]
    for c in view["hand"]:
        c["action"] = None
    return {"type": "turn", "id": message["id"], "events": message["events"], "time_left": None, "view": view,
            "legal": [{k: v for k, v in a.items() if k != "action"} for a in message["legal"]]}


def _protocol_game(game: pyspiel.Game, deal: int, seat: int, version: int = 1) -> list[int]:
    """One deal of the rule bot at every seat, `seat` through the protocol's two
    ends (turn_message and `cardarena engine`'s server, JSON between them); version 2
    from words alone (the engine's answer is read by its words too)."""
    n = game.num_players()
    bots = [make_bot("rules", game, s, 100 * deal + s) for s in range(n)]
    server = EngineServer("rules", game)
    hello = {"type": "hello", "protocol": 1, "game": str(game), "players": n, "seat": seat}
    if version == 2:
        hello["versions"] = [1, 2]
    assert server.handle(hello).get("protocol", 1) == version
    server.handle(json.loads(json.dumps(deal_message(game, seat, 100 * deal + seat))))
    state = game.new_initial_state()
    cursor, rng = SeatCursor(state), random.Random(deal)
    chance = DealChance(deal)
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(chance(state))
            continue
        mover = state.current_player()
        if mover == seat and version == 2:
            message = _words_only(json.loads(json.dumps(turn_message(state, seat, cursor, version=2, turn_id=1,
                                                                     info_state=False))))
            words = server.handle(message)["text"]
            action = next(a for a in state.legal_actions() if state.action_to_string(seat, a) == words)
        elif mover == seat:
            message = json.loads(json.dumps(turn_message(state, seat, cursor, world_rng=rng)))
            action = server.handle(message)["action"]
        else:
            action = bots[mover].step(state)
        state.apply_action(action)
    return state.history()


def _in_process_game(game: pyspiel.Game, deal: int) -> list[int]:
    bots = [make_bot("rules", game, s, 100 * deal + s) for s in range(game.num_players())]
    state, _ = play_deal(game, bots, DealChance(deal), Moves(game.num_players()), [0.0] * PROBE_SIZE, None)
    return state.history()


@pytest.mark.parametrize("game_string, deals", [
    (PAGE_ONE, 120), ("python_page_one(players=3,jokers=2,until_last=true)", 60),
    ("python_american_page_one(players=4,max_turns=40)", 30), ("python_modern_canasta", 30),
    ("python_classic_canasta(players=2)", 16), ("python_classic_canasta(players=3)", 16)])
def test_the_rule_bot_plays_every_deal_through_the_protocol_as_in_process(game_string, deals):
    """The harness sent `world: null` (extend your last world by your own moves)
    whenever only the seat had moved, though what followed without an action (Page
    One's automatic passes) could tell the seat more than that world agreed with:
    the engine found its world did not match and forfeited."""
    game = pyspiel.load_game(game_string)
    for deal in range(deals):
        seat = deal % game.num_players()
        assert _protocol_game(game, deal, seat) == _in_process_game(game, deal), f"deal {deal}, seat {seat}"


@pytest.mark.parametrize("game_string, deals", [
    (PAGE_ONE, 40), ("python_page_one(players=2)", 12), ("python_page_one(players=6,empty_stock=reshuffle)", 12),
    ("python_page_one(players=3,jokers=2,until_last=true)", 12),
    ("python_american_page_one(players=4,max_turns=40)", 12), ("python_american_page_one(players=2)", 6),
    ("python_modern_canasta", 8), ("python_classic_canasta(players=2)", 5), ("python_classic_canasta(players=3)", 6),
    ("python_classic_canasta(players=4)", 6)])
def test_the_rule_bot_plays_every_deal_from_words_alone_as_in_process(game_string, deals):
    """Version 2, no world, no information-state text, no ids: `cardarena engine` rebuilds its
    seat's world from the events and plays every deal as in process, every seat in turn."""
    game = pyspiel.load_game(game_string)
    for deal in range(deals):
        seat = deal % game.num_players()
        assert _protocol_game(game, deal, seat, 2) == _in_process_game(game, deal), f"deal {deal}, seat {seat}"


def test_the_rebuild_finds_a_player_whose_hidden_cards_are_all_shown_late():
    """Classic Canasta for 2, deal 5, seat 1: p0's six hidden cards are exactly the 5 5 5 7 7 7
    it melds at once; worlds drawn one by one from the seat's information were not found in
    20,000 draws and the engine stopped. The rebuild
    now repairs its world's history (games/rebuild.py `_repair`) and plays the deal as in process."""
    game = pyspiel.load_game("python_classic_canasta(players=2)")
    assert _protocol_game(game, 5, 1, 2) == _in_process_game(game, 5)


def test_the_audits_tournament_plays_the_rule_bot_through_the_protocol_as_in_process(tmp_path):
    """The audit's command: deal 2 rotation 0 was forfeited. Each stored game must
    be the one the same tournament plays with the rule bot in process."""
    through = TournamentConfig.create(PAGE_ONE, [f"eng={_rules_engine(PAGE_ONE)}", "rules"], deals=10, seed=4)
    summary = run_tournament(through, tmp_path / "r.db", workers=2, progress=False, bootstrap=0)
    assert summary.faults == [] and summary.games == len(planned_games(through))
    inside = GamePlayer(TournamentConfig.create(PAGE_ONE, ["eng=rules", "rules"], deals=10, seed=4))
    with ResultsDB.read(tmp_path / "r.db") as db:
        stored = {g.key: g for g in db.games(history=True)}
    for task in planned_games(through):
        expected = inside.play(task, [0.0] * PROBE_SIZE)
        game = stored[task.key]
        assert decode_history(game.history)[0].actions == expected.deal_histories()[0].actions, task.key
        assert game.returns == expected.returns
    close_engines()


# ------------------------------------------------------------------ an engine that ends with its deal
@pytest.mark.parametrize("linger", [0.0, 0.3])
def test_an_engine_that_ends_after_its_deal_is_started_again(linger):
    """The pool handed its ended (or ending) process to the next game's bot, which
    forfeited that game. `linger`: it ends a moment after deal_end, so the next bot
    finds it still running and only learns at its first turn."""
    game = pyspiel.load_game(PAGE_ONE)
    pids = set()
    for deal in range(3):
        engine = make_bot(_odd("ends_after_deal", linger), game, 0, deal)
        bots = [engine] + [make_bot("random", game, s, s) for s in (1, 2, 3)]
        state, _ = play_deal(game, bots, DealChance(deal), Moves(4), [0.0] * PROBE_SIZE, 5.0)
        assert state.is_terminal()
        pids.add(engine.proc.proc.pid)
        del engine, bots
    assert len(pids) == 3, "each deal had a process of its own"
    close_engines()


def test_an_engine_that_ends_after_its_deal_plays_a_whole_tournament(tmp_path):
    config = TournamentConfig.create(PAGE_ONE, ["random", "rules", f"once={_odd('ends_after_deal')}"], deals=3,
                                     time_limit=5)
    summary = run_tournament(config, tmp_path / "r.db", workers=1, progress=False, bootstrap=0)
    assert summary.faults == [] and summary.games == 12
    close_engines()


# ------------------------------------------------------------------ refused at hello
def test_an_engine_whose_bot_cannot_play_the_game_is_refused_at_hello():
    """`cardarena engine neural --game <4 players>` said hello to a 3-player game,
    then crashed every game; the in-process bot is refused when it is made."""
    three = pyspiel.load_game("python_page_one(players=3)")
    spec = f"engine(cmd={sys.executable} -m scripts.cli engine neural --game {PAGE_ONE},cwd={ROOT})"
    with pytest.raises(ValueError, match="refused hello: neural cannot play python_page_one.*players=3"):
        make_bot(spec, three, 0, 0)
    with pytest.raises(ValueError, match="refused hello"):
        TournamentConfig.create("python_page_one(players=3)", ["random", f"net={spec}"], deals=1)
    with pytest.raises(ValueError, match="made for"):
        make_bot("neural", three, 0, 0)                 # as in process
    close_engines()


def test_the_engine_side_refuses_a_deal_its_bot_cannot_play():
    hello = {"type": "hello", "protocol": 1, "game": PAGE_ONE, "players": 4, "seat": 0, "time_limit": 1}
    deal = {"type": "deal", "game": "python_page_one(players=3)", "seat": 0, "seed": 0}
    source = io.BytesIO(b"".join(json.dumps(m).encode() + b"\n" for m in (hello, deal)))
    sink = io.BytesIO()
    code = serve("neural", pyspiel.load_game(PAGE_ONE), source, sink)
    replies = [json.loads(line) for line in sink.getvalue().splitlines()]
    assert code == 1 and replies[0]["type"] == "hello"
    assert replies[1]["type"] == "error" and "neural cannot play" in replies[1]["message"]


# ------------------------------------------------------------------ a line nobody asked for
def test_a_second_answer_to_a_turn_is_the_engines_protocol_fault():
    """It was read as the next turn's answer and reported as an illegal move."""
    game = pyspiel.load_game(PAGE_ONE)
    engine = make_bot(_odd("answers_twice"), game, 1, 0)
    bots = [make_bot("random", game, s, s) for s in range(4)]
    bots[1] = engine
    with pytest.raises(BotFault) as caught:
        play_deal(game, bots, DealChance(1), Moves(4), [0.0] * PROBE_SIZE, 5.0)
    assert caught.value.seat == 1 and caught.value.kind == RAISED
    assert "protocol fault: engine wrote a line that no message asked for" in str(caught.value)
    assert not engine.proc.alive()
    close_engines()


# ------------------------------------------------------------------ the time limit it is told
@pytest.mark.parametrize("tournament_limit, own, told", [(3.0, "", [3.0, 3.0]), (3.0, ",time_limit=1", [1.0, 1.0]),
                                                         (None, "", [None, None]),
                                                         (None, ",time_limit=2", [2.0, 2.0])])
def test_an_engine_is_told_the_limit_that_forfeits_it(tournament_limit, own, told):
    """It was told 60 s (its own default) whatever --time-limit said."""
    config = TournamentConfig.create(PAGE_ONE, ["random", f"told=engine(cmd={ODD} tells_limit{own})"], deals=1,
                                     time_limit=tournament_limit)
    player = GamePlayer(config)
    record = player.play(planned_games(config)[0], [0.0] * PROBE_SIZE)
    assert record.fault_kind == RAISED and json.dumps({"told": told}) in record.error, record.error
    close_engines()


def test_outside_a_harness_an_engine_is_told_its_own_limit_or_a_minute():
    game = pyspiel.load_game(PAGE_ONE)
    assert make_bot(_odd("tells_limit"), game, 0, 0).time_limit == 60.0
    assert make_bot(f"engine(cmd={ODD} tells_limit,time_limit=none)", game, 0, 0).time_limit is None
    with harness_limit(0.5):
        assert make_bot(f"engine(cmd={ODD} tells_limit,time_limit=2)", game, 0, 0).time_limit == 0.5
    close_engines()


# ------------------------------------------------------------------ ends: quit, process groups
def test_a_workers_pooled_engines_are_told_to_quit(tmp_path):
    """A worker ends by os._exit, which runs no atexit handler: its engines were
    killed (PR_SET_PDEATHSIG) without a quit."""
    log = tmp_path / "log"
    config = TournamentConfig.create(PAGE_ONE, ["random", f"q={_odd('logs_quit', log)}"], deals=2, time_limit=5)
    run_tournament(config, tmp_path / "r.db", workers=1, progress=False, bootstrap=0)
    said = [line.split() for line in log.read_text().splitlines()]
    hello = {pid for word, pid in said if word == "hello"}
    quit_ = {pid for word, pid in said if word == "quit"}
    assert len(hello - quit_) == 1, "every engine the worker kept was told to quit (one is this process's check)"
    close_engines()
    said = [line.split() for line in log.read_text().splitlines()]
    assert {pid for word, pid in said if word == "quit"} == hello


def _children(path: Path) -> list[int]:
    deadline = time.monotonic() + 10
    while not path.exists() or len(path.read_text().split()) < 3:
        assert time.monotonic() < deadline, "the forking engine never wrote its children's pids"
        time.sleep(0.01)
    return [int(p) for p in path.read_text().split()]


@pytest.mark.parametrize("end", ["quit", "fault"])
def test_what_an_engine_starts_ends_with_it(tmp_path, end):
    """A forking engine left its children running after it was quit or killed."""
    game = pyspiel.load_game(PAGE_ONE)
    pids = tmp_path / "pids"
    engine = make_bot(_odd("forks", pids), game, 0, 0)
    children = _children(pids)
    assert all(_running(p) for p in children)
    if end == "quit":
        del engine
        close_engines()
    else:
        engine.proc.fault(RAISED, "a fault")
    assert _gone(children), "the engine's children outlived it"


def test_a_stopped_engines_bot_writes_nothing_when_it_is_let_go():
    """A bot whose engine faulted mid-deal told it deal_end when let go, writing to
    its closed pipe's number: by then another engine's pipe could hold that number
    (a deal_end injected into another game's engine, which then refused its turn)."""
    game = pyspiel.load_game(PAGE_ONE)
    bad = make_bot(f"engine(cmd={sys.executable} {ROOT / 'tests' / 'data' / 'bad_engine.py'} garbage 2)", game, 0, 0)
    bots = [bad] + [make_bot("random", game, s, s) for s in (1, 2, 3)]
    try:
        play_deal(game, bots, DealChance(1), Moves(4), [0.0] * PROBE_SIZE, 5.0)
    except BotFault as fault:
        assert fault.seat == 0
    else:
        pytest.fail("the bad engine did not fault")
    stale = bad.proc.in_fd
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    os.dup2(write_end, stale)            # the number now names another pipe, as a later engine's would
    try:
        bad._lease.release()             # what letting the bot go does
        with pytest.raises(BlockingIOError):
            os.read(read_end, 1 << 16)
    finally:
        for fd in (stale, read_end, write_end):
            os.close(fd)
