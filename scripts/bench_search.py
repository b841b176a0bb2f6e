"""Benchmark sections `search`: simulations per second of our ISMCTS and of
OpenSpiel's Python ISMCTS (open_spiel.python.algorithms.ismcts with its
RandomRolloutEvaluator, which calls our games' resample_from_infostate) on the
same states, in the same run, at the same number of simulations per move (ours
with rollouts to the end and a fresh world every iteration, as theirs); and
`search_defaults`: the default tournament's search specs at American Page One,
ms a move with their `auto` horizon and pool against the same specs playing
every rollout to the end with a fresh world every iteration (search.evaluation)."""

from __future__ import annotations

import random
import statistics
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from agents import make_bot

SIMULATIONS = 1000
GAMES = ("python_page_one(players=4)", "python_american_page_one(players=4)")


def decision_states(game: pyspiel.Game, count: int, seed: int) -> list[tuple[pyspiel.State, float]]:
    """One state from each of `count` whole games, drawn uniformly among the game's
    decisions where the player to move has a choice (searching a forced move
    costs nothing): early, middle and late positions alike. The games are
    played by the rule bot in every seat, so they end as real games do (random
    play at American Page One rarely empties a hand), with chance uniform. Each
    comes with how far into its game it lies (its index among the game's
    decisions with a choice, over their number)."""
    rng = random.Random(seed)
    bots = [make_bot("rules", game, seat, seed + seat) for seat in range(game.num_players())]
    states = []
    while len(states) < count:
        state = game.new_initial_state()
        choices = []
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                continue
            if len(state.legal_actions()) > 1:
                choices.append(state.clone())
            state.apply_action(bots[state.current_player()].step(state))
        if choices:
            i = rng.randrange(len(choices))
            states.append((choices[i], i / len(choices)))
    return states


def section_search(seconds: float, repeats: int) -> None:
    """`repeats` states per game; each is searched by both, one after the other,
    so the ratio of each pair is measured under the same load (in CPU time)."""
    for game_string in GAMES:
        game = pyspiel.load_game(game_string)
        print(f"== ISMCTS simulations/s at {SIMULATIONS} per move, {game_string} ==")
        ours_rate, theirs_rate = [], []
        states = decision_states(game, max(repeats, 1), seed=7)
        for i, (state, _) in enumerate(states):
            player = state.current_player()
            ours = make_bot(f"ismcts(iterations={SIMULATIONS},horizon=none,pool=none)", game, player, i)
            start = time.process_time()
            ours.step(state)
            ours_rate.append(ours.iterations / (time.process_time() - start))
            rs = np.random.RandomState(i)
            theirs = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, SIMULATIONS,
                                      random_state=rs)
            start = time.process_time()
            theirs.run_search(state)
            theirs_rate.append(SIMULATIONS / (time.process_time() - start))
        ratios = [a / b for a, b in zip(ours_rate, theirs_rate)]
        print(f"  ours (search.bots ISMCTS)          {statistics.median(ours_rate):>9,.0f} simulations/s")
        print(f"  OpenSpiel Python ISMCTS            {statistics.median(theirs_rate):>9,.0f} simulations/s")
        where = sorted(f for _, f in states)
        print(f"  ratio, median of {len(ratios)} states         {statistics.median(ratios):>9.1f}x "
              f"(range {min(ratios):.1f}-{max(ratios):.1f}); states {where[0]:.0%} to {where[-1]:.0%} "
              f"into their games (median {statistics.median(where):.0%}), CPU time")


DEFAULT_SPECS = ("ismcts(iterations=300)", "pimc(worlds=10,iterations=30)")


def section_search_defaults(seconds: float, repeats: int) -> None:
    """`repeats` states of American Page One; on each, every default spec moves with
    `auto` and then with horizon=none (and pool=none), one after the other, so that
    each pair sees the same load (CPU time)."""
    game_string = "python_american_page_one(players=4)"
    game = pyspiel.load_game(game_string)
    print(f"== the default search specs, ms a move, {game_string} ==")
    states = decision_states(game, max(repeats, 1), seed=7)
    for spec in DEFAULT_SPECS:
        whole = spec.replace(")", ",horizon=none" + (",pool=none)" if spec.startswith("ismcts") else ")"))
        fast, slow = [], []
        for i, (state, _) in enumerate(states):
            for bot_spec, times in ((spec, fast), (whole, slow)):
                bot = make_bot(bot_spec, game, state.current_player(), i)
                start = time.process_time()
                bot.step(state)
                times.append(1000 * (time.process_time() - start))
        ratios = [b / a for a, b in zip(fast, slow)]
        print(f"  {spec:<34} {statistics.median(fast):7.1f} ms (auto)  {statistics.median(slow):7.1f} ms "
              f"(to the end)  {statistics.median(ratios):5.1f}x faster, median of {len(ratios)} states "
              f"(range {min(ratios):.1f}-{max(ratios):.1f}), CPU time")


VALUE_GAMES = ("python_page_one(players=4)", "python_american_page_one(players=4)", "python_modern_canasta",
               "python_classic_canasta(players=4)")


def section_value(seconds: float, repeats: int) -> None:
    """ISMCTS iterations a second with the rule bot's rollouts to the end against the
    same search whose leaves the shipped value network values (at once, and after
    24 rule-bot moves), on the same states, in the same run: what a value network
    buys (search.value). Games without a shipped value network are skipped."""
    from agents.base import rules_core
    from search.netfile import shipped_path
    print("== value networks: ISMCTS iterations a second, rule-bot rollouts to the end against the "
          "shipped value network at the leaf ==")
    for game_string in VALUE_GAMES:
        game = pyspiel.load_game(game_string)
        if not shipped_path(game, "value").is_file():
            print(f"  {game_string}: no shipped value network")
            continue
        states = [rules_core(s) for s, _ in decision_states(game, 6, 1)]
        specs = {"rollouts to the end": "ismcts(iterations=1000000,rollout=rules,seconds={})",
                 "value at the leaf": "ismcts(iterations=1000000,rollout=rules,value=shipped,seconds={})",
                 "value after 24 moves": "ismcts(iterations=1000000,rollout=rules,value=shipped,horizon=24,seconds={})"}
        rates: dict[str, list[float]] = {name: [] for name in specs}
        per_state = seconds / len(states)
        for _ in range(repeats):
            for name, spec in specs.items():
                done = 0
                for state in states:
                    bot = make_bot(spec.format(per_state), game, state.current_player(), 0)
                    bot.search(state)
                    done += bot.iterations
                rates[name].append(done / seconds)
        base = statistics.median(rates["rollouts to the end"])
        cells = "   ".join(f"{name} {statistics.median(r):8.0f}/s ({statistics.median(r) / base:5.1f}x)"
                           for name, r in rates.items())
        print(f"  {game_string:<38} {cells}")
