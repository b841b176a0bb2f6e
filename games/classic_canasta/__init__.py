"""Classic (standard) Canasta for 2, 3 or 4 players, beside the modern game."""

from games.classic_canasta.core import ClassicRules, ClassicState

__all__ = ["ClassicRules", "ClassicState"]
