"""Benchmark section `search`: simulations per second of our ISMCTS and of
OpenSpiel's Python ISMCTS (open_spiel.python.algorithms.ismcts with its
RandomRolloutEvaluator, which calls our games' resample_from_infostate) on the
same states, in the same run, at the same number of simulations per move."""

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


def decision_states(game: pyspiel.Game, count: int, seed: int) -> list[pyspiel.State]:
    """States from the first dozen decisions of random games where the player to
    move has a choice (searching a forced move costs nothing)."""
    rng = random.Random(seed)
    states = []
    while len(states) < count:
        state = game.new_initial_state()
        stop = rng.randrange(1, 12)
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
                continue
            legal = state.legal_actions()
            if decisions == stop and len(legal) > 1:
                states.append(state)
                break
            state.apply_action(legal[rng.randrange(len(legal))])
            decisions += 1
    return states


def section_search(seconds: float, repeats: int) -> None:
    """`repeats` states per game; each is searched by both, one after the other,
    so the ratio of each pair is measured under the same load."""
    for game_string in GAMES:
        game = pyspiel.load_game(game_string)
        print(f"== ISMCTS simulations/s at {SIMULATIONS} per move, {game_string} ==")
        ours_rate, theirs_rate = [], []
        for i, state in enumerate(decision_states(game, max(repeats, 1), seed=7)):
            player = state.current_player()
            ours = make_bot(f"ismcts(iterations={SIMULATIONS})", game, player, i)
            start = time.perf_counter()
            ours.step(state)
            ours_rate.append(ours.iterations / (time.perf_counter() - start))
            rs = np.random.RandomState(i)
            theirs = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, SIMULATIONS,
                                      random_state=rs)
            start = time.perf_counter()
            theirs.run_search(state)
            theirs_rate.append(SIMULATIONS / (time.perf_counter() - start))
        ratios = [a / b for a, b in zip(ours_rate, theirs_rate)]
        print(f"  ours (search.bots ISMCTS)          {statistics.median(ours_rate):>9,.0f} simulations/s")
        print(f"  OpenSpiel Python ISMCTS            {statistics.median(theirs_rate):>9,.0f} simulations/s")
        print(f"  ratio, median of {len(ratios)} states         {statistics.median(ratios):>9.1f}x "
              f"(range {min(ratios):.1f}-{max(ratios):.1f})")
