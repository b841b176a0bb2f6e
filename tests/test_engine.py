"""The engine protocol (docs/engine_protocol.md): both ends against each other,
what the harness sends, the C example engine, and engines that misbehave."""

from __future__ import annotations

import io
import json
import os
import random
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pyspiel
import pytest

import games  # noqa: F401
from agents import make_bot
from agents.engine import SeatCursor, close_engines, turn_message
from agents import faults as harness
from games.chance import DealChance
from eval.play import play_deal
from eval.referee import BotFault, Moves
from eval.tournament import TournamentConfig, run_tournament
from scripts.bench_engine import LongSuit
from scripts.engine_cli import serve
from tests import conformance

ROOT = Path(__file__).resolve().parents[1]
BAD = f"{sys.executable} {ROOT / 'tests' / 'data' / 'bad_engine.py'}"
GAMES = ("python_page_one(players=4)", "python_american_page_one(players=4,max_turns=40)",
         "python_modern_canasta")
BOTS = ("random", "rules", "ismcts(iterations=4)", "neural(strict_params=false)")   # (max_turns=40 above)


def our_engine(spec: str, game: str, seat: int, seed: int, cls_game: pyspiel.Game) -> pyspiel.Bot:
    cmd = f"{sys.executable} -m scripts.cli engine {spec} --game {game}"
    return make_bot(f"engine(cmd={cmd},cwd={ROOT})", cls_game, seat, seed)


def test_our_bots_move_the_same_through_the_protocol():
    """Seat 1 through `cardarena engine` and engine(cmd=...), the others in process:
    the same game, move for move, as all four in process, for every game and bot."""
    cases = [(g, b) for g in GAMES for b in BOTS]
    loaded = {g: pyspiel.load_game(g) for g in GAMES}
    with ThreadPoolExecutor(4) as pool:           # the engines start (import, torch) side by side
        engines = list(pool.map(lambda c: our_engine(c[1], c[0], 1, 11, loaded[c[0]]), cases))
    for (g, spec), engine in zip(cases, engines):
        game = loaded[g]
        n = game.num_players()
        through = [make_bot(spec, game, 0, 10), engine] + [make_bot(spec, game, s, 10 + s) for s in range(2, n)]
        inside = [make_bot(spec, game, s, 10 + s) for s in range(n)]
        a, decisions = play_deal(game, through, DealChance(4), Moves(n), [0.0] * 4, 60.0)
        b, _ = play_deal(game, inside, DealChance(4), Moves(n), [0.0] * 4, 60.0)
        assert decisions > 4 and a.history() == b.history(), f"{spec} at {g} moved otherwise through the engine"
    del engines, through
    close_engines()


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize("game_string", GAMES)
def test_a_turn_message_is_the_same_in_every_world_the_seat_cannot_tell_apart(game_string, version):
    game = pyspiel.load_game(game_string)
    rng = random.Random(3)
    checked = differ = 0
    for state in conformance.random_states(game, 12, 5):
        seat = state.current_player()
        world = state.resample_from_infostate(seat, rng.random)
        differ += world.history() != state.history()
        half = len(state.history()) // 2
        for since in (0, half):       # the first turn, and a turn after one at the half-way point
            messages = []
            for s in (state, world):
                cursor = SeatCursor(s)
                if since:
                    earlier = s.get_game().new_initial_state()
                    for action in s.history()[:since]:
                        earlier.apply_action(action)
                    turn_message(earlier, seat, cursor)
                messages.append(turn_message(s, seat, cursor, tensor=True, world_rng=random.Random(9),
                                             time_left=1.0, version=version, turn_id=5))
            assert messages[0]["view"] is not None      # the seat view too, compared with the rest
            assert messages[0] == messages[1], f"p{seat}'s message tells the true state from a world"
        checked += 1
    assert checked == 12 and differ >= 6, "the worlds compared should mostly differ from the true state"


@pytest.mark.parametrize("game_string", GAMES)
def test_every_player_action_is_public(game_string):
    """The turn message lists others' actions by id: each must be one every seat
    tells apart from the mover's other choices by its own information state."""
    game = pyspiel.load_game(game_string)
    for state in conformance.random_states(game, 15, 8):
        mover = state.current_player()
        after = []
        for action in state.legal_actions()[:6]:
            child = state.clone()
            child.apply_action(action)
            after.append([child.information_state_string(p) for p in range(game.num_players())])
        for p in range(game.num_players()):
            views = [seen[p] for seen in after]
            assert len(set(views)) == len(views), f"p{p} cannot tell apart p{mover}'s actions"


@pytest.mark.parametrize("game_string", GAMES + ("python_classic_canasta(players=3)",))
def test_an_engine_is_sent_the_tables_view_of_its_seat(game_string, tmp_path):
    """The turn's `view` is the seat view the table builds for that seat (games.view.seat_view),
    as the engine reads it, at every turn of a deal, valid against the game's schema."""
    from jsonschema import Draft202012Validator
    from games.view import seat_view, view_schema
    log = tmp_path / "views.jsonl"
    game = pyspiel.load_game(game_string)
    n = game.num_players()
    engine = make_bot(f"engine(cmd={sys.executable} {ROOT / 'tests' / 'data' / 'referee_engine.py'} "
                      f"logs_views {log})", game, 1, 0)
    bots = [make_bot("rules", game, s, s) for s in range(n)]
    bots[1] = engine
    final, decisions = play_deal(game, bots, DealChance(5), Moves(n), [0.0] * 4, 60.0)
    sent = [json.loads(line) for line in log.read_text().splitlines()]
    state, expected = game.new_initial_state(), []
    for action in final.history():
        if state.current_player() == 1:
            expected.append(seat_view(game, state, 1))
        state.apply_action(action)
    assert decisions > 4 and len(sent) == len(expected) > 2
    assert sent == json.loads(json.dumps(expected))
    validator = Draft202012Validator(view_schema(game))
    for view in sent:
        validator.validate(view)
    del engine, bots
    close_engines()


def test_the_c_engine_is_built_and_rated(tmp_path):
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is not installed: the C example engine cannot be built")
    binary = tmp_path / "longsuit"
    subprocess.run([gcc, "-O2", "-std=c99", "-Wall", "-Werror", "-o", str(binary),
                    str(ROOT / "examples" / "engines" / "longsuit.c")], check=True)
    game = pyspiel.load_game("python_page_one(players=4,jokers=2)")
    for deal in range(3):        # its heuristic, written in Python, makes the same moves
        bots = [make_bot(f"engine(cmd={binary})", game, 0, 0)] + [make_bot("rules", game, s, s) for s in (1, 2, 3)]
        a, _ = play_deal(game, bots, DealChance(deal), Moves(4), [0.0] * 4, 5.0)
        bots[0] = LongSuit(0)
        b, _ = play_deal(game, bots, DealChance(deal), Moves(4), [0.0] * 4, 5.0)
        assert a.history() == b.history()
    config = TournamentConfig.create("python_page_one(players=4,jokers=2)",
                                     ["random", "rules", f"longsuit=engine(cmd={binary},time_limit=5)"],
                                     deals=6, time_limit=5)
    summary = run_tournament(config, tmp_path / "r.db", workers=1, progress=False, bootstrap=0)
    assert summary.faults == [] and summary.games == 6 * 4
    rows = {row.name: row for row in summary.rows}
    assert rows["longsuit"].games > 0 and rows["longsuit"].elo == rows["longsuit"].elo     # rated (not NaN)
    close_engines()


def _bad(mode: str, at: int = 1, limit: float = 0.5) -> str:
    return f"engine(cmd={BAD} {mode} {at},time_limit={limit})"


@pytest.mark.parametrize("mode, kind, reason", [
    ("garbage", harness.RAISED, "malformed line"),
    ("noaction", harness.RAISED, 'not {"action"'),
    ("illegal", harness.ILLEGAL, "illegal action"),
    ("hang", harness.TIMEOUT, "silent past the time limit"),
    ("exit", harness.CRASHED, "exit code 3"),
    ("traceback", harness.RAISED, "traceback on stdout at move"),
])
def test_a_misbehaving_engine_forfeits_with_its_reason(mode, kind, reason):
    game = pyspiel.load_game("python_page_one(players=4)")
    bad = make_bot(_bad(mode, at=2), game, 0, 0)
    bots = [bad] + [make_bot("random", game, s, s) for s in (1, 2, 3)]
    with pytest.raises(BotFault) as caught:
        play_deal(game, bots, DealChance(1), Moves(4), [0.0] * 4, 5.0)
    fault = caught.value
    assert fault.seat == 0 and fault.kind == kind and reason in str(fault)
    assert "misbehaving" in str(fault) or mode == "traceback", "the engine's stderr is in the report"
    if mode == "traceback":
        assert "ZeroDivisionError" in str(fault)
    assert not bad.proc.alive(), "a faulty engine is killed"


@pytest.mark.parametrize("mode, kind, reason", [
    ("v2-stale", harness.RAISED, "engine answered turn 1 at turn 2: a stale line"),
    ("v2-double", harness.RAISED, "(a second answer to turn 2)"),
    ("v2-noid", harness.RAISED, "without this turn's id"),
    ("v2-badtext", harness.ILLEGAL, "not the words of one legal action"),
])
def test_a_version_2_engine_that_misbehaves_forfeits_with_its_reason(mode, kind, reason):
    """A line that answers another turn is named so: never read as this turn's answer."""
    game = pyspiel.load_game("python_page_one(players=4)")
    bad = make_bot(_bad(mode, at=2), game, 0, 0)
    assert bad.proc.protocol == 2
    bots = [bad] + [make_bot("random", game, s, s) for s in (1, 2, 3)]
    with pytest.raises(BotFault) as caught:
        play_deal(game, bots, DealChance(1), Moves(4), [0.0] * 4, 5.0)
    assert caught.value.seat == 0 and caught.value.kind == kind and reason in str(caught.value), str(caught.value)


def test_a_version_2_engine_may_answer_by_words_and_is_told_its_time_less_the_margin(tmp_path):
    """An engine that knows the rules but not our numbering answers by an action's words; it
    plays whole deals without a fault, and is told the time left once the message is built."""
    from agents.engine import MARGIN
    game = pyspiel.load_game("python_page_one(players=4)")
    words = make_bot(_bad("v2-words", limit=1.0), game, 0, 0)
    bots = [words] + [make_bot("random", game, s, s) for s in (1, 2, 3)]
    for deal in range(3):
        final, decisions = play_deal(game, bots, DealChance(deal), Moves(4), [0.0] * 4, 5.0)
        assert final.is_terminal()
    state = game.new_initial_state()
    while state.current_player() != 0:
        state.apply_action(state.chance_outcomes()[0][0] if state.is_chance_node() else state.legal_actions()[0])
    cursor = SeatCursor(state)
    message = turn_message(state, 0, cursor, version=2, turn_id=7, info_state=False)
    assert message["id"] == 7 and "info_state" not in message and "moves" not in message and "seen" not in message
    assert [e["i"] for e in message["events"]] == list(range(len(message["events"])))
    assert all(set(a) >= {"action", "text", "kind"} for a in message["legal"]) and 0 < MARGIN < 1
    close_engines()


def test_an_engine_with_a_clock_runs_out_of_it_and_is_told_what_is_left():
    game = pyspiel.load_game("python_page_one(players=4)")
    slow = make_bot(f"engine(cmd={BAD} v2-slow,time_limit=1,clock=1)", game, 0, 0)
    assert slow.proc.protocol == 2 and slow.clock == 1.0
    bots = [slow] + [make_bot("random", game, s, s) for s in (1, 2, 3)]
    with pytest.raises(BotFault) as caught:
        for deal in range(20):                  # one deal gives it few moves: play on until the clock is out
            play_deal(game, bots, DealChance(deal), Moves(4), [0.0] * 4, 5.0)
    assert caught.value.kind == harness.TIMEOUT and "ran out of its clock (1 s a deal)" in str(caught.value)
    close_engines()


def test_the_tournament_goes_on_past_faulty_engines(tmp_path):
    config = TournamentConfig.create("python_page_one(players=4)",
                                     ["random", "rules", f"garbage={_bad('garbage')}", f"exits={_bad('exit', 2)}"],
                                     deals=3, time_limit=5)
    summary = run_tournament(config, tmp_path / "f.db", workers=1, progress=False, bootstrap=0)
    assert summary.games == 3 * 4 and summary.void == 0        # every game played, none void
    assert len(summary.faults) == 12, "each game has a faulty engine, which forfeits it"
    assert {(f.agent, f.kind) for f in summary.faults} <= {("garbage", harness.RAISED), ("exits", harness.CRASHED)}
    assert all("malformed line" in f.error or "exit code 3" in f.error for f in summary.faults)
    assert {row.name for row in summary.rows} == {"random", "rules", "garbage", "exits"}
    close_engines()


def test_an_engine_process_is_kept_for_the_next_bot():
    game = pyspiel.load_game("python_page_one(players=4)")
    first = make_bot(_bad("garbage", at=99), game, 0, 0)
    pid = first.proc.proc.pid
    second = make_bot(_bad("garbage", at=99), game, 1, 0)
    assert second.proc.proc.pid != pid, "two seats at once get two processes"
    del first
    third = make_bot(_bad("garbage", at=99), game, 2, 0)
    assert third.proc.proc.pid == pid, "a bot let go leaves its process for the next"
    del second, third
    close_engines()


def test_bad_engine_specs_are_refused_in_one_line():
    game = pyspiel.load_game("python_page_one(players=4)")
    with pytest.raises(ValueError, match="cmd is required"):
        make_bot("engine", game, 0, 0)
    with pytest.raises(ValueError, match="No such file"):
        make_bot("engine(cmd=/no/such/engine)", game, 0, 0)
    with pytest.raises(ValueError, match="failed at hello"):
        make_bot(f"engine(cmd={sys.executable} -c pass)", game, 0, 0)
    with pytest.raises(ValueError, match="time_limit"):
        make_bot("engine(cmd=true,time_limit=-1)", game, 0, 0)


def _serve(*messages: dict, game: str = "python_page_one(players=4)") -> tuple[int, list[dict]]:
    source = io.BytesIO(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
    sink = io.BytesIO()
    code = serve("rules", pyspiel.load_game(game), source, sink)
    return code, [json.loads(line) for line in sink.getvalue().splitlines()]


def test_the_engine_side_refuses_another_protocol_or_game():
    hello = {"type": "hello", "protocol": 1, "game": "python_page_one(players=4)", "players": 4, "seat": 0,
             "time_limit": 1}
    code, replies = _serve(hello, {"type": "quit"})
    assert code == 0 and replies[0]["type"] == "hello" and replies[0]["world"] is True
    code, replies = _serve({**hello, "protocol": 3})
    assert code == 1 and "protocol 3" in replies[0]["message"]
    code, replies = _serve({**hello, "versions": [1, 2]}, {"type": "quit"})     # a version-2 harness
    assert code == 0 and replies[0]["protocol"] == 2 and replies[0]["world"] is True     # sparing it the rebuild
    code, replies = _serve({**hello, "versions": [1, 2]}, {"type": "turn", "id": 1, "events": [], "legal": []})
    assert code == 1 and "before any deal" in replies[-1]["message"]
    code, replies = _serve({**hello, "game": "python_modern_canasta"})
    assert code == 1 and "plays python_page_one" in replies[0]["message"]
    code, replies = _serve(hello, {"type": "turn", "world": []})
    assert code == 1 and "before any deal" in replies[-1]["message"]


V2_HELLO = {"type": "hello", "protocol": 1, "versions": [1, 2], "game": "python_page_one(players=4)", "players": 4,
            "seat": 0, "time_limit": 1}
V2_DEAL = {"type": "deal", "game": "python_page_one(players=4)", "seat": 0, "seed": 3}
EVENT = {"i": 0, "seat": 1, "text": "p1 leads first"}


@pytest.mark.parametrize("turn, said", [
    ({"events": "p1 leads first", "legal": []}, "without its events and legal actions"),
    ({"events": [{"i": 0}], "legal": []}, "has no text"),
    ({"events": [{**EVENT, "i": 3}], "legal": []}, "event 3 came where event 0 was due"),
    ({"events": [EVENT], "legal": [{"action": 2}]}, "without its words"),
    ({"events": [{**EVENT, "text": "p1 sings"}], "legal": [{"text": "4♠"}]}, "the events cannot be played"),
    ({"events": [{**EVENT, "text": "p0 leads first"}, {"i": 1, "text": "dealt 4♠"}], "legal": [{"text": "9♥"}]},
     "the events cannot be played"),
])
def test_a_version_2_turn_the_engine_cannot_play_gets_one_clear_error(turn, said):
    """Bad input from a harness: one error line naming it, exit 1, never a traceback; events
    that are not this game's (a line no move gives, legal actions that are not the seat's)
    are found by the rebuild, which gives up with its reason instead of guessing."""
    import games.rebuild
    limit = games.rebuild.MAX_REDRAWS
    games.rebuild.MAX_REDRAWS = 50              # a dead end is found in a few draws: no need to try 20,000
    try:
        code, replies = _serve(V2_HELLO, V2_DEAL, {"type": "turn", "id": 1, **turn})
    finally:
        games.rebuild.MAX_REDRAWS = limit
    assert code == 1 and replies[-1]["type"] == "error" and said in replies[-1]["message"], replies[-1]


def test_the_engine_command_refuses_a_bad_spec_in_one_line():
    run = subprocess.run([sys.executable, "-m", "scripts.cli", "engine", "nosuchbot", "--game",
                          "python_page_one"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "unknown bot 'nosuchbot'" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and run.stdout == ""


def test_a_state_of_another_game_starts_a_new_deal():
    """A bot stepped on a state that does not go on from the last (no restart_at
    between games) tells the engine of a new deal, with every move from its start."""
    game = pyspiel.load_game("python_page_one(players=4)")
    bot = make_bot(_bad("garbage", at=99), game, 0, 0)
    for seed in (1, 2):
        state = next(s for s in conformance.random_states(game, 50, seed) if s.current_player() == 0)
        assert bot.step(state) in state.legal_actions()
        assert bot._cursor.told == len(state.history())
    del bot
    close_engines()


def test_an_engine_dies_with_the_process_that_started_it():
    """A worker killed by the watchdog (SIGKILL) must not leave its engine behind,
    even one that never reads its input again."""
    script = (f"import sys, pyspiel, games\nfrom agents import make_bot\n"
              f"bot = make_bot({_bad('deaf')!r}, pyspiel.load_game('python_page_one'), 0, 0)\n"
              f"print(bot.proc.proc.pid, flush=True)\nimport time; time.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        pid = int(parent.stdout.readline())
        os.kill(pid, 0)                                  # the engine runs
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    os.kill(pid, 9)
    pytest.fail("the engine outlived the process that started it")
