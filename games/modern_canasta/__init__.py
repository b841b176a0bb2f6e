"""Modern American Canasta: four players in two partnerships, two canastas to go out."""

from games.modern_canasta.core import CanastaRules, CanastaState

__all__ = ["CanastaRules", "CanastaState"]
