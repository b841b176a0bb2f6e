"""A side whose two players play differently: `partnership(first=SPEC,second=SPEC)`.

The harness fills a side with one agent; a study that asks what a partner's
style is worth needs the two players of that side to differ while the teams
stay fixed. This factory is that agent: `first` plays seats 0 and 1 (the first
player of either side), `second` seats 2 and 3. A study registers it with the
tournament (TournamentConfig.bot_modules), so every worker can make it.
"""

from __future__ import annotations

import pyspiel

from agents import make_bot


def make_partnership(game: pyspiel.Game, player: int, seed: int = 0, *, first: str,
                     second: str) -> pyspiel.Bot:
    """The bot of `first` in seats 0 and 1, of `second` in seats 2 and 3."""
    return make_bot(str(first) if player < 2 else str(second), game, player, seed)
