"""Priors for PUCT selection (search.mcts.Prior), named by a search bot's `prior` setting:

* a bot spec (`rules`, ...): that bot's move gets `PRIOR_WEIGHT` of the
  probability and the legal actions share the rest evenly, so the search
  starts from the bot's play and leaves it only for an action whose returns
  show it better;
* anything else is the path of a trained network's bot file, or `shipped`
  for the game's bot in bots/ (agents.neural.prior.NeuralPrior): the softmax
  of its scores.

Either reads only the information of the player to move in the world it is
given, so a prior is the same in every determinization of an information state.
"""

from __future__ import annotations

from typing import Sequence

import pyspiel

from agents import BOT_FACTORIES, parse_spec
from games.protocol import GameState
from search.mcts import Prior
from search.rollout import seat_bots

PRIOR_WEIGHT = 0.5


class BotPrior:
    """A bot's move, mixed with the uniform policy."""

    def __init__(self, spec: str, game: pyspiel.Game, seed: int):
        self.bots = seat_bots(spec, game, seed)

    def __call__(self, world: GameState, player: int, legal: list[int]) -> Sequence[float]:
        choice = self.bots[player].step(world)
        rest = (1.0 - PRIOR_WEIGHT) / len(legal)
        return [rest + PRIOR_WEIGHT if a == choice else rest for a in legal]


def make_prior(prior: str | None, game: pyspiel.Game, seed: int,
               temperature: float | None = None) -> Prior | None:
    """The prior that the `prior` setting names (None: no prior, UCB1 selection);
    `temperature` (the `prior_temperature` setting) is a network prior's, which
    a search may want flatter than the network's own play (docs/search.md)."""
    if prior is None:
        if temperature is not None:
            raise ValueError(f"prior_temperature={temperature!r}: applies to a network prior; no prior is given")
        return None
    if not isinstance(prior, str):
        raise ValueError(f"prior={prior!r}: must be a bot spec such as 'rules' or a network's path")
    try:
        is_bot = parse_spec(prior)[0] in BOT_FACTORIES
    except ValueError:
        is_bot = False
    try:
        if is_bot:
            if temperature is not None:
                raise ValueError(f"prior_temperature={temperature!r}: applies to a network prior, not to a "
                                 f"bot's (its move gets {PRIOR_WEIGHT} of the probability)")
            return BotPrior(prior, game, seed)
        from agents.neural.prior import DEFAULT_TEMPERATURE, NeuralPrior
        return NeuralPrior(game, prior, DEFAULT_TEMPERATURE if temperature is None else temperature)
    except ImportError:
        raise ValueError(f"prior={prior!r}: not a bot spec, and network priors need torch, "
                         f"which is not installed") from None
    except ValueError as e:
        raise ValueError(f"prior={prior!r}: {e}") from e
