"""A trained network as the prior of a search: `ismcts(prior=PATH)`.

The prior of a node is softmax(scores / temperature) over the legal actions of
the player to move, computed from that player's own information-state tensor
only, so it is the same in every determinization of the node's information
state and reveals nothing hidden.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from agents.neural.bot import legal_scores, load_cached, member_hidden, numpy_layers
from agents.neural.botfile import bot_file_path
from agents.neural.encoding import GameIdentity, InfoStateEncoder


DEFAULT_TEMPERATURE = 0.1


class NeuralPrior:
    """`prior(world, player, legal) -> probabilities aligned with legal`."""

    def __init__(self, game: pyspiel.Game, path: str | None, temperature: float = DEFAULT_TEMPERATURE):
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not temperature > 0:
            raise ValueError(f"prior_temperature={temperature!r}: must be a number > 0")
        identity = GameIdentity.of(game)
        file = bot_file_path(path, identity.short_name)
        bot = load_cached(file, identity, strict_params=True)
        if bot.baseline is not None:
            raise ValueError(f"prior {file}: its network scores moves by their gain over the {bot.baseline.spec!r} "
                             f"bot's move, not by their value, so it is no prior; use it as "
                             f"baseline=neural(path={file}), or give a deep Monte-Carlo bot file as the prior")
        self.layers = numpy_layers(bot.net, member_hidden(bot.training))
        self.encoder = InfoStateEncoder(game)
        self.obs = np.zeros(self.encoder.size, np.float32)
        self.temperature = float(temperature)

    def __call__(self, world, player: int, legal: list[int]) -> np.ndarray:
        self.encoder.encode(world, player, legal, self.obs)
        z = legal_scores(self.layers, self.obs, legal) / self.temperature
        p = np.exp(z - z.max())
        return p / p.sum()
