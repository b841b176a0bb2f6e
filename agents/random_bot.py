"""The uniform random bot: the floor every rating is anchored to."""

from __future__ import annotations

import random

from agents.base import CardBot


class RandomBot(CardBot):
    any_seat = True
    states_policy = True        # known_policy below: what the luck adjustment reads

    def __init__(self, game, player: int, seed: int):
        super().__init__(player)
        self.rng = random.Random(seed)

    def step(self, state) -> int:
        legal = state.legal_actions()
        return legal[self.rng.randrange(len(legal))]

    def known_policy(self, state) -> list[tuple[int, float]]:
        """Uniform over the legal actions, whatever came before."""
        legal = state.legal_actions()
        return [(action, 1.0 / len(legal)) for action in legal]
