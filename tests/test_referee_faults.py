"""The referee (eval/referee.py, driven by eval/play.py; eval/workers.py) pins every fault on the seat whose
bot caused it: an answer that is not an action id, sys.exit anywhere in a bot's
code, a bot that closes its worker's file descriptors, one that plays on the
state it is handed, and calls other than moves held to the time limit."""

from __future__ import annotations

import pyspiel
import pytest

import games  # noqa: F401
from agents import make_bot
from agents.base import CardBot
from games.chance import DealChance
from eval.config import TournamentConfig
from agents.faults import CRASHED, ILLEGAL, RAISED, TIMEOUT
from eval.play import GamePlayer, Trace, decode_history, play_deal
from eval.referee import PROBE_SIZE, BotFault, Moves
from eval.storage import ResultsDB
from eval.tournament import planned_games, run_tournament
from tests.harness_bots import TEST_BOTS, FloatBot, SlowHookBot, TamperingBot

PAGE_ONE = "python_page_one(players=4)"


def _outcome(record) -> tuple:
    return (record.key, record.seats, record.returns, record.length, record.move_counts, record.fault_seat,
            record.fault_kind)


def _stored(path) -> list:
    with ResultsDB.read(path) as db:
        return list(db.games(history=True))


def _bots(game: pyspiel.Game, odd: pyspiel.Bot, seat: int) -> list[pyspiel.Bot]:
    bots = [make_bot("random", game, s, s) for s in range(game.num_players())]
    bots[seat] = odd
    return bots


# ------------------------------------------------------------------ answers
def test_a_float_answer_is_an_illegal_move_of_its_seat():
    """3.0 equals action 3 but is not one: the game refuses it, and the referee
    blamed nobody (the game was void); it is the mover's illegal move."""
    game = pyspiel.load_game(PAGE_ONE)
    with pytest.raises(BotFault) as caught:
        play_deal(game, _bots(game, FloatBot(game, 2, 0), 2), DealChance(1), Moves(4), [0.0] * PROBE_SIZE, None)
    assert caught.value.seat == 2 and caught.value.kind == ILLEGAL
    assert "(float), not an action id" in str(caught.value)


class NumpyIntBot(CardBot):
    """Answers a legal action as a numpy integer, as a network's argmax gives it."""

    def step(self, state) -> int:
        import numpy as np
        return np.int64(state.legal_actions()[-1])


def test_a_numpy_integer_answer_is_an_action():
    game = pyspiel.load_game(PAGE_ONE)
    bots = _bots(game, NumpyIntBot(1), 1)
    state, decisions = play_deal(game, bots, DealChance(1), Moves(4), [0.0] * PROBE_SIZE, None)
    assert state.is_terminal() and decisions > 4


# ------------------------------------------------------------------ sys.exit
@pytest.mark.parametrize("where", ["make", "restart_at", "inform_action", "step"])
def test_sys_exit_in_a_bot_forfeits_its_seat(where):
    """SystemExit is no Exception: it went past the referee and ended the worker,
    voiding the game, in the factory, restart_at and inform_action."""
    config = TournamentConfig.create(PAGE_ONE, ["random", "rules", f"bad=t_sys_exit(where={where})"], deals=2,
                                     bot_modules=[("t_sys_exit", TEST_BOTS["t_sys_exit"])])
    player = GamePlayer(config)
    bad = config.agent_names.index("bad")
    faults = 0
    for task in planned_games(config):
        record = player.play(task, [0.0] * PROBE_SIZE)
        if record.fault_kind is None:   # its factory exits for every seat but 0 (the parent's check makes seat 0)
            assert where == "make" and [s for s, a in enumerate(task.seats) if a == bad] == [0]
            continue
        faults += 1
        assert record.fault_kind == RAISED and task.seats[record.fault_seat] == bad, record.error
        assert f"{'make_bot' if where == 'make' else where}: called sys.exit(0)" in record.error
        assert record.returns[record.fault_seat] == -1.0
    assert faults >= 4


def test_sys_exit_anywhere_is_blamed_in_a_tournament_and_voids_nothing(tmp_path):
    """The same through the worker processes: every game is rated, none void. A
    KeyboardInterrupt in a worker (which ignores SIGINT) is a bot's too."""
    agents = ["random", "ctrl_c=t_interrupts",
              *(f"{w}=t_sys_exit(where={w})" for w in ("make", "restart_at", "inform_action", "step"))]
    config = TournamentConfig.create(PAGE_ONE, agents, deals=6,
                                     bot_modules=[(n, TEST_BOTS[n]) for n in ("t_sys_exit", "t_interrupts")])
    summary = run_tournament(config, tmp_path / "r.db", workers=1, progress=False, bootstrap=0)
    assert summary.games == 24 and summary.void == 0
    blamed = set()
    for record in _stored(tmp_path / "r.db"):
        if record.fault_kind is not None:
            culprit = config.agent_names[record.seats[record.fault_seat]]
            blamed.add(culprit)
            assert record.fault_kind == RAISED, record.error
            assert ("KeyboardInterrupt" if culprit == "ctrl_c" else "sys.exit(0)") in record.error
    assert "ctrl_c" in blamed and "random" not in blamed


# ------------------------------------------------------------------ file descriptors
def test_a_bot_that_closes_its_workers_file_descriptors_is_blamed(tmp_path):
    """Its worker loses its pipe to the parent; the innocent seat that happened to be
    running when that showed was blamed, or the game voided. Now the worker names
    the game, and a replay that checks the pipe after every call names the seat."""
    agents = ["random", "rules", "r2=rules", "r3=random", "closer=t_closes_fds"]
    config = TournamentConfig.create(PAGE_ONE, agents, deals=5, time_limit=10,
                                     bot_modules=[("t_closes_fds", TEST_BOTS["t_closes_fds"])])
    summary = run_tournament(config, tmp_path / "r.db", workers=2, progress=False, bootstrap=0)
    records = _stored(tmp_path / "r.db")
    closer = config.agent_names.index("closer")
    player = GamePlayer(config)
    assert summary.void == 0 and len(records) == 20
    innocent = 0
    for record in records:
        if closer not in record.seats:      # untouched: as played in one process
            innocent += 1
            assert _outcome(record) == _outcome(player.play(next(t for t in planned_games(config)
                                                                 if t.key == record.key), [0.0] * PROBE_SIZE))
            continue
        assert record.fault_kind == CRASHED and record.seats[record.fault_seat] == closer, record.error
        assert "closed or replaced the worker's pipe" in record.error
    assert innocent == 4


def test_a_bot_that_closes_the_descriptors_and_then_raises_is_blamed_for_the_pipe(tmp_path):
    """The pipe is checked after a call that raised too: the replay names the seat."""
    config = TournamentConfig.create("python_page_one(players=2)", ["random", "closer=t_closes_fds(raises=true)"],
                                     deals=2, time_limit=10,
                                     bot_modules=[("t_closes_fds", TEST_BOTS["t_closes_fds"])])
    run_tournament(config, tmp_path / "r.db", workers=1, progress=False, bootstrap=0)
    records = _stored(tmp_path / "r.db")
    assert len(records) == 4
    for record in records:
        assert record.fault_kind == CRASHED and config.agent_names[record.seats[record.fault_seat]] == "closer"
        assert "closed or replaced the worker's pipe" in record.error


# ------------------------------------------------------------------ the state handed to a bot
def test_a_bot_that_plays_on_the_state_it_is_handed_forfeits_and_the_record_is_the_referees():
    game = pyspiel.load_game(PAGE_ONE)
    trace = Trace()
    with pytest.raises(BotFault) as caught:
        play_deal(game, _bots(game, TamperingBot(game, 3, 0), 3), DealChance(2), Moves(4), [0.0] * PROBE_SIZE,
                  None, trace)
    assert caught.value.seat == 3 and caught.value.kind == ILLEGAL
    assert "changed the game state it was handed in step" in str(caught.value)
    recorded = trace.history().actions
    assert len(trace.state.history()) > len(recorded), "the tampering bot's move is in the state, not the record"
    replay = game.new_initial_state()
    for action in recorded:
        replay.apply_action(action)
    assert replay.current_player() == 3, "the record stops where seat 3 was to move"


class CoreTamperer(CardBot):
    """Plays its move on the rules core behind the state (not through the wrapper)."""

    def step(self, state) -> int:
        action = state.legal_actions()[0]
        state.core.apply_action(action)
        return action


class Listener(CardBot):
    """Hears every move; with `tamper`, plays the move it hears on the state first."""

    def __init__(self, player: int, tamper: bool):
        super().__init__(player)
        self.tamper = tamper

    def inform_action(self, state, player_id: int, action: int) -> None:
        if self.tamper:
            state.apply_action(action)

    def step(self, state) -> int:
        return state.legal_actions()[0]


class CloneSearcher(CardBot):
    """Plays its moves out on a clone of the state, as a search does: allowed."""

    def step(self, state) -> int:
        trial = state.clone()
        while not trial.is_terminal():
            trial.apply_action(trial.legal_actions()[0])
        return state.legal_actions()[0]


@pytest.mark.parametrize("bot, where", [(CoreTamperer(1), "step"), (Listener(1, tamper=True), "inform_action")])
def test_tampering_through_the_core_or_when_told_of_a_move_is_caught(bot, where):
    game = pyspiel.load_game(PAGE_ONE)
    with pytest.raises(BotFault) as caught:
        play_deal(game, _bots(game, bot, 1), DealChance(3), Moves(4), [0.0] * PROBE_SIZE, None)
    assert caught.value.seat == 1 and f"changed the game state it was handed in {where}" in str(caught.value)


@pytest.mark.parametrize("game_string", [PAGE_ONE, "python_modern_canasta", "kuhn_poker"])
def test_bots_that_only_read_or_clone_the_state_play_on(game_string):
    """The seal's false alarms: a clone shares the core until it is played on;
    a state without a core (OpenSpiel's C++ games) is sealed by its move number."""
    game = pyspiel.load_game(game_string)
    n = game.num_players()
    bots = [CloneSearcher(0), Listener(1, tamper=False)] + [make_bot("random", game, s, s) for s in range(2, n)]
    trace = Trace()
    state, decisions = play_deal(game, bots, DealChance(5), Moves(n), [0.0] * PROBE_SIZE, None, trace)
    assert state.is_terminal() and decisions >= 2
    assert trace.history().actions == list(state.history())


def test_tampering_in_a_tournament_is_blamed_and_every_stored_history_replays(tmp_path):
    config = TournamentConfig.create(PAGE_ONE, ["random", "rules", "cheat=t_tampers"], deals=4,
                                     bot_modules=[("t_tampers", TEST_BOTS["t_tampers"])])
    summary = run_tournament(config, tmp_path / "r.db", workers=1, progress=False, bootstrap=0)
    cheat = config.agent_names.index("cheat")
    game = pyspiel.load_game(PAGE_ONE)
    assert summary.void == 0
    for record in _stored(tmp_path / "r.db"):
        assert record.fault_kind == ILLEGAL and record.seats[record.fault_seat] == cheat, record.error
        (deal,) = decode_history(record.history)
        replay = game.new_initial_state()
        for action in deal.actions:
            replay.apply_action(action)
        assert replay.current_player() == record.fault_seat


# ------------------------------------------------------------------ the time limit
@pytest.mark.parametrize("where", ["restart_at", "inform_action"])
def test_a_slow_hook_is_held_to_the_time_limit(where):
    """Only moves were timed: a hook could take any time short of the watchdog's minute."""
    game = pyspiel.load_game(PAGE_ONE)
    slow = SlowHookBot(game, 2, 0, where=where, seconds=0.05)
    with pytest.raises(BotFault) as caught:
        play_deal(game, _bots(game, slow, 2), DealChance(1), Moves(4), [0.0] * PROBE_SIZE, 0.01)
    assert caught.value.seat == 2 and caught.value.kind == TIMEOUT
    assert f"in {where} (limit 0.01 s)" in str(caught.value)


def test_a_hook_that_hangs_is_stopped_at_the_moves_deadline_not_a_minute(tmp_path):
    """A hook ran under the 60 s deadline of making a bot, whatever --time-limit said."""
    agents = ["random", "hangs_at_start=t_slow_hook(where=restart_at)", "hangs_when_told=t_slow_hook(where=inform_action)"]
    config = TournamentConfig.create("python_page_one(players=2)", agents, deals=3, time_limit=0.2,
                                     bot_modules=[("t_slow_hook", TEST_BOTS["t_slow_hook"])])
    summary = run_tournament(config, tmp_path / "r.db", workers=2, progress=False, bootstrap=0)
    assert summary.void == 0
    blamed = set()
    for record in _stored(tmp_path / "r.db"):
        culprit = config.agent_names[record.seats[record.fault_seat]]
        assert record.fault_kind == TIMEOUT and culprit != "random", record.error
        assert "restart_at or inform_action ran past 1.4 s (limit 0.2 s); worker killed" in record.error
        blamed.add(culprit)
    assert blamed == {"hangs_at_start", "hangs_when_told"}
