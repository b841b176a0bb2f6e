"""Worlds weighed by how the others played: inference with a model of their play.

A resampled world agrees with everything the player saw, but it is drawn
uniformly among such worlds, so it ignores what the others' choices say about
their cards: a player that drew instead of playing, or kept a special card, did
so for a reason its hand holds. `WorldInference` replays a world's history and,
at each decision of another player with more than one legal action, asks a
model bot (a bot spec such as `rules`) what it would have done there. The
world's log-likelihood is the sum over those decisions of log(1 - epsilon) where
the model agrees and log(epsilon / (legal - 1)) where it does not: the model
plays its own move, or any other with total probability epsilon.

The search bots use it with the `model` setting (search.bots): they draw
`candidates` worlds and keep the most likely ones. With a `partner_spec` the
seats on the searcher's own side are modelled by that bot instead: in a
partnership the partner is often not the bot the opponents are (at Canasta
the search's partner is the search itself, which mostly plays its baseline's
move). experiments/belief_quality.py measures it (`--partner-model`); no search
setting uses it, as it brought worlds no closer (experiments/logs/search.md, screen X).
Everything it reads is the
world, which holds only what the player saw and what the resampler drew, so it
never reads the real hidden cards; it assumes the others play like the model,
which is right against that bot and a guess against anyone else.
"""

from __future__ import annotations

import math

import pyspiel

from agents import make_bot
from agents.base import rules_core
from games.protocol import GameState

DEFAULT_EPSILON = 0.1


class WorldInference:
    """The log-likelihood of a world's history under a model of the other players."""

    def __init__(self, spec: str, game: pyspiel.Game, seed: int, epsilon: float = DEFAULT_EPSILON,
                 partners: tuple[int, ...] = (), partner_spec: str | None = None):
        """`spec` models every other seat, or, with `partner_spec`, every seat but `partners`."""
        if not 0 < epsilon < 1:
            raise ValueError(f"epsilon={epsilon!r}: must be in (0, 1)")
        self.game = game
        self.bots = [make_bot(partner_spec if partner_spec is not None and seat in partners else spec,
                              game, seat, seed + seat) for seat in range(game.num_players())]
        self.agree = math.log1p(-epsilon)
        self.epsilon = epsilon

    def log_likelihood(self, world: GameState, me: int) -> float:
        """How likely the others' moves in `world`'s history are under the model."""
        epsilon = self.epsilon
        return sum(self.agree if agreed else math.log(epsilon / (legal - 1))
                   for agreed, legal in self._decisions(world, me))

    def disagreements(self, world: GameState, me: int) -> int:
        """How many of the others' moves in `world`'s history the model would not have made."""
        return sum(not agreed for agreed, _ in self._decisions(world, me))

    def _decisions(self, world: GameState, me: int):
        """(whether the model agrees, legal action count) at each decision of
        another player with a choice, `world`'s history replayed."""
        state = rules_core(self.game.new_initial_state())
        bots = self.bots
        for action in world.history():
            player = state.current_player()
            if player >= 0 and player != me:
                legal = state.legal_actions()
                if len(legal) > 1:
                    yield bots[player].step(state) == action, len(legal)
            state.apply_action(action)
