"""The one referee (eval/referee.py): the harness plays a deal to its end with it, the table
steps it a move at a time, and both get the same game; a fault gives the forfeit the game's
sides declare, wherever it is played; a match goes on to the deal its format declares."""

from __future__ import annotations

import pyspiel
import pytest

import games  # noqa: F401
from agents import BOT_FACTORIES, make_bot
from agents.faults import ILLEGAL, RAISED, TIMEOUT
from eval.config import TournamentConfig, match_format
from eval.play import GamePlayer, Trace, play_deal
from eval.referee import PROBE_SIZE, BotFault, Match, Moves, Referee, forfeit_returns, seat_seed
from eval.tournament import planned_games
from games import registry
from games.chance import DealChance
from play import session as session_module
from play.options import GameSpec
from play.session import Session, table_match

PAGE_ONE = "python_page_one(players=3)"


def _bots(game: pyspiel.Game, specs: list[str], seed: int) -> list[pyspiel.Bot]:
    return [make_bot(spec, game, s, seed + s) for s, spec in enumerate(specs)]


@pytest.mark.parametrize("game_string, specs", [(PAGE_ONE, ["rules", "random", "rules"]),
                                                ("python_modern_canasta", ["rules", "random", "rules", "random"])])
def test_a_deal_played_through_or_stepped_as_the_table_does_is_the_same_deal(game_string, specs):
    """The harness's play_deal against the table's way: seat 0 a human (no bot) whose moves
    the caller feeds to `apply`, the others asked on a copy of the state and judged by `decide`."""
    game = pyspiel.load_game(game_string)
    trace = Trace()
    through, decisions = play_deal(game, _bots(game, specs, 40), DealChance(7), Moves(game.num_players()),
                                   [0.0] * PROBE_SIZE, 5.0, trace)
    assert through.is_terminal() and decisions > 10

    human, *others = _bots(game, specs, 40)
    referee = Referee(game, [None, *others], DealChance(7), time_limit=5.0)
    referee.start()
    while not referee.state.is_terminal():
        seat = referee.state.current_player()
        if referee.bots[seat] is None:
            referee.apply(seat, human.step(referee.state.clone()), 0.0)
        else:
            answer, seconds = referee.ask(seat, referee.state.clone())
            referee.decide(seat, answer, seconds)
    assert referee.state.history() == through.history()
    assert referee.state.returns() == through.returns()
    assert referee.decisions == decisions and len(referee.seconds) == len(trace.seconds) == decisions

    # The same, the bots' moves played in runs up to the human's turn.
    human, *others = _bots(game, specs, 40)
    referee = Referee(game, [None, *others], DealChance(7), time_limit=5.0)
    referee.start()
    referee.run_until_human()
    while not referee.state.is_terminal():
        assert referee.state.current_player() == 0, "the referee stops only at the seat without a bot"
        referee.apply(0, human.step(referee.state.clone()), 0.0)
        referee.run_until_human()
    assert referee.state.history() == through.history() and referee.state.returns() == through.returns()


def test_a_table_game_is_the_harness_game_of_the_same_seeds(tmp_path, monkeypatch):
    """A Session (the human's moves chosen by a bot, the others its own, in its thread's way)
    gives the record that play_deal gives with the same bots and the same chance seed."""
    made: list[tuple] = []

    def recording_make_bot(spec, game, seat, seed):
        made.append((spec, seat, seed))
        return make_bot(spec, game, seat, seed)
    monkeypatch.setattr(session_module, "make_bot", recording_make_bot)
    # auto=False: the harness asks the human's bot its only legal moves too (it draws for them)
    spec = GameSpec("python_page_one", {"players": 3}, 0, {1: "random", 2: "rules"}, None, 11, 5.0, 0.0, auto=False)
    session = Session(spec, "same", tmp_path, threaded=False)
    game = session.game
    human = make_bot("random", game, 0, 5)
    session.start()
    view = session.view()
    while view["status"] == "your_turn":
        view = session.act(human.step(session.state.clone()), view["turn"])
    assert view["status"] == "match_over" and view["fault"] is None
    (record,) = session.records

    made.sort(key=lambda m: m[1])
    bots = [make_bot("random", game, 0, 5)] + [make_bot(s, game, seat, seed) for s, seat, seed in made]
    state, _ = play_deal(game, bots, DealChance(spec.seed), Moves(3), [0.0] * PROBE_SIZE, 5.0)
    assert [m.action for m in record.moves] == state.history()
    assert record.returns == state.returns()


# ------------------------------------------------------------------ faults
FAULTS = [("t_illegal", "tests.harness_bots:IllegalBot", ILLEGAL),
          ("t_raises", "tests.harness_bots:RaisingBot", RAISED),
          ("t_slow", "tests.harness_bots:SlowMoveBot", TIMEOUT)]


@pytest.mark.parametrize("name, target, kind", FAULTS)
def test_a_fault_forfeits_as_the_sides_declare_in_the_harness_and_at_the_table(tmp_path, monkeypatch, name,
                                                                                target, kind):
    monkeypatch.setitem(BOT_FACTORIES, name, target)
    game_string = "python_page_one(players=2)"
    game = pyspiel.load_game(game_string)
    # The referee itself: the faulty seat and kind.
    bots = [make_bot("random", game, 0, 1), make_bot(name, game, 1, 2)]
    referee = Referee(game, bots, DealChance(3), time_limit=0.1)
    referee.start()
    with pytest.raises(BotFault) as caught:
        referee.run_until_human()
    assert caught.value.seat == 1 and caught.value.kind == kind
    sides = registry.lookup("python_page_one").sides(2)
    assert forfeit_returns(game, sides, 1) == [1.0, -1.0]

    # The harness: the record's fault and the forfeit.
    config = TournamentConfig.create(game_string, ["random", f"bad={name}"], deals=1, seed=3, time_limit=0.1)
    player = GamePlayer(config)
    for task in planned_games(config):
        record = player.play(task, [0.0] * PROBE_SIZE)
        bad = config.agent_names.index("bad")
        assert record.fault_kind == kind and record.seats[record.fault_seat] == bad, record.error
        assert record.returns == forfeit_returns(game, sides, record.fault_seat)

    # The table: the same kind, the same forfeit, the deal recorded with it.
    spec = GameSpec("python_page_one", {"players": 2}, 0, {1: name}, None, 3, 0.1, 0.0)
    session = Session(spec, f"fault-{kind}", tmp_path, threaded=False)
    session.run_bots()
    view = session.view()
    while view["status"] == "your_turn":
        view = session.act(view["actions"][0]["action"], view["turn"])
    assert view["status"] == "match_over" and view["fault"]["kind"] == kind and view["fault"]["seat"] == 1
    assert view["fault"]["error"].startswith(f"p1's bot ({name}) ")
    assert session.records[-1].returns == forfeit_returns(game, sides, 1)


def test_partners_forfeit_together():
    """Four-player Classic Canasta plays in partnerships: a seat's fault costs its partner too."""
    game = pyspiel.load_game("python_classic_canasta(players=4)")
    sides = registry.lookup("python_classic_canasta").sides(4)
    assert sides == [0, 1, 0, 1]
    returns = forfeit_returns(game, sides, 3)
    assert returns[1] == returns[3] == game.min_utility() and returns[0] == returns[2] > returns[1]


# ------------------------------------------------------------------ the match
def test_a_match_goes_on_to_the_deal_its_format_declares():
    """Classic Canasta to 2500: the second hand starts from the first's points, the next
    player first, as the game's registered match offer declares."""
    name = "python_classic_canasta"
    offer = registry.lookup(name).match
    params = {"players": 2}
    fmt = offer.table(2, params, 2500, 0)
    match = Match(name, params, fmt)
    first = match.next_params()
    assert first == {**params, **fmt.next_deal([])}
    game = match.next_game()
    referee = Referee(game, _bots(game, ["rules", "rules"], 5), DealChance(9))
    referee.start()
    referee.run_until_human()
    assert referee.state.is_terminal()
    match.finish(referee.state)
    (points,) = match.history
    assert points == fmt.deal_record(referee.state)
    second = match.next_params()
    assert second == {**params, **fmt.next_deal([points])}
    assert [second["score0"], second["score1"]] == points and second["first_player"] == 1
    assert match.next_game().get_parameters()["score0"] == points[0]


def test_the_table_and_the_harness_advance_a_match_alike():
    """American Page One over two deals: the table's match (play.session.table_match, the
    registry's offer; seed 4 makes seat 0 the first dealer) and the harness's (`--match
    deals=2`, the game's match.py, as GamePlayer builds it) deal the same games, deal by deal."""
    spec = GameSpec("python_american_page_one", {"players": 2}, 0, {1: "rules"}, "deals=2", 4, 5.0, 0.0)
    table, deals, target = table_match(spec, [])
    assert (deals, target) == (2, None)
    base = pyspiel.load_game("python_american_page_one(players=2)")
    harness = Match(base.get_type().short_name, base.get_parameters(), match_format(base, "deals=2"), game=base)
    for k in range(2):
        game = table.next_game()
        assert game.get_parameters() == harness.next_game().get_parameters()
        assert game.get_parameters()["deals_left"] == 1 - k
        referee = Referee(game, _bots(game, ["rules", "rules"], k), DealChance(seat_seed(4, k)))
        referee.start()
        referee.run_until_human()
        table.finish(referee.state)
        harness.finish(referee.state)
    assert table.next_params() is None and harness.next_game() is None
    assert table.result() == harness.result() == [sum(d[s] for d in table.history) for s in range(2)]


def test_the_referee_imports_no_table_and_no_command_line():
    """The table imports the referee, never the other way (docs/architecture.md)."""
    import subprocess
    import sys
    code = ("import sys, eval.referee; print(sorted(m for m in sys.modules "
            "if m.split('.')[0] in ('play', 'scripts', 'training', 'experiments')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]", done.stdout
