"""Page One (ページワン): follow suit, draw until you can, highest card leads."""

from games.page_one.core import PageOneRules, PageOneState

__all__ = ["PageOneRules", "PageOneState"]
