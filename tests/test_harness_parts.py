"""The harness's parts on their own: seat schedule, chance policy, ratings, SPRT,
results file. The whole tournament is tested in test_tournament.py."""

from __future__ import annotations

import importlib.util
import itertools
import math
import random
import sqlite3
import sys
from collections import Counter, defaultdict
from fractions import Fraction

import numpy as np
import pyspiel
import pytest

import games  # noqa: F401
from agents import make_bot
from games.chance import DealChance
from eval.config import TournamentConfig, parse_agents
from agents.faults import ILLEGAL
from eval.play import GamePlayer, play_deal
from eval.referee import PROBE_SIZE, Moves, forfeit_returns
from eval.ratings import fit_elo, game_points, summarize
from eval.schedule import distinct_rotations, lineups, plan_games
from eval.sprt import H0, H1, bounds, expected_score, log_likelihood_ratio, SprtTracker
from eval.storage import ResultsDB, ResultsFileError
from eval.tournament import planned_games
from tests.harness_bots import TEST_BOTS

PAGE_ONE = "python_page_one(players=4)"


# ------------------------------------------------------------------ schedule
def test_every_agent_of_a_deal_sits_every_seat_with_the_same_cards():
    tasks = list(plan_games(4, 4, deals=6, seed=3))
    assert len(tasks) == 24
    for deal in range(6):
        games_of_deal = [t for t in tasks if t.deal == deal]
        assert len({t.chance_seed for t in games_of_deal}) == 1
        for seat in range(4):
            assert sorted(t.seats[seat] for t in games_of_deal) == [0, 1, 2, 3]
    assert len({t.chance_seed for t in tasks}) == 6


@pytest.mark.parametrize("seats,agents", [(4, 2), (4, 3), (3, 5), (2, 7), (6, 4)])
def test_lineups_share_places_equally_and_repeat_no_agent_when_there_are_enough(seats, agents):
    cycle = math.lcm(seats, agents) // seats
    stream = lineups(seats, agents, seed=1)
    chosen = [next(stream) for _ in range(3 * cycle)]
    counts = Counter(a for lineup in chosen for a in lineup)
    assert set(counts.values()) == {3 * cycle * seats // agents}
    if agents >= seats:
        assert all(len(set(lineup)) == seats for lineup in chosen)


def test_rotations_of_a_repeating_lineup_are_played_once_each():
    assert distinct_rotations((0, 1, 0, 1)) == 2
    assert distinct_rotations((0, 0, 1, 1)) == 4
    by_deal = defaultdict(list)
    for t in plan_games(4, 2, deals=20, seed=0):
        by_deal[t.deal].append(t.seats)
    for seatings in by_deal.values():
        first = seatings[0]
        rotations = {tuple(first[(s + r) % 4] for s in range(4)) for r in range(4)}
        assert sorted(seatings) == sorted(rotations)


def test_more_deals_extend_the_schedule_without_changing_it():
    short = list(plan_games(4, 3, deals=10, seed=5))
    long = list(plan_games(4, 3, deals=25, seed=5))
    assert long[:len(short)] == short


def test_an_agent_fills_a_side_or_partners_are_mixed():
    sides = ((0, 2), (1, 3))
    filled = list(plan_games(4, 3, deals=6, seed=0, sides=sides))
    for t in filled:
        assert t.seats[0] == t.seats[2] and t.seats[1] == t.seats[3] and t.seats[0] != t.seats[1]
    for deal in range(6):
        rotations = [t.seats for t in filled if t.deal == deal]
        assert len(rotations) == 2 and rotations[0][0] == rotations[1][1]
    mixed = list(plan_games(4, 4, deals=3, seed=0, sides=sides, fill_sides=False))
    assert len(mixed) == 12 and all(len(set(t.seats)) == 4 for t in mixed)


# -------------------------------------------------------------- chance policy
class ToyDeck:
    """A chance-only game: `deck(drawn)` gives the {outcome: copies} offered after
    the outcomes drawn so far."""

    def __init__(self, deck):
        self.deck, self.drawn = deck, []

    def chance_outcomes(self):
        offered = self.deck(self.drawn)
        total = sum(offered.values())
        return [(k, c / total) for k, c in offered.items()]


def leader_then_cards(drawn):
    """A leader among 3 seats (ids 0-2), two cards from four (ids 0-3), then the
    cards go back and one more is drawn."""
    if not drawn:
        return {0: 1, 1: 1, 2: 1}
    if len(drawn) < 3:
        return {c: 1 for c in range(4) if c not in drawn[1:]}
    return {c: 1 for c in range(4)}


def card_kinds(drawn):
    """Two copies of kind 0 and one each of kinds 1 and 2, drawn without
    replacement; kind 2 may not be drawn third; then the deck is whole again."""
    full = Counter({0: 2, 1: 1, 2: 1})
    if len(drawn) == 3:
        return dict(full)
    left = full - Counter(drawn)
    if len(drawn) == 2:
        left.pop(2, None)
    return dict(left)


def true_law(deck, draws):
    law = {}

    def walk(drawn, p):
        if len(drawn) == draws:
            law[tuple(drawn)] = p
            return
        offered = deck(drawn)
        for k, c in offered.items():
            walk(drawn + [k], p * Fraction(c, sum(offered.values())))
    walk([], Fraction(1))
    return law


def law_over_every_shuffle(deck, draws, shuffle_sizes):
    """The law of DealChance's draws, each possible sequence of shuffles once."""
    counts: Counter = Counter()
    for shuffles in itertools.product(*(itertools.permutations(range(n)) for n in shuffle_sizes)):
        chance = DealChance(0)
        feed = iter(shuffles)
        chance._shuffled = lambda cards, feed=feed: [cards[i] for i in next(feed)]
        state = ToyDeck(deck)
        for _ in range(draws):
            state.drawn.append(chance(state))
        counts[tuple(state.drawn)] += 1
    total = sum(counts.values())
    return {seq: Fraction(n, total) for seq, n in counts.items()}


@pytest.mark.parametrize("deck,shuffle_sizes", [(leader_then_cards, (3, 4, 4)), (card_kinds, (4, 4))])
def test_deal_chance_draws_exactly_from_the_games_law(deck, shuffle_sizes):
    """Every possible sequence of shuffles, enumerated: the draws follow the game's
    own probabilities exactly, through ids that change meaning, copies of one
    kind, outcomes a node leaves out, and cards that come back."""
    assert law_over_every_shuffle(deck, 4, shuffle_sizes) == true_law(deck, 4)


class BiasedCoin:
    def chance_outcomes(self):
        return [(0, 0.5), (1, 0.3), (2, 0.2)]


def test_non_uniform_chance_follows_its_probabilities():
    draws = Counter(DealChance(seed)(BiasedCoin()) for seed in range(6000))
    for outcome, p in enumerate((0.5, 0.3, 0.2)):
        assert abs(draws[outcome] / 6000 - p) < 4 * math.sqrt(p * (1 - p) / 6000)


def _chance_log(game, specs, seed):
    """Plays one deal; returns (hands dealt per seat, every card drawn after the deal)."""
    bots = [make_bot(s, game, p, 100 + p) for p, s in enumerate(specs)]
    chance = DealChance(seed)
    outcomes = []

    def recording(state):
        outcomes.append(chance(state))
        return outcomes[-1]
    play_deal(game, bots, recording, Moves(game.num_players()), [0.0] * PROBE_SIZE, None)
    n = game.num_players()
    dealt = outcomes[1:1 + 4 * n]
    return [sorted(dealt[s::n]) for s in range(n)], outcomes[1 + 4 * n:]


def test_replays_of_a_deal_meet_the_same_cards_whatever_is_played():
    game = pyspiel.load_game(PAGE_ONE)
    for seed in range(5):
        hands_a, draws_a = _chance_log(game, ["random", "rules", "random", "rules"], seed)
        hands_b, draws_b = _chance_log(game, ["rules", "rules", "random", "random"], seed)
        assert hands_a == hands_b
        common = min(len(draws_a), len(draws_b))
        assert draws_a[:common] == draws_b[:common]     # the stock's order is the deck's


# -------------------------------------------------------------------- ratings
def _two_player_records(deals: int):
    config = TournamentConfig.create("python_page_one(players=2)", ["random", "rules", "r2=random"], deals=deals)
    player = GamePlayer(config)
    probe = [0.0] * PROBE_SIZE
    return config, [player.play(t, probe) for t in plan_games(2, 3, deals, config.seed)]


def test_elo_fit_agrees_with_openspiel_on_two_player_records():
    from open_spiel.python.algorithms import elo as openspiel_elo
    config, records = _two_player_records(60)
    k = len(config.agents)
    wins, draws = np.zeros((k, k), int), np.zeros((k, k), int)
    for r in records:
        a, b = r.seats
        if r.returns[0] == r.returns[1]:
            draws[a, b] += 1
            draws[b, a] += 1
        elif r.returns[0] > r.returns[1]:
            wins[a, b] += 1
        else:
            wins[b, a] += 1
    theirs = openspiel_elo.compute_ratings_from_matrices(wins, draws, smoothing_factor=0.1)
    ours = fit_elo(wins + 0.5 * draws, anchor=0, prior=0.1)
    assert np.allclose(ours, theirs - theirs[0], atol=0.01)
    summary = summarize(config, records, anchor=config.agent_names[0], bootstrap=0)
    by_name = {row.name: row.elo for row in summary.rows}
    assert np.allclose([by_name[n] for n in config.agent_names], ours, atol=1e-6)


def test_elo_recovers_a_known_strength_within_its_interval():
    """Synthetic two-player games where b beats a with the probability of +150 Elo."""
    config = TournamentConfig.create("python_page_one(players=2)", ["a=random", "b=random"], deals=1)
    rng = random.Random(0)
    from eval.play import GameRecord
    records = []
    for deal in range(400):
        for rotation, seats in enumerate(((0, 1), (1, 0))):
            b_wins = rng.random() < expected_score(150)
            ret = [1.0, -1.0] if (seats[0] == 1) == b_wins else [-1.0, 1.0]
            records.append(GameRecord(deal, rotation, seats, 0, ret, 10, [0, 0], [0.0, 0.0], [0.0, 0.0]))
    summary = summarize(config, records, anchor="a", bootstrap=300)
    b = next(r for r in summary.rows if r.name == "b")
    assert b.elo_low < 150 < b.elo_high and b.elo_high - b.elo_low < 120
    assert summary.score[1][0] == pytest.approx(b.win_rate, abs=1e-9)


def test_partners_are_not_compared_and_sides_win_together():
    # seats 0,2 (agents 0 and 1) beat seats 1,3 (agents 2 and 1): canasta-like returns
    points, met = game_points([5.0, -5.0, 5.0, -5.0], (0, 2, 1, 1), (0, 1, 0, 1), 3)
    assert met[0, 2] == 1 and met[0, 1] == 1 and met[1, 2] == 1
    assert points[0, 2] == 1 and points[0, 1] == 1 and points[2, 1] == 0
    assert points[1, 2] == 1          # agent 1's seat 2 beat agent 2; its seat 3 is not agent 2's rival
    assert points[1, 1] == 0 and met[1, 1] == 0


@pytest.mark.parametrize("game_string", ["python_page_one(players=3)", "python_american_page_one(players=3)",
                                         "python_modern_canasta"])
@pytest.mark.parametrize("bad", ["t_illegal", "t_illegal_card", "t_listening_illegal_card"])
def test_an_illegal_move_loses_the_game_whoever_checks_it(game_string, bad):
    """Out-of-range moves are checked by the harness, in-range ones by the game
    (games.protocol, checks_actions), or by the harness when a bot would hear
    of the move first; each way the mover forfeits and is named."""
    config = TournamentConfig.create(game_string, [bad, "random"], deals=2,
                                     bot_modules=[(bad, TEST_BOTS[bad])])
    player = GamePlayer(config)
    for task in planned_games(config):
        record = player.play(task, [0.0] * PROBE_SIZE)
        culprit = record.seats[record.fault_seat]
        assert record.fault_kind == ILLEGAL and config.agent_names[culprit] == bad, record.error
        assert "illegal action" in record.error
        if bad == "t_illegal_card" and "canasta" not in game_string:
            assert "legal are" in record.error      # the game's own message, naming the legal moves


def test_the_fork_server_preloads_what_the_tournaments_bots_import():
    from eval.workers import worker_modules
    config = TournamentConfig.create(PAGE_ONE, ["random", "rules", "neural", "x=t_raises"], deals=1,
                                     bot_modules=[("t_raises", TEST_BOTS["t_raises"])])
    modules = worker_modules(config)
    assert modules[0] == "__main__" and len(modules) == len(set(modules))
    assert {"games", "eval.play", "agents.random_bot", "agents.rules", "agents.neural.bot",
            "tests.harness_bots"} <= set(modules)


def test_a_main_module_run_with_dash_m_has_its_imports_preloaded(monkeypatch):
    """`python -m scripts.cli`: the server cannot preload such a main module, and
    every worker would import its imports itself; they are preloaded by name."""
    import json
    import types

    import eval.ratings
    from eval.workers import worker_modules
    config = TournamentConfig.create(PAGE_ONE, ["random", "rules"], deals=1)
    main = types.ModuleType("__main__")
    main.__spec__ = importlib.util.find_spec("scripts.cli")
    main.json, main.summarize = json, eval.ratings.summarize
    monkeypatch.setitem(sys.modules, "__main__", main)
    assert {"json", "eval.ratings"} <= set(worker_modules(config))
    main.__spec__ = None            # a main module given as a path: the server preloads it whole
    assert not {"json", "eval.ratings"} & set(worker_modules(config))


def test_forfeit_puts_the_faulty_side_last_and_keeps_the_sum():
    game = pyspiel.load_game(PAGE_ONE)
    assert forfeit_returns(game, (0, 1, 2, 3), 2) == pytest.approx([1 / 3, 1 / 3, -1.0, 1 / 3])
    assert forfeit_returns(game, (0, 1, 0, 1), 1) == pytest.approx([1.0, -1.0, 1.0, -1.0])


# ----------------------------------------------------------------------- SPRT
def test_llr_of_win_loss_scores_is_the_binomial_ratio():
    scores = [1.0] * 30 + [0.0] * 20
    s0, s1, eps = expected_score(0), expected_score(50), 1e-3
    expected = (30 + eps) * math.log(s1 / s0) + (20 + eps) * math.log((1 - s1) / (1 - s0))
    assert log_likelihood_ratio(scores, 0, 50) == pytest.approx(expected, rel=1e-6)


def test_sprt_decides_each_way_on_synthetic_deals():
    rng = random.Random(1)
    lower, upper = bounds(0.05, 0.05)

    def run(p_win):
        scores = []
        while True:
            scores.append(sum(rng.random() < p_win for _ in range(2)) / 2)   # a two-game deal
            llr = log_likelihood_ratio(scores, 0, 60)
            if not lower < llr < upper:
                return (H1 if llr >= upper else H0), len(scores)
    verdict, n = run(expected_score(120))
    assert verdict == H1 and n < 400
    verdict, n = run(0.5)
    assert verdict == H0 and n < 400


def test_sprt_reads_deals_in_order_whatever_order_games_arrive():
    config = TournamentConfig.create("python_page_one(players=2)", ["random", "rules"], deals=30)
    player = GamePlayer(config)
    records = [player.play(t, [0.0] * PROBE_SIZE) for t in plan_games(2, 2, 30, config.seed)]
    in_order = SprtTracker(config, "random", "rules", 0, 30, 0.05, 0.05)
    shuffled = SprtTracker(config, "random", "rules", 0, 30, 0.05, 0.05)
    for r in records:
        in_order.add(r)
    for r in random.Random(2).sample(records, len(records)):
        shuffled.add(r)
    assert in_order.result == shuffled.result


# ---------------------------------------------------------------- results file
def _config(**kw):
    return TournamentConfig.create(PAGE_ONE, ["random", "rules"], deals=2, **kw)


def test_results_file_that_is_not_ours_is_refused_and_left_alone(tmp_path):
    garbage = tmp_path / "notes.db"
    garbage.write_bytes(b"my thesis notes, not a database" * 100)
    foreign = tmp_path / "other.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE t (x)")
        conn.execute("INSERT INTO t VALUES (42)")
    conn.close()
    for path, message in ((garbage, "not an SQLite database"), (foreign, "another application")):
        before = path.read_bytes()
        with pytest.raises(ResultsFileError, match=message):
            ResultsDB.open_for(path, _config())
        with pytest.raises(ResultsFileError, match=message):
            ResultsDB.read(path)
        assert path.read_bytes() == before


def test_corrupt_results_file_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "r.db"
    config = _config()
    player = GamePlayer(config)
    with ResultsDB.open_for(path, config) as db:
        for task in plan_games(4, 2, 40, 0):
            db.add(player.play(task, [0.0] * PROBE_SIZE))
    data = bytearray(path.read_bytes())
    assert len(data) > 12000
    data[5000:9000] = b"\xff" * 4000           # damage pages past the header
    path.write_bytes(bytes(data))
    with pytest.raises(ResultsFileError, match="corrupt|not a readable"):
        ResultsDB.open_for(path, config)
    assert path.read_bytes() == bytes(data)


def test_a_different_tournament_is_refused_naming_the_difference(tmp_path):
    path = tmp_path / "r.db"
    ResultsDB.open_for(path, _config()).close()
    before = path.read_bytes()
    with pytest.raises(ResultsFileError, match="seed: stored 0, asked 7"):
        ResultsDB.open_for(path, _config(seed=7))
    assert path.read_bytes() == before
    ResultsDB.open_for(path, _config().with_deals(50)).close()     # more deals: the same tournament


def test_two_runs_cannot_write_one_file(tmp_path):
    path = tmp_path / "r.db"
    with ResultsDB.open_for(path, _config()):
        with pytest.raises(ResultsFileError, match="another tournament is writing"):
            ResultsDB.open_for(path, _config())


def test_bad_agents_and_settings_get_clear_errors():
    with pytest.raises(ValueError, match="unknown bot 'nosuch'"):
        TournamentConfig.create(PAGE_ONE, ["random", "nosuch(x=1)"], deals=1)
    with pytest.raises(ValueError, match="malformed bot spec"):
        TournamentConfig.create(PAGE_ONE, ["random", "rules(x"], deals=1)
    with pytest.raises(ValueError, match="given twice"):
        parse_agents(["random", "random"])
    with pytest.raises(ValueError, match="cannot load game"):
        TournamentConfig.create("no_such_game", ["random", "rules"], deals=1)
    with pytest.raises(ValueError, match="teams"):
        TournamentConfig.create(PAGE_ONE, ["random", "rules"], deals=1, teams="0,1 1,2")
    assert parse_agents(["b=rules", "fast=rules(seed_offset=1)", "random"])[0] == ("b", "rules")


def test_a_games_match_format_is_the_one_its_registry_entry_declares_or_a_named_factory():
    from eval.config import match_format
    canasta = pyspiel.load_game("python_classic_canasta(players=3)")
    assert match_format(canasta, "target=5000").target == 5000          # the game's declared format
    game = pyspiel.load_game(PAGE_ONE)
    assert match_format(game, "tests.harness_bots:fixed_deals(deals=2)").deals == 2
    with pytest.raises(ValueError, match="bad match format settings"):
        match_format(game, "tests.harness_bots:fixed_deals(rounds=2)")
    with pytest.raises(ValueError, match="python_page_one declares no match format of its own"):
        match_format(game, "")


def test_default_field_has_the_neural_bot_only_where_one_is_shipped():
    from scripts.tournament_cli import default_agents
    assert default_agents("python_page_one(players=4)")[-1] == "neural"
    assert "neural" not in default_agents("hearts")
    assert {"random", "rules"} <= set(default_agents("hearts"))


def test_canastas_default_field_has_its_strongest_measured_bots_and_each_is_made():
    import pyspiel
    from agents import make_bot
    from games import registry
    from games.modern_canasta.game import FAST, STRONGEST
    from scripts.tournament_cli import DEFAULT_AGENTS, default_agents
    field = default_agents("python_modern_canasta")
    assert field == ["random", "rules", "canasta-fast", "canasta-strong", "neural"] == \
        ["random", "rules", FAST, STRONGEST, "neural"]
    assert registry.lookup("python_modern_canasta").strongest == STRONGEST
    assert default_agents("python_page_one(players=3)") == list(DEFAULT_AGENTS)
    game = pyspiel.load_game("python_modern_canasta")
    for spec in field:
        make_bot(spec, game, 0, 0)
