"""American Page One (アメリカンページワン): crazy eights with two decks, draw cards and local rules."""

from games.american_page_one.core import AmericanPageOneRules, AmericanPageOneState

__all__ = ["AmericanPageOneRules", "AmericanPageOneState"]
