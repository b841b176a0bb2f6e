"""What the network sees: the information-state tensor of the player to move and
the mask of its legal actions, nothing else, so no hidden card can leak in.

The tensor comes from the game's own perfect-recall observer, which our games
fill from a rules core directly (much faster than through pyspiel); OpenSpiel's
C++ games go through the same call on a pyspiel state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import pyspiel
from open_spiel.python import observation

from games import registry


@dataclass(frozen=True)
class GameIdentity:
    """What a network is made for: a bot file is checked against it when loaded."""

    short_name: str
    game_string: str
    parameters: dict[str, Any]
    tensor_size: int
    num_actions: int
    deal_parameters: frozenset[str] = frozenset()

    @classmethod
    def of(cls, game: pyspiel.Game) -> "GameIdentity":
        return cls(short_name=game.get_type().short_name,
                   game_string=str(game),
                   parameters=dict(game.get_parameters()),
                   tensor_size=InfoStateEncoder(game).size,
                   num_actions=game.num_distinct_actions(),
                   deal_parameters=deal_parameters(game))


def deal_parameters(game: pyspiel.Game) -> frozenset[str]:
    """The parameters a match changes from deal to deal (a Canasta hand's running
    scores and first player, an American Page One deal's dealer and standing),
    as the game's registry entry declares them (its match offer's `sets`): every
    deal of a match is the same game to a bot."""
    entry = registry.of_game(game)
    return frozenset(entry.match.sets if entry is not None and entry.match is not None else ())


class InfoStateEncoder:
    """Fills rows of a batch with (information-state tensor, legal-action mask)."""

    def __init__(self, game: pyspiel.Game):
        if not game.get_type().provides_information_state_tensor:
            raise ValueError(f"game {game.get_type().short_name!r} has no information-state tensor")
        self.observer = observation.make_observation(
            game, pyspiel.IIGObservationType(perfect_recall=True))
        self.size = len(self.observer.tensor)
        self.num_actions = game.num_distinct_actions()

    def encode(self, state, player: int, legal: Sequence[int],
               obs_row: np.ndarray, mask_row: np.ndarray | None = None) -> None:
        """Writes `player`'s view of `state` (a rules core or a pyspiel state) into
        `obs_row` and marks `legal` in `mask_row` (which must start zeroed), if given."""
        self.observer.set_from(state, player)
        obs_row[:] = self.observer.tensor
        if mask_row is not None:
            mask_row[list(legal)] = 1.0

    def batch(self, states: Sequence[Any], legal: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
        """(obs, mask) arrays for the players to move in `states`."""
        obs = np.zeros((len(states), self.size), np.float32)
        mask = np.zeros((len(states), self.num_actions), np.float32)
        for i, state in enumerate(states):
            self.encode(state, state.current_player(), legal[i], obs[i], mask[i])
        return obs, mask
