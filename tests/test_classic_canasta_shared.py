"""Classic Canasta: the checks every game passes (tests/conformance.py) for 2, 3 and
4 players, a small soak, the resampler's exactness on a small case, and the rule bot."""

from __future__ import annotations

import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pyspiel
import pytest

import games  # noqa: F401  (registers the games)
from agents import make_bot
from games.classic_canasta.actions import DRAW, TAKE_PAIR, discard_action
from games.classic_canasta.core import EV_TAKE, EV_WITHDRAW, MELD, ClassicState, deal, set_up
from games.modern_canasta.cards import (BLACK_THREE, DECK, EIGHT, FOUR, KING, NINE, NUM_KINDS,
                                        QUEEN, RED_THREE, counts_of)
from games.classic_canasta.invariants import violation
from tests import conformance

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ["python_classic_canasta(players=2)", "python_classic_canasta(players=3,first_player=2)",
            "python_classic_canasta(players=4)",
            "python_classic_canasta(players=4,score0=-200,score1=3100,first_player=1)"]


def conserved(core: ClassicState) -> None:
    """The 108 cards are all somewhere, once; a player to move never lacks a move."""
    assert violation(core) is None, violation(core)
    assert core.sizes == [sum(h) for h in core.hands] and core.stock_size == sum(core.stock)


@pytest.mark.parametrize("game_string", VARIANTS)
def test_random_sim(game_string):
    conformance.check_random_sim(game_string, 3)


@pytest.mark.parametrize("game_string", VARIANTS)
def test_history_of_states_played_from_python(game_string):
    conformance.check_history(pyspiel.load_game(game_string), 2, 3)


@pytest.mark.parametrize("game_string", VARIANTS)
def test_cards_are_conserved_and_every_turn_ends(game_string):
    conformance.check_invariant(pyspiel.load_game(game_string), 25, 1, conserved)


def swap_hidden(core: ClassicState, player: int, rng: random.Random):
    """Swaps a card between two places `player` cannot see: the unknown part of
    another player's hand, and the stock (red 3s never hide in a hand)."""
    pools = []
    for seat in range(core.n):
        if seat != player:
            hidden = [core.hands[seat][k] - core.known[seat][k] for k in range(NUM_KINDS)]
            if sum(hidden):
                pools.append((seat, hidden))
    stock = [core.stock[k] if k != RED_THREE else 0 for k in range(NUM_KINDS)]
    if sum(stock):
        pools.append((-1, stock))
    if len(pools) < 2:
        return None
    (a, ca), (b, cb) = rng.sample(pools, 2)
    x = rng.choice([k for k in range(NUM_KINDS) if ca[k]])
    y = rng.choice([k for k in range(NUM_KINDS) if cb[k]])
    other = core.clone()
    for seat, out, inn in ((a, x, y), (b, y, x)):
        counts = other.stock if seat < 0 else other.hands[seat]
        counts[out] -= 1
        counts[inn] += 1
    return other


@pytest.mark.parametrize("game_string", VARIANTS)
def test_hidden_information_does_not_leak(game_string):
    game = pyspiel.load_game(game_string)
    assert conformance.check_hidden_information(game, 20, 2, swap_hidden) > 30


@pytest.mark.parametrize("game_string", VARIANTS)
def test_resampled_worlds_are_consistent(game_string):
    conformance.check_resample(pyspiel.load_game(game_string), 8, 3, 2, conserved)


@pytest.mark.parametrize("game_string", VARIANTS[:3])
def test_every_illegal_action_is_refused_naming_it(game_string):
    assert conformance.check_rejects_illegal_actions(pyspiel.load_game(game_string), 4, 6) > 10


@pytest.mark.parametrize("game_string", VARIANTS)
def test_private_view_keys_exactly_the_information_state(game_string):
    assert conformance.check_private_view(pyspiel.load_game(game_string), 8, 5) > 8


def test_resample_keeps_what_was_seen_over_many_states():
    game = pyspiel.load_game("python_classic_canasta(players=4)")
    rng = random.Random(4)
    seen = Counter()
    for state in conformance.random_states(game, 150, 4):
        core = state.core
        for p in range(4):
            world = core.resample_from_infostate(p, rng.random)
            assert world.information_state_string(p) == core.information_state_string(p)
            assert world.legal_actions(p) == core.legal_actions(p)
            assert world.known == core.known
            conserved(world)
        seen.update(kind for kind, _, _ in core.events())
    assert seen[EV_TAKE] and seen[EV_WITHDRAW]


def test_resample_is_uniform_over_the_hidden_cards():
    """Right after the deal, another player's eleven cards are a uniform draw from the
    cards p0 has not seen, red 3s left out (they would be down)."""
    s = ClassicState()
    deal(s, [[k % 11 for k in range(i, i + 11)] for i in range(4)], upcards=[KING])
    unseen = [DECK[k] - s.hands[0][k] - (k == KING) for k in range(NUM_KINDS)]
    unseen[RED_THREE] = 0
    total = sum(unseen)
    rng = random.Random(7)
    held = [0] * NUM_KINDS
    worlds = 600
    for _ in range(worlds):
        world = s.resample_from_infostate(0, rng.random)
        assert world.hands[0] == s.hands[0] and world.sizes == s.sizes
        for k in range(NUM_KINDS):
            held[k] += world.hands[1][k]
    assert not held[RED_THREE]
    for k in range(NUM_KINDS):
        expected = worlds * 11 * unseen[k] / total
        assert abs(held[k] - expected) < 5 * expected ** 0.5 + 3, (k, held[k], expected)


def test_resample_works_through_pyspiel_and_openspiel_ismcts():
    from open_spiel.python.algorithms import ismcts, mcts
    game = pyspiel.load_game("python_classic_canasta(players=3)")
    state = next(conformance.random_states(game, 1, 5))
    p = state.current_player()
    world = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0., 1.))
    assert world.information_state_string(p) == state.information_state_string(p)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, None), 2.0, 10,
                           random_state=__import__("numpy").random.RandomState(0))
    assert bot.step(state) in state.legal_actions()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_small_soak_of_random_and_rule_bot_hands(players):
    """The soak (scripts/classic_canasta_soak.py, a command: run, not imported) on a few hands."""
    done = subprocess.run([sys.executable, "-m", "scripts.classic_canasta_soak", "--random", "60", "--rules", "20",
                           "--players", str(players), "--seed", str(players)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    reports = [line for line in done.stdout.splitlines() if line.startswith("== ")]
    assert reports == [f"== random hands, {players} players: 60 hands in {reports[0].split(' hands in ')[1]}",
                       f"== rule-based bots, {players} players: 20 hands in {reports[1].split(' hands in ')[1]}"]
    assert all(line.endswith("0 violations") for line in reports)
    ended = [line for line in done.stdout.splitlines() if line.startswith("  ended: ")]
    for line in ended:          # every hand ends one of the three ways
        shares = [float(part.rsplit(" ", 1)[1].rstrip("%")) for part in line[len("  ended: "):].split(", ")]
        assert sum(shares) == pytest.approx(100, abs=0.2)
    rule_hands = done.stdout.split("== rule-based bots")[1]
    assert not rule_hands.split("ended: went out ")[1].startswith("0.0%")          # rule bots go out
    assert "piles taken 0.00" not in rule_hands                                     # and take the pile


# ------------------------------------------------------------------ the rule bot
def bot_for(players: int, seat: int):
    return make_bot("rules", pyspiel.load_game(f"python_classic_canasta(players={players})"), seat)


def test_make_bot_gives_the_classic_rule_bot():
    assert type(bot_for(4, 0)).__name__ == "ClassicCanastaRulesBot"


def test_the_bot_takes_a_pile_it_can_use_and_goes_out_when_it_can():
    s = set_up([counts_of("K K 6 6 7"), counts_of(""), counts_of(""), counts_of("")],
               pile=[NINE, EIGHT, KING], melds={(0, QUEEN): (3, 0, 0)})
    assert bot_for(4, 0).step(s) == TAKE_PAIR
    s = set_up([counts_of("Q Q Q 5"), counts_of(""), counts_of(""), counts_of("")], phase=MELD,
               melds={(0, KING): (7, 0, 0)})
    bot = bot_for(4, 0)
    while not s.is_terminal():
        s.apply_action(bot.step(s))
    assert s.scores[0].going_out


def test_the_bot_takes_the_pile_for_its_initial_meld_only_holding_it():
    holding = set_up([counts_of("K K A A A 6 7"), counts_of(""), counts_of(""), counts_of("")],
                     pile=[NINE, KING])
    assert bot_for(4, 0).step(holding) == TAKE_PAIR
    short = set_up([counts_of("K K 4 6 7"), counts_of(""), counts_of(""), counts_of("")],
                   pile=[NINE, KING])
    assert bot_for(4, 0).step(short) == DRAW


def test_the_bot_discards_a_black_three_first():
    s = set_up([counts_of("3b K J 5 9"), counts_of(""), counts_of(""), counts_of("")], phase=MELD,
               pile=[FOUR], melds={(0, QUEEN): (3, 0, 0)})
    assert bot_for(4, 0).step(s) == discard_action(BLACK_THREE)


def test_the_bot_does_not_read_hidden_cards():
    for players in (2, 4):
        game = pyspiel.load_game(f"python_classic_canasta(players={players})")
        checked = conformance.check_bot_ignores_hidden_cards(
            game, lambda seat: make_bot("rules", game, seat), 40, 9, swap_hidden)
        assert checked > 20


def test_rules_beat_random():
    game = pyspiel.load_game("python_classic_canasta(players=4)")
    rng = random.Random(3)
    total = 0.0
    for h in range(30):
        bots = [make_bot("rules", game, s) if s % 2 == h % 2 else make_bot("random", game, s, h)
                for s in range(4)]
        core = game.new_initial_state().core
        while not core.is_terminal():
            if core.is_chance_node():
                core.apply_action(core.sample_chance_outcome(rng.random()))
            else:
                core.apply_action(bots[core.to_move].step(core))
        total += core.returns()[h % 2]
    assert total / 30 > 0.3


def test_its_rules_parameters_are_refused_naming_them():
    with pytest.raises(ValueError, match="no settings"):
        make_bot("rules(pile_min=3)", pyspiel.load_game("python_classic_canasta"), 0)


def reference_meld_legal(core: ClassicState, action: int) -> bool:
    """A meld's legality straight from the rules (docs/rules/classic_canasta.md), to
    check the core's tables against."""
    from games.classic_canasta.actions import BLACK_SLOT, MELD_PARTS
    from games.classic_canasta.core import CANASTAS_TO_GO_OUT, PICKUP, SIDE_STRIDE, meld_points
    from games.modern_canasta.cards import JOKER, TWO
    slot, n, t, j = MELD_PARTS[action]
    hand = core.hands[core.actor]
    kind = BLACK_THREE if slot == BLACK_SLOT else slot
    if core.withdrawn or hand[kind] < n or hand[TWO] < t or hand[JOKER] < j:
        return False
    side = core.actor % core.sides
    b = side * SIDE_STRIDE + 3 * slot
    o_n, o_w = core.melds[b], core.melds[b + 1] + core.melds[b + 2]
    used = n + t + j
    if slot == BLACK_SLOT:
        if o_n or t or j or n not in (3, 4):
            return False
    elif not used or o_w + t + j > 3 or o_n + n <= o_w + t + j or (not o_n and used < 3):
        return False
    effective = core.sizes[core.actor]
    if core.phase == PICKUP:
        effective += len(core.pile) - core.pile.count(RED_THREE)
    if effective - used >= 2 and slot != BLACK_SLOT:
        return True
    if effective - used > 1:
        return False
    size = o_n + o_w
    canastas = core.canastas[side] + (size < 7 <= size + used)
    if canastas < CANASTAS_TO_GO_OUT[core.n]:
        return False
    points = core.turn_points + meld_points(slot, n, t, j)
    return bool(core.melded >> side & 1 or points >= core.rules.thresholds[side]
                or (core.phase == MELD and core.concealed_ok))


@pytest.mark.parametrize("game_string", VARIANTS[:3])
def test_the_meld_tables_agree_with_the_rules_read_directly(game_string):
    from games.classic_canasta.actions import MELD_BASE, NUM_ACTIONS
    from games.classic_canasta.core import PICKUP
    game = pyspiel.load_game(game_string)
    checked = 0
    for state in conformance.random_states(game, 40, 8, accept=lambda c: c.phase in (MELD, PICKUP)):
        core = state.core
        legal = {a for a in core.legal_actions() if a >= MELD_BASE}
        assert legal == {a for a in range(MELD_BASE, NUM_ACTIONS) if reference_meld_legal(core, a)}
        checked += len(legal)
    assert checked > 100


@pytest.mark.parametrize("players,match", [(2, None), (4, None), (3, "target=2500")])
def test_the_harness_and_records_play_it_through_the_protocol(tmp_path, players, match):
    from eval.config import TournamentConfig
    from eval.results_records import records_from_results
    from records.record import check, transcript
    from eval.tournament import run_tournament
    config = TournamentConfig.create(f"python_classic_canasta(players={players})", ["random", "rules"],
                                     deals=1, match=match)
    assert (config.teams is not None) == (players == 4)
    run_tournament(config, tmp_path / "r.db", progress=False, bootstrap=0)
    records = [record for _, record in records_from_results(tmp_path / "r.db")]
    assert records and not list(records_from_results(tmp_path / "r.db", fault=True))
    for record in records:
        final = check(record)                    # replays every move, legal, to the stored end
        assert final.is_terminal()
        assert transcript(record, view=0)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoo_api_test_passes(players):
    pytest.importorskip("shimmy")
    import warnings
    from pettingzoo.test import api_test
    from shimmy import OpenSpielCompatibilityV0
    env = OpenSpielCompatibilityV0(env=pyspiel.load_game(f"python_classic_canasta(players={players})"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)    # unbounded float observations
        api_test(env, num_cycles=10, verbose_progress=False)
