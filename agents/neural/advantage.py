"""Samples for `--target advantage`: one step of policy improvement over the rule bot.

Self-play deep Monte-Carlo learns the value of the network's own play from
whole-game returns, where a move worth a few points drowns in a deal worth
±119. This target learns something narrower, with far less noise: how much
better or worse each other legal move is than the rule bot's, with the rule
bot playing every seat before and after.

The rule bots play deals in every seat. At a fraction `probe` of the decisions
that have a choice, every legal move is played out to the end on the true
state by rule bots, all with the same draws (common random numbers), and each
move other than the rule bot's becomes a sample: (the mover's information-state
tensor, the move, its placement less the rule move's placement). Both
placements come from the same cards and the same draws, so their difference
carries only what the move changed.

The true cards make the targets, never the inputs. The regression of a
target on the information-state tensor converges to its expectation over
the hidden cards the mover cannot see, weighted as rule bots' play deals
them: the advantage of the move over the rule bot's move for a player who
knows what the others' play says of their hands (a player facing rule bots).
A search draws its worlds from a belief and loses what the belief misses
(docs/search.md); this learns from worlds as they were dealt.

A network trained this way scores moves by advantage, so the bot plays the
rule bot's move unless another scores above a margin (agents/neural/bot.py,
`margin`). That is one step of policy iteration: the greedy policy over the
rule bot's action values, taken only where the network is sure.
"""

from __future__ import annotations

import random

import numpy as np
import pyspiel

from agents.base import rules_core
from agents.neural.encoding import InfoStateEncoder
from games.protocol import chance_sampler
from search.mcts import placement
from search.rollout import BotRollout

BASELINE = "rules"


def play_probe_batch(game: pyspiel.Game, encoder: InfoStateEncoder, baseline: list[pyspiel.Bot],
                     playout: BotRollout, rng: random.Random, games: int,
                     probe: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Plays `games` deals with the baseline bots in every seat; returns
    (obs, actions, advantages, games) for the other moves of the probed decisions."""
    obs_rows: list[np.ndarray] = []
    actions: list[int] = []
    targets: list[float] = []
    for _ in range(games):
        state = rules_core(game.new_initial_state())
        sample = chance_sampler(state)
        for bot in baseline:
            bot.restart_at(state)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample(state, rng.random()))
                continue
            player = state.current_player()
            legal = state.legal_actions()
            move = baseline[player].step(state)
            if len(legal) > 1 and rng.random() < probe:
                obs = np.zeros(encoder.size, np.float32)
                encoder.encode(state, player, legal, obs)
                for a, gain in move_advantages(state, legal, move, playout, rng.getrandbits(64)).items():
                    obs_rows.append(obs.astype(np.float16))
                    actions.append(a)
                    targets.append(gain)
            for seat, bot in enumerate(baseline):
                if seat != player:
                    bot.inform_action(state, player, move)
            state.apply_action(move)
    if not obs_rows:
        return np.zeros((0, encoder.size), np.float16), np.zeros(0, np.int64), np.zeros(0, np.float32), games
    return np.stack(obs_rows), np.array(actions, np.int64), np.array(targets, np.float32), games


def move_advantages(state, legal: list[int], move: int, playout: BotRollout, seed: int) -> dict[int, float]:
    """Each legal action but `move`: the mover's place ([-1, 1]) after it, less
    its place after `move`, each played out once to the end by `playout` on the
    true state with the draws that `seed` fixes."""
    player = state.current_player()

    def place_after(action: int) -> float:
        world = state.clone()
        world.apply_action(action)
        return placement(playout.evaluate(world, random.Random(seed).random))[player]

    base = place_after(move)
    return {a: place_after(a) - base for a in legal if a != move}
