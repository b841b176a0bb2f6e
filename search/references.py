"""OpenSpiel's own ISMCTS bots as agents: the references our search is measured against.

    openspiel_ismcts(iterations=1000)      open_spiel.python.algorithms.ismcts with its
    openspiel_ismcts(seconds=0.1)          RandomRolloutEvaluator; any game that resamples
    openspiel_cpp_ismcts(iterations=1000)  pyspiel.ISMCTSBot: C++ games only (hearts)
    hearts_fixed_pass(bot=SPEC)            hearts' passing by a fixed rule, then SPEC

OpenSpiel 2.0.2's hearts resamples wrongly during the passing phase: a world
can hold a passed card twice and reach a state with no legal action (about a
third of the worlds drawn while cards are being passed; none of 9,800 drawn in
the play phase). pyspiel.ISMCTSBot crashes the process on such a world, so a
fair comparison on hearts lets both bots pass by the same fixed rule
(`hearts_fixed_pass`, registered for such runs with the harness's --register)
and search only the thirteen tricks.

The Python bot lacks `restart_at` (so OpenSpiel's own evaluate_bots and our
harness cannot run it) and a clock budget; the adapter adds both. Its clock
loop is its own `run_search` with the deadline in place of the simulation count.

`c` is OpenSpiel's `uct_c`, in units of the game's returns (ours are in units of
the return range: search.bots).
"""

from __future__ import annotations

import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from games.registry import Param
from search.mcts import Budget


class OpenSpielISMCTS(ismcts.ISMCTSBot):
    """OpenSpiel's Python ISMCTS, able to restart and to stop on a clock."""

    def __init__(self, game: pyspiel.Game, seed: int, budget: Budget, c: float):
        rs = np.random.RandomState(seed % 2**32)       # numpy takes 32-bit seeds
        super().__init__(game, mcts.RandomRolloutEvaluator(1, rs), c,
                         budget.iterations if budget.iterations is not None else 1 << 62,
                         random_state=rs)
        self.seconds = budget.seconds

    def restart_at(self, state) -> None:
        pass

    def inform_action(self, state, player_id: int, action: int) -> None:
        pass

    def run_search(self, state):
        if self.seconds is None:
            return super().run_search(state)
        self.reset()
        legal = state.legal_actions()
        if len(legal) == 1:
            return [(legal[0], 1.0)]
        self._root_node = self.create_new_node(state)
        deadline = time.perf_counter() + self.seconds
        simulations = 0
        # The first simulation only evaluates the root: two make a policy.
        while simulations < self._max_simulations and (simulations < 2 or time.perf_counter() < deadline):
            self.run_simulation(self.sample_root_state(state))
            simulations += 1
        return self.get_final_policy(state, self._root_node)


def make_openspiel_ismcts(game, player: int, seed: int = 0, iterations: int | None = None,
                          seconds: float | None = None, c: float = 2.0) -> OpenSpielISMCTS:
    budget = Budget(1000) if iterations is None and seconds is None else Budget(iterations, seconds)
    return OpenSpielISMCTS(game, seed, budget, c)


def make_openspiel_cpp_ismcts(game, player: int, seed: int = 0, iterations: int = 1000,
                              c: float = 2.0) -> pyspiel.Bot:
    if type(game).__module__ != "pyspiel":
        raise ValueError(f"openspiel_cpp_ismcts runs on OpenSpiel's C++ games only: on a Python game "
                         f"such as {game.get_type().short_name!r} its step crashes the process "
                         f"(use openspiel_ismcts)")
    budget = Budget(iterations)
    seed %= 2**31                                     # pyspiel takes 32-bit seeds
    return pyspiel.ISMCTSBot(seed, pyspiel.RandomRolloutEvaluator(1, seed), c, budget.iterations, -1,
                             pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)


class HeartsFixedPass(pyspiel.Bot):
    """Passes the highest card ids in OpenSpiel's hearts, then plays as `bot`."""

    def __init__(self, bot: pyspiel.Bot):
        pyspiel.Bot.__init__(self)
        self.bot = bot

    def restart_at(self, state) -> None:
        self.bot.restart_at(state)

    def inform_action(self, state, player_id: int, action: int) -> None:
        self.bot.inform_action(state, player_id, action)

    def step(self, state) -> int:
        history = state.history()
        if history[0] != NO_PASS and len(history) < PLAY_STARTS:
            return state.legal_actions()[-1]
        return self.bot.step(state)


NO_PASS = 0              # hearts' first chance outcome: the pass direction
PLAY_STARTS = 1 + 52 + 12   # the direction, the deal, four players passing three cards


def make_hearts_fixed_pass(game, player: int, seed: int = 0, bot: str = "random") -> HeartsFixedPass:
    if game.get_type().short_name != "hearts":
        raise ValueError(f"hearts_fixed_pass is for OpenSpiel's hearts, not {game.get_type().short_name!r}")
    from agents import make_bot
    return HeartsFixedPass(make_bot(bot, game, player, seed))


make_openspiel_ismcts.declared_settings = (
    Param("iterations", "int", None, "iterations a move (1000 when neither budget is given)", min=1),
    Param("seconds", "float", None, "seconds a move", min=0),
    Param("c", "float", 2.0, "UCT exploration"),
)
make_openspiel_cpp_ismcts.declared_settings = (
    Param("iterations", "int", 1000, "iterations a move", min=1),
    Param("c", "float", 2.0, "UCT exploration"),
)
