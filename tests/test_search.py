"""The search bots: tree statistics, determinism, legality, no hidden-card reads,
budgets, spec errors, and OpenSpiel interoperability (evaluate_bots, C++ hearts)."""

from __future__ import annotations

import math
import random

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import evaluate_bots

import games  # noqa: F401
from agents import make_bot
from games.protocol import CHANCE, TERMINAL, chance_sampler
from search.keys import HistoryKeys, InformationKeys
from search.decision import choose_paired, choose_unpaired, unpaired_is_close
from search.inference import WorldInference
from search.mcts import Budget, Search, most_visited, placement
from search.references import make_hearts_fixed_pass
from search.rollout import RandomRollout
from tests import conformance


class TinyGame:
    """Player 0 picks 0 or 1; after 0, player 1 picks 0 or 1; `payoffs` maps the
    history to the returns. Perfect information, no chance."""

    def __init__(self, payoffs: dict[tuple, list[float]], history: tuple = ()):
        self.payoffs, self.history = payoffs, history

    def current_player(self) -> int:
        return TERMINAL if self.history in self.payoffs else len(self.history)

    def legal_actions(self) -> list[int]:
        return [0, 1]

    def apply_action(self, action: int) -> None:
        self.history += (action,)

    def clone(self) -> "TinyGame":
        return TinyGame(self.payoffs, self.history)

    def returns(self) -> list[float]:
        return self.payoffs[self.history]

    def information_state_string(self, player: int) -> str:
        return str(self.history)

    def resample_from_infostate(self, player, uniform) -> "TinyGame":
        return self.clone()


# Player 1's own best reply to 0 is 1 in both games; player 0 must foresee it.
ZERO_SUM = {(0, 0): [1.0, -1.0], (0, 1): [-1.0, 1.0], (1,): [0.0, 0.0]}     # 0 then 1: -1
GENERAL_SUM = {(0, 0): [-1.0, 0.0], (0, 1): [1.0, 1.0], (1,): [0.5, 0.0]}   # 0 then 1: +1


@pytest.mark.parametrize("payoffs, best", [(ZERO_SUM, 1), (GENERAL_SUM, 0)])
@pytest.mark.parametrize("keys", [HistoryKeys(), InformationKeys(TinyGame({}))])
def test_each_player_maximises_its_own_return(payoffs, best, keys):
    # Backing up the root player's return everywhere, or negating it for the
    # opponent, gets one of these two games wrong.
    search = Search(keys, RandomRollout(), 0.5, 2.0, random.Random(0))
    root = TinyGame(payoffs)
    assert most_visited(search.run(root, root.clone, Budget(1000))) == best


class WideGame:
    """One decision among 200 actions; only action 7 pays."""

    def __init__(self, history: tuple = ()):
        self.history = history

    def current_player(self) -> int:
        return TERMINAL if self.history else 0

    def legal_actions(self) -> list[int]:
        return list(range(200))

    def apply_action(self, action: int) -> None:
        self.history += (action,)

    def clone(self) -> "WideGame":
        return WideGame(self.history)

    def returns(self) -> list[float]:
        return [1.0 if self.history == (7,) else 0.0]


def prior_on(best: int):
    return lambda world, player, legal: [0.5 * (a == best) + 0.5 / len(legal) for a in legal]


def test_a_prior_spares_the_search_from_trying_every_action():
    # UCB1 tries all 200 actions once before comparing any; PUCT stays with the
    # prior's choice while its returns hold up: how large action spaces are searched.
    tried = {}
    for name, prior in (("ucb1", None), ("puct", prior_on(7))):
        search = Search(HistoryKeys(), RandomRollout(), 0.5, 1.0, random.Random(0), prior)
        root = WideGame()
        edges = search.run(root, root.clone, Budget(50))
        tried[name] = sum(1 for e in edges.values() if e[0])
    assert tried == {"ucb1": 50, "puct": 1}


def test_returns_overrule_a_wrong_prior():
    search = Search(HistoryKeys(), RandomRollout(), 0.5, 2.0, random.Random(0), prior_on(0))
    root = TinyGame(ZERO_SUM)      # the prior likes 0, which loses to player 1's reply
    assert most_visited(search.run(root, root.clone, Budget(1000))) == 1


class NarrowReturns(WideGame):
    """Five actions whose returns differ by a hundredth, in a game whose declared
    range is 100 (as a deal of American Page One spans a few dozen points of ±1656)."""

    def legal_actions(self) -> list[int]:
        return list(range(5))

    def clone(self) -> "NarrowReturns":
        return NarrowReturns(self.history)

    def returns(self) -> list[float]:
        return [0.01 * self.history[0]]


def test_the_observed_scale_explores_within_the_returns_seen():
    share = {}
    for scale in ("game", "observed"):
        search = Search(HistoryKeys(), RandomRollout(), 0.5, 100.0, random.Random(0), scale=scale)
        root = NarrowReturns()
        edges = search.run(root, root.clone, Budget(500))
        assert most_visited(edges) == 4 or scale == "game"
        share[scale] = edges[4][0] / 500
    assert share["game"] < 0.25 and share["observed"] > 0.6
    with pytest.raises(ValueError, match="scale"):
        Search(HistoryKeys(), RandomRollout(), 0.5, 1.0, random.Random(0), scale="wide")


# Three players, one decision: 0 scores more points but finishes second; 1 finishes first.
POINTS_OR_PLACE = {(0,): [50.0, 60.0, 0.0], (1,): [1.0, 0.0, -1.0]}


def test_placement_utility_plays_for_finishing_ahead_not_for_points():
    assert placement([50.0, 60.0, 0.0]) == [0.0, 1.0, -1.0]
    assert placement([3.0, 3.0, -6.0]) == [0.5, 0.5, -1.0]        # a tie counts neither way
    chosen = {}
    for utility in ("returns", "placement"):
        search = Search(HistoryKeys(), RandomRollout(), 0.5, 200.0, random.Random(0), utility=utility)
        root = TinyGame(POINTS_OR_PLACE)
        chosen[utility] = most_visited(search.run(root, root.clone, Budget(200)))
    assert chosen == {"returns": 0, "placement": 1}
    with pytest.raises(ValueError, match="utility"):
        Search(HistoryKeys(), RandomRollout(), 0.5, 1.0, random.Random(0), utility="wins")


class HiddenOption:
    """Chance gives player 1 a hidden bit; player 0 moves (one action), then player 1
    picks action 0, or action 1 when its bit is 1. Player 0 sees only its move."""

    def __init__(self, history: tuple = ()):
        self.history = history

    def current_player(self) -> int:
        return (CHANCE, 0, 1, TERMINAL)[len(self.history)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return [(0, 0.5), (1, 0.5)]

    def legal_actions(self) -> list[int]:
        return [0] if len(self.history) == 1 else [0, 1][:1 + self.history[0]]

    def apply_action(self, action: int) -> None:
        self.history += (action,)

    def clone(self) -> "HiddenOption":
        return HiddenOption(self.history)

    def returns(self) -> list[float]:
        return [0.0, 0.0]

    def information_state_string(self, player: int) -> str:
        return str(self.history[:1] if player == 1 else ()) + str(self.history[1:])

    def resample_from_infostate(self, player, uniform) -> "HiddenOption":
        return HiddenOption((int(uniform() * 2),) + self.history[1:])


def test_availability_counts_only_the_iterations_where_an_action_was_legal():
    root = HiddenOption((1,))
    rng = random.Random(3)
    search = Search(InformationKeys(root, observer=0), RandomRollout(), 0.5, 1.0, rng)
    search.run(root, lambda: root.resample_from_infostate(0, rng.random), Budget(2000))
    (edges,) = [node for node in search.nodes.values() if len(node) == 2]   # player 1's node
    reached = edges[0][0] + edges[1][0]
    assert edges[0][2] >= reached - 1                    # always legal (tried by the 2nd visit)
    assert 0.45 * reached < edges[1][2] < 0.55 * reached  # legal with the bit, half the time


def page_one_states(game_string: str, count: int, seed: int) -> list:
    game = pyspiel.load_game(game_string)
    return [s.core for s in conformance.random_states(game, 3 * count, seed)
            if len(s.legal_actions()) > 1][:count]


SPECS = ["ismcts(iterations=60)", "ismcts(iterations=60,viewer=observer)", "ismcts(iterations=60,root=paired)",
         "pimc(worlds=3,iterations=20)", "pimc(worlds=3,iterations=20,chance=fixed)",
         "pimc(worlds=3,iterations=20,model=rules,candidates=6)", "pimc(worlds=6,flat=true)",
         "cheat_mcts(iterations=60)"]


@pytest.mark.parametrize("spec", SPECS)
def test_search_is_deterministic_for_a_seed(spec):
    game = pyspiel.load_game("python_page_one(players=4,jokers=1)")
    states = page_one_states("python_page_one(players=4,jokers=1)", 8, 1)
    stats = lambda seed: [make_bot(spec, game, s.current_player(), seed).search(s) for s in states]  # noqa: E731
    assert stats(4) == stats(4)
    assert stats(4) != stats(5)


@pytest.mark.parametrize("spec", SPECS[:-1])
def test_search_never_reads_hidden_cards(spec):
    # The same search on a world with every card the player cannot see redealt
    # by the resampler: the statistics, hence the move, must not change at all.
    game_string = "python_page_one(players=4,jokers=2,empty_stock=reshuffle)"
    game = pyspiel.load_game(game_string)
    rng = random.Random(11)
    for state in page_one_states(game_string, 20, 2):
        me = state.current_player()
        world = state.resample_from_infostate(me, rng.random)
        assert make_bot(spec, game, me, 7).search(state) == make_bot(spec, game, me, 7).search(world)


def test_the_hidden_card_check_catches_a_search_that_reads_them():
    game_string = "python_page_one(players=4,jokers=2,empty_stock=reshuffle)"
    game = pyspiel.load_game(game_string)
    rng = random.Random(11)
    differs = 0
    for state in page_one_states(game_string, 20, 2):
        me = state.current_player()
        world = state.resample_from_infostate(me, rng.random)
        bot = lambda: make_bot("cheat_mcts(iterations=60)", game, me, 7)  # noqa: E731
        differs += bot().search(state) != bot().search(world)
    assert differs > 10


@pytest.mark.parametrize("game_string", ["python_page_one(players=3,jokers=2,until_last=true)",
                                         "python_page_one(players=5,empty_stock=take)"])
def test_search_bots_play_legal_moves_with_openspiel_evaluate_bots(game_string):
    game = pyspiel.load_game(game_string)
    specs = ["ismcts(iterations=30,rollout=rules)", "pimc(worlds=2,iterations=15,prior=rules)",
             "cheat_mcts(iterations=30)", "ismcts(iterations=30,viewer=observer)", "rules",
             "ismcts(iterations=30,prior=rules)"]
    for seed in range(2):
        bots = [make_bot(specs[(p + seed) % len(specs)], game, p, seed) for p in range(game.num_players())]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(seed))
        assert sum(returns) == pytest.approx(0.0)   # it ran to the end: every move was legal


def test_search_runs_on_openspiel_cpp_hearts_beside_its_cpp_ismcts():
    # Any pyspiel game whose states resample: keys are information-state strings.
    # OpenSpiel's hearts resamples wrongly while cards are passed (its C++ ISMCTS
    # crashes there), so every searcher passes by the fixed rule.
    game = pyspiel.load_game("hearts")
    specs = ["ismcts(iterations=8)", "pimc(worlds=2,iterations=4)",
             "openspiel_cpp_ismcts(iterations=8)", "cheat_mcts(iterations=8)"]
    bots = [make_hearts_fixed_pass(game, p, 2**62 + p, spec) for p, spec in enumerate(specs)]  # harness-sized seeds
    state = game.new_initial_state()
    state.apply_action(1)                        # pass to the left: the phase that breaks
    returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(0))
    assert state.is_terminal() and sum(returns) in (26.0, 78.0)   # 78 = 3 * 26 "not taken"; 26: a moon shot


def test_openspiel_cpp_ismcts_refuses_python_games_instead_of_crashing():
    with pytest.raises(ValueError, match="C\\+\\+ games only"):
        make_bot("openspiel_cpp_ismcts", pyspiel.load_game("python_page_one"), 0)


def test_openspiel_python_ismcts_plays_in_evaluate_bots_on_a_clock():
    game = pyspiel.load_game("python_page_one(players=4)")
    bots = [make_bot(spec, game, p, 2**62 + p) for p, spec in enumerate(
        ["openspiel_ismcts(seconds=0.01)", "rules", "openspiel_ismcts(iterations=5)", "random"])]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(3))
    assert sum(returns) == pytest.approx(0.0)


def test_budgets_are_honoured():
    game = pyspiel.load_game("python_page_one(players=4)")
    state = page_one_states("python_page_one(players=4)", 1, 5)[0]
    me = state.current_player()
    bot = make_bot("ismcts(iterations=77)", game, me)
    bot.step(state)
    assert bot.iterations == 77
    bot = make_bot("pimc(worlds=3,iterations=20)", game, me)
    bot.step(state)
    assert bot.iterations == 60
    bot = make_bot("ismcts(seconds=0.05,iterations=1000000000)", game, me)
    bot.step(state)                       # it returns: the clock stopped it
    assert 0 < bot.iterations < 1_000_000_000


def test_a_forced_move_is_played_without_search():
    game = pyspiel.load_game("python_page_one(players=4)")
    state = next(s.core for s in conformance.random_states(game, 200, 6) if len(s.legal_actions()) == 1)
    bot = make_bot("ismcts(iterations=50)", game, state.current_player())
    assert bot.step(state) == state.legal_actions()[0] and bot.iterations == 0


class FirstDraws:
    """An evaluator that notes the first number of the stream it is given."""

    def __init__(self):
        self.seen = []

    def evaluate(self, world, rand):
        self.seen.append(rand())
        return [0.0] * world.num_players()


@pytest.mark.parametrize("chance_seed", [None, 12345])
def test_a_fixed_chance_world_gives_every_iteration_the_same_draws(chance_seed):
    # Page One: a card played at the root leads to the next player's decision,
    # so each of the first iterations evaluates a new child before any draw.
    state = page_one_states("python_page_one(players=4)", 1, 3)[0]
    first = FirstDraws()
    search = Search(HistoryKeys(), first, 0.5, 2.0, random.Random(0))
    search.run(state, state.clone, Budget(len(state.legal_actions())), chance_seed)
    if chance_seed is None:
        assert len(set(first.seen)) == len(first.seen) > 1
    else:
        assert first.seen == [random.Random(chance_seed).random()] * len(first.seen)


def test_a_paired_round_tries_every_root_action_on_the_same_world_and_draws():
    state = next(s for s in page_one_states("python_page_one(players=4)", 20, 3) if len(s.legal_actions()) >= 3)
    width = len(state.legal_actions())
    first = FirstDraws()
    search = Search(InformationKeys(state), first, 0.5, 2.0, random.Random(0))
    worlds = []
    me = state.current_player()
    make_world = lambda: worlds.append(state.resample_from_infostate(me, random.Random(len(worlds)).random)) \
        or worlds[-1]  # noqa: E731
    edges = search.run(state, make_world, Budget(3 * width + 1), paired=True)
    # Whole rounds only: three, one world each, every root action once a round.
    assert search.iterations == 3 * width and len(worlds) == 3
    assert [len(row) for row in search.root_rows] == [width] * 3
    assert all(edge[0] == 3 for edge in edges.values()) and set(edges) == set(state.legal_actions())
    # Each iteration evaluates a new child before any draw: a round's draws are one stream.
    rounds = [first.seen[r * width:(r + 1) * width] for r in range(3)]
    assert all(len(set(draws)) == 1 for draws in rounds) and len({draws[0] for draws in rounds}) == 3
    # A budget smaller than a round still makes one whole round.
    search.run(state, make_world, Budget(1), paired=True)
    assert search.iterations == width and len(search.root_rows) == 1


def test_a_paired_search_without_baseline_plays_the_best_mean():
    search = Search(InformationKeys(TinyGame({})), RandomRollout(), 0.5, 2.0, random.Random(0))
    root = TinyGame(ZERO_SUM)
    search.run(root, root.clone, Budget(400), paired=True)
    assert choose_paired([0, 1], search.root_rows, None, 1.0) == 1
    game = pyspiel.load_game("python_page_one(players=4)")
    state = page_one_states("python_page_one(players=4)", 1, 5)[0]
    bot = make_bot("ismcts(iterations=77,root=paired)", game, state.current_player())
    move = bot.step(state)
    assert bot.iterations == 77 // len(state.legal_actions()) * len(state.legal_actions())
    assert move == choose_paired(state.legal_actions(), bot.root_rows, None, 1.0)


@pytest.mark.parametrize("spec, message", [
    ("ismcts(iteration=10)", "unknown setting.*iteration.*known: assume, baseline, belief, belief_candidates, "
                             "belief_power, c, confidence, horizon, iterations, pool, prior, prior_temperature, "
                             "rollout, rollout_opponents, root, scale, seconds, utility, value, viewer"),
    ("ismcts(horizon=0)", "horizon=0: must be a positive integer, none or auto"),
    ("pimc(horizon=soon)", "horizon='soon': must be a positive integer, none or auto"),
    ("ismcts(pool=-3)", "pool=-3: must be a positive integer, none or auto"),
    ("pimc(pool=8)", "unknown setting.*pool"),
    ("ismcts(confidence=-1)", "confidence=-1: must be a non-negative number"),
    ("ismcts(baseline=alphago)", "baseline='alphago': unknown bot 'alphago'"),
    ("ismcts(assume=rules)", "assume='rules': that bot does not say what its moves show"),
    ("pimc(flat=yes)", "flat='yes': must be true or false"),
    ("ismcts(iterations=0)", "iterations=0: must be a positive integer"),
    ("ismcts(seconds=-1)", "seconds=-1: must be a positive number"),
    ("ismcts(c=-0.5)", "c=-0.5: must be a non-negative number"),
    ("ismcts(viewer=god)", "viewer='god': must be one of acting, observer"),
    ("ismcts(root=flat)", "root='flat': must be one of ucb, paired"),
    ("ismcts(scale=wide)", "scale='wide': must be one of observed, game"),
    ("ismcts(rollout=alphago)", "rollout='alphago': unknown bot 'alphago'"),
    ("pimc(worlds=0)", "worlds=0: must be a positive integer"),
    ("pimc(chance=known)", "chance='known': must be one of fixed, random"),
    ("pimc(utility=wins)", "utility='wins': must be one of returns, placement"),
    ("pimc(worlds=4,candidates=3)", "candidates=3: must be an integer of at least worlds=4"),
    ("pimc(model=alphago)", "model='alphago': unknown bot 'alphago'"),
    ("pimc(worlds=4,max_worlds=2,baseline=rules)", "max_worlds=2: must be an integer of at least worlds=4"),
    ("pimc(worlds=4,max_worlds=8)", "max_worlds=8: needs a baseline"),
    ("pimc(worlds=4,max_worlds=8,baseline=rules,flat=true)", "max_worlds=8: needs a baseline and a tree"),
    ("cheat_mcts(viewer=acting)", "unknown setting.*viewer"),
    ("cheat_mcts(assume=rules)", "unknown setting.*assume"),
])
def test_bad_settings_are_rejected_with_the_reason(spec, message):
    with pytest.raises(ValueError, match=message):
        make_bot(spec, pyspiel.load_game("python_page_one"), 0)


def canasta_states(count: int, seed: int) -> list:
    """Decision states from a hand between rule bots (random hands rarely meld)."""
    game = pyspiel.load_game("python_modern_canasta")
    bots = [make_bot("rules", game, p, p) for p in range(4)]
    rng = random.Random(seed)
    state, states = game.new_initial_state(), []
    while not state.is_terminal() and len(states) < count:
        if state.is_chance_node():
            state.apply_action(chance_sampler(state)(state, rng.random()))
            continue
        if len(state.legal_actions()) > 1 and rng.random() < 0.2:
            states.append(state.core.clone())
        state.apply_action(bots[state.current_player()].step(state))
    return states


def test_search_on_canasta_never_reads_hidden_cards():
    game = pyspiel.load_game("python_modern_canasta")
    rng = random.Random(4)
    for state in canasta_states(4, 1):
        me = state.current_player()
        world = state.resample_from_infostate(me, rng.random)
        for spec in ("ismcts(iterations=6)", "pimc(worlds=2,iterations=3)"):
            assert make_bot(spec, game, me, 2).search(state) == make_bot(spec, game, me, 2).search(world)


def test_search_plays_a_canasta_hand_with_partnerships():
    game = pyspiel.load_game("python_modern_canasta")
    specs = ["ismcts(iterations=3,rollout=rules)", "rules", "pimc(worlds=1,iterations=3,prior=rules)", "rules"]
    bots = [make_bot(spec, game, p, 5) for p, spec in enumerate(specs)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(5))
    assert returns[0] == returns[2] == -returns[1]


APO = "python_american_page_one(players=3,hand_size=5,challenge=true,dobon=true,max_turns=200)"


@pytest.mark.parametrize("spec", ["ismcts(iterations=40,rollout=rules)",
                                  "pimc(worlds=2,iterations=10,rollout=rules,model=rules,candidates=4)",
                                  "ismcts(iterations=40,rollout=rules,assume=rules)",
                                  "ismcts(iterations=40,rollout=rules,assume=rules,root=paired)",
                                  "pimc(worlds=4,flat=true,rollout=rules,assume=rules)"])
def test_search_on_american_page_one_never_reads_hidden_cards(spec):
    # The same check on American Page One, whose keys (private_view) hold the hands
    # shown to a player by a challenge or a Dobon.
    game = pyspiel.load_game(APO)
    rng = random.Random(5)
    checked = 0
    for state in conformance.random_states(game, 12, 4, max_steps=120):
        me = state.current_player()
        if len(state.legal_actions()) < 2:
            continue
        world = state.resample_from_infostate(me, rng.random)
        search = lambda s: make_bot(spec, game, me, 3).search(s)  # noqa: E731
        assert search(state) == search(world)
        checked += 1
    assert checked >= 6


def test_the_world_the_rule_bots_played_is_the_most_likely_under_their_model():
    # Rule bots play a deal; at a later decision, the true state is what every
    # other player's move agreed with (the rule bot is deterministic), and the
    # resampled worlds, uniform among those the player could not tell apart, are
    # less likely: the weight that model=rules puts on the worlds it searches.
    game = pyspiel.load_game("python_american_page_one(players=4)")
    inference = WorldInference("rules", game, 0, epsilon=0.1)
    rng = random.Random(4)
    state = game.new_initial_state()
    bots = [make_bot("rules", game, seat, seat) for seat in range(4)]
    decisions = 0
    while decisions < 40:
        if state.is_terminal():                 # a short deal: deal again
            state, decisions = game.new_initial_state(), 0
        elif state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
        else:
            decisions += 1
            state.apply_action(bots[state.current_player()].step(state))
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
    core, me = state.core, state.current_player()
    assert me >= 0
    others_choices = 0
    replay = game.new_initial_state()
    for action in core.history():
        if 0 <= replay.current_player() != me and len(replay.legal_actions()) > 1:
            others_choices += 1
        replay.apply_action(action)
    truth = inference.log_likelihood(core, me)
    assert truth == pytest.approx(others_choices * math.log(0.9))
    worlds = [inference.log_likelihood(core.resample_from_infostate(me, rng.random), me) for _ in range(20)]
    assert max(worlds) <= truth and sum(w < truth for w in worlds) >= 15
    with pytest.raises(ValueError, match="epsilon"):
        WorldInference("rules", game, 0, epsilon=1.5)


def test_a_partner_model_judges_the_partner_by_its_own_play():
    # Canasta's side of seats 0 and 2 plays the shipped network, the opponents
    # the rule bot. At seat 0's last decision of the hand, every other move
    # agrees with the model that knows the partner's bot, while the rule bot
    # alone disagrees with some of the partner's moves.
    game = pyspiel.load_game("python_modern_canasta")
    bots = [make_bot("neural" if seat % 2 == 0 else "rules", game, seat, seat) for seat in range(4)]
    rng = random.Random(1)
    state, last = game.new_initial_state(), None
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rng.random() * len(outcomes))][0])
            continue
        if state.current_player() == 0:
            last = state.core.clone()
        state.apply_action(bots[state.current_player()].step(state))
    others_choices = 0
    replay = game.new_initial_state()
    for action in last.history():
        if 0 < replay.current_player() and len(replay.legal_actions()) > 1:
            others_choices += 1
        replay.apply_action(action)
    knowing = WorldInference("rules", game, 0, epsilon=0.1, partners=(2,), partner_spec="neural")
    assert knowing.disagreements(last, 0) == 0
    assert knowing.log_likelihood(last, 0) == pytest.approx(others_choices * math.log(0.9))
    assert WorldInference("rules", game, 0, epsilon=0.1).disagreements(last, 0) > 0


def test_search_bots_play_american_page_one_to_the_end():
    game = pyspiel.load_game(APO)
    specs = ["ismcts(iterations=20,rollout=rules)", "pimc(worlds=2,iterations=10,rollout=rules)",
             "ismcts(iterations=20,rollout=rules,prior=rules)"]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(),
                                          [make_bot(spec, game, p, p) for p, spec in enumerate(specs)],
                                          np.random.RandomState(0))
    assert sum(returns) == pytest.approx(0.0)


def test_the_search_keeps_each_root_actions_returns():
    # What a baseline's test reads: the returns behind each root edge, one per visit.
    search = Search(HistoryKeys(), RandomRollout(), 0.5, 2.0, random.Random(0))
    root = TinyGame(ZERO_SUM)
    edges = search.run(root, root.clone, Budget(200))
    assert set(search.root_returns) == set(edges)
    for action, edge in edges.items():
        assert len(search.root_returns[action]) == edge[0]
        assert sum(search.root_returns[action]) == pytest.approx(edge[1])


def test_a_baseline_move_is_left_only_on_evidence():
    legal = [3, 5, 7]
    # Paired: 5 beats the baseline 3 by one in every world; 7 by more on average, but by luck.
    steady = [[0.0, 1.0, 0.0], [2.0, 3.0, 9.0], [1.0, 2.0, -4.0]]
    assert choose_paired(legal, steady, 3, 2.0) == 5
    assert choose_paired(legal, steady, 3, 0.0) == 5     # 7's mean gain (0.67) is below 5's (1)
    noisy = [[0.0, 0.0, 5.0], [0.0, 0.0, -4.0], [0.0, 0.0, 1.0]]
    assert choose_paired(legal, noisy, 3, 1.0) == 3
    assert choose_paired(legal, noisy, 3, 0.0) == 7
    assert choose_paired(legal, noisy, None, 1.0) == 7   # no baseline: the best mean
    # Unpaired: Welch's standard error; an action seen once is never compared.
    samples = {3: [0.0, 0.2, 0.0, 0.2], 5: [1.0, 1.0, 1.0, 0.9], 7: [5.0]}
    assert choose_unpaired(samples, 3, 2.0) == 5
    assert choose_unpaired({3: [0.0, 1.0], 5: [0.4, 0.8]}, 3, 1.0) == 3
    assert choose_unpaired({3: [0.0], 5: [1.0, 1.0]}, 3, 1.0) == 3


def test_a_move_is_close_while_the_best_gain_over_the_baseline_is_not_yet_shown():
    baseline = [0.0, 1.0, 0.0, 1.0]                      # mean 0.5, standard error 0.29
    # 5 gains 0.25 with a standard error of 0.35: under one, so close at confidence 1.
    assert unpaired_is_close({3: baseline, 5: [0.5, 1.0, 0.5, 1.0]}, 3, 1.0)
    # 5 gains 0.5 with 0.29: 1.7 standard errors: close at confidence 1, not at 0.5.
    assert unpaired_is_close({3: baseline, 5: [1.0] * 4}, 3, 1.0)
    assert not unpaired_is_close({3: baseline, 5: [1.0] * 4}, 3, 0.5)
    # Every other action worse than the baseline: more worlds would not change the move.
    assert not unpaired_is_close({3: baseline, 5: [0.0] * 4, 7: [0.2, 0.1]}, 3, 1.0)
    # One clear gain decides it, whatever the noisy ones do.
    assert not unpaired_is_close({3: [0.0] * 8, 5: [1.0] * 8, 7: [2.0, -1.0]}, 3, 1.0)
    # The baseline seen once: nothing is known against it.
    assert unpaired_is_close({3: [0.0], 5: [1.0, 1.0]}, 3, 1.0)


def test_pimc_spends_more_worlds_only_on_a_close_move():
    game = pyspiel.load_game("python_modern_canasta")
    searched = []
    for state in canasta_states(10, 3):
        me, width = state.current_player(), len(state.legal_actions())
        # Confidence 0: no gain is close once the baseline has two returns, which it has
        # when each world's iterations try every action once.
        never = make_bot(f"pimc(worlds=2,iterations={width},rollout=rules,baseline=rules,max_worlds=6,"
                         f"confidence=0)", game, me, 1)
        always = make_bot("pimc(worlds=2,iterations=4,rollout=rules,baseline=rules,max_worlds=6,confidence=1e9)",
                          game, me, 1)
        never.step(state)
        always.step(state)
        assert never.worlds_searched == 2 and never.iterations == 2 * width
        assert always.worlds_searched in (2, 4, 6) and always.iterations == 4 * always.worlds_searched
        searched.append(always.worlds_searched)
    # Any gain is close under an endless confidence: most moves run to max_worlds, and a move
    # whose every alternative lost to the baseline stops early.
    assert searched.count(6) >= 5 and min(searched) < 6


def test_pimc_with_max_worlds_never_reads_hidden_cards():
    game = pyspiel.load_game("python_modern_canasta")
    rng = random.Random(6)
    spec = "pimc(worlds=2,iterations=4,rollout=rules,baseline=rules,max_worlds=6)"
    for state in canasta_states(6, 2):
        me = state.current_player()
        world = state.resample_from_infostate(me, rng.random)
        on_truth, on_world = make_bot(spec, game, me, 2), make_bot(spec, game, me, 2)
        assert on_truth.step(state) == on_world.step(world)
        assert on_truth.worlds_searched == on_world.worlds_searched
        assert on_truth.root_returns == on_world.root_returns


@pytest.mark.parametrize("spec", ["pimc(worlds=3,flat=true,rollout=rules,baseline=rules,assume=rules,"
                                  "confidence=1000000)",
                                  "ismcts(iterations=30,rollout=rules,baseline=rules,confidence=1000000)",
                                  "ismcts(iterations=30,rollout=rules,baseline=rules,confidence=1000000,root=paired)"])
def test_a_search_that_never_finds_evidence_plays_its_baseline(spec):
    game = pyspiel.load_game("python_american_page_one(players=4)")
    bots = [make_bot(spec, game, 0, 1)] + [make_bot("rules", game, p, p) for p in range(1, 4)]
    rules = make_bot("rules", game, 0, 0)
    state, rng, moves = game.new_initial_state(), random.Random(3), 0
    while not state.is_terminal() and moves < 30:
        if state.is_chance_node():
            state.apply_action(chance_sampler(state)(state, rng.random()))
            continue
        if state.current_player() == 0:
            assert bots[0].step(state) == rules.step(state)
            moves += 1
        state.apply_action(bots[state.current_player()].step(state))
    assert moves >= 10
